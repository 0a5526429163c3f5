"""Output files: the names a saved profile may have, and writing atomically (a temporary name
in the same folder, then a rename, so an interrupted run never leaves a truncated report or
profile behind)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: suffixes of a profile saved as Parquet; the others of ``PROFILE_SUFFIXES`` are Arrow IPC
PARQUET_SUFFIXES = (".parquet", ".pq")
#: suffixes of a saved profile (``Profile.save``), lower case
PROFILE_SUFFIXES = (*PARQUET_SUFFIXES, ".arrow", ".ipc", ".feather")


def is_profile_path(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is named like a saved profile (by its suffix, in any case)."""
    return Path(path).suffix.lower() in PROFILE_SUFFIXES


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block ends
    without an error, removed when it raises."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
