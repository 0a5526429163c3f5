"""Reading an input file's bytes: gzip, encodings, and the checks that turn junk into one clear line."""

from __future__ import annotations

import csv
import gzip
import re
import sys
import zlib
from pathlib import Path
from typing import BinaryIO

from warpscope.errors import InputError

# A field may be as long as its file: every byte is in memory already, so the csv module's
# 128 KiB guard would only reject real exports (demangled template names run long).
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))

GZIP_MAGIC = b"\x1f\x8b"
NCU_REPORT_MAGIC = b"NVR\x00"  # an Nsight Compute report (.ncu-rep)
_NON_BLANK = re.compile(rb"\S")


def read_bytes(path: str | Path) -> bytes:
    """The file's content, decompressed when gzip, with a UTF-8 BOM removed."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        raise InputError(str(path), "is a directory, expected a profile file") from None
    except OSError as e:
        raise InputError(str(path), f"cannot read: {e.strerror or e}") from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(str(path), f"damaged gzip file ({e})") from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data


def open_binary(path: str | Path) -> BinaryIO:
    """The file as a binary stream, decompressed as it is read when gzip."""
    try:
        f = open(path, "rb")  # noqa: SIM115 -- returned to the caller, who closes it
    except IsADirectoryError:
        raise InputError(str(path), "is a directory, expected a profile file") from None
    except OSError as e:
        raise InputError(str(path), f"cannot read: {e.strerror or e}") from None
    if f.peek(2)[:2] != GZIP_MAGIC:
        return f
    f.close()
    return gzip.open(path, "rb")  # type: ignore[return-value]


def read_head(path: str | Path, size: int = 1 << 20) -> bytes:
    """The file's first ``size`` bytes (decompressed when gzip, BOM removed); b"" if unreadable
    (``read_bytes`` then says why)."""
    try:
        with open(path, "rb") as f:
            head = f.read(size)
            if head[:2] == GZIP_MAGIC:
                f.seek(0)
                with gzip.open(f) as z:
                    head = z.read(size)
    except (OSError, EOFError, zlib.error):
        return b""
    return head[3:] if head[:3] == b"\xef\xbb\xbf" else head


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset``."""
    return data.count(b"\n", 0, offset) + 1


def check_text(path: str, data: bytes) -> None:
    """Refuse empty, binary and non-UTF-8 input with the line where it goes wrong."""
    if _NON_BLANK.search(data) is None:  # not data.strip(): that would copy the whole file
        raise InputError(path, "empty file, expected a profiler export", line=1)
    nul = data.find(b"\x00", 0, 1 << 20)
    if nul >= 0:
        raise InputError(
            path,
            "binary data (NUL byte), expected a text export from Nsight Compute or nvprof",
            line=line_of(data, nul),
        )


def decode(path: str, data: bytes, base_line: int = 1) -> str:
    """``data`` as UTF-8 text, or an InputError naming the first line that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = base_line + data.count(b"\n", 0, e.start)
        raise InputError(
            path, f"not UTF-8 text (byte 0x{data[e.start]:02x}); expected a UTF-8 profiler export", line=line
        ) from None


def text_lines(text: str) -> list[str]:
    """Lines split at "\n" (a "\r" before it dropped) -- not ``str.splitlines``, which also
    breaks at U+0085, U+2028 and other characters a kernel name may carry."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
