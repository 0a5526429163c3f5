"""warpscope: GPU kernel profiles, explained, in a terminal.

``warpscope.load(path_or_paths)`` returns a Profile (Polars frames) for notebooks.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from warpscope.model.profile import Profile


def load(path_or_paths: str | os.PathLike[str] | list[str] | list[os.PathLike[str]]) -> Profile:
    """Import one or several exports (or saved profiles) into one Profile."""
    from importers import import_files

    paths: list[str | os.PathLike[str]] = (
        [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    )
    return import_files([os.fspath(p) for p in paths])
