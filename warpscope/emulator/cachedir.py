"""Where warpscope keeps what it computed for a later run: emulated workloads
(``emulator.cache``) and generated kernels' bytecode (``compiler.codegen``).
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
