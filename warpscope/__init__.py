"""warpscope: GPU kernel profiles, explained, in a terminal.

``warpscope.load(path_or_paths)`` returns a Profile (Polars frames) for notebooks.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from warpscope.model.profile import Profile

__version__: str  # read from the package metadata at first use (importlib.metadata costs ~40 ms)


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'warpscope' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    global __version__
    try:  # the one place the version is written is pyproject.toml
        __version__ = version("warpscope")
    except PackageNotFoundError:  # a checkout on sys.path that was never installed
        __version__ = "0+unknown"
    return __version__


def load(path_or_paths: str | os.PathLike[str] | list[str] | list[os.PathLike[str]]) -> Profile:
    """Import one or several exports (or saved profiles) into one Profile."""
    from warpscope.importers import import_files

    paths: list[str | os.PathLike[str]] = (
        [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    )
    return import_files([os.fspath(p) for p in paths])
