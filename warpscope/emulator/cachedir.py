"""Where warpscope keeps what it computed for a later run: emulated workloads
(``emulator.cache``), generated kernels' bytecode (``compiler.codegen``) and compiled
kernels (``compiler.cache``).
``WARPSCOPE_CACHE`` overrides the folder (default ``$XDG_CACHE_HOME/warpscope``, else
``~/.cache/warpscope``)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    if folder := os.environ.get("WARPSCOPE_CACHE"):
        return Path(folder)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "warpscope"


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` holding ``data``, its folder made: written beside it and renamed into place, so
    a reader (another process) never sees half a file. OSError where it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(path)
