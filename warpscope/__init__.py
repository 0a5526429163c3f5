"""warpscope: GPU kernel profiles, explained, in a terminal.

``warpscope.load(path_or_paths)`` returns a Profile (Polars frames) for notebooks.
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

try:  # the one place the version is written is pyproject.toml
    __version__ = version("warpscope")
except PackageNotFoundError:  # a checkout on sys.path that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:
    from warpscope.model.profile import Profile


def load(path_or_paths: str | os.PathLike[str] | list[str] | list[os.PathLike[str]]) -> Profile:
    """Import one or several exports (or saved profiles) into one Profile."""
    from warpscope.importers import import_files

    paths: list[str | os.PathLike[str]] = (
        [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    )
    return import_files([os.fspath(p) for p in paths])
