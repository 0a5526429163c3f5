"""The container of an Nsight Compute report: ``NVR\\0``, a file header, then blocks.

Each piece is a little-endian uint32 length followed by that many bytes of one Protocol
Buffers message. A block is a header (``BlockHeader``: which process, how many source and
result messages follow, new strings for the metric-name table, the session details) and then
its payload: the ``SourceData`` messages, then the ``ProfileResult`` messages (one per kernel
launch), then range, command-list and graph results, which warpscope counts but does not read.

The report is read from a stream, one message at a time, so memory holds one launch, not the
file (a full-set report of a training step runs to hundreds of megabytes).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from warpscope.importers._input import NCU_REPORT_MAGIC as MAGIC
from warpscope.importers.ncurep import messages
from warpscope.importers.ncurep.messages import Msg, ReportDamage, parse

#: report format versions this reader was written against (Nsight Compute 2025.3 writes 7)
KNOWN_VERSIONS = range(1, 8)
_LENGTH = struct.Struct("<I")
_CHUNK = 16 << 20  # a stated length is read this much at a time: a damaged one allocates no more


@dataclass
class Block:
    header: Msg
    sources: list[bytes]  # SourceData, serialized: the cubins (and CUDA files with --import-source yes)
    results: Iterator[Msg]  # parsed as iterated; read them before asking for the next block
    other_results: int  # range, command-list and graph results (not read)


def read_blocks(stream: BinaryIO) -> tuple[int, Iterator[Block]]:
    """The file format version and the blocks, each parsed when reached."""
    if stream.read(len(MAGIC)) != MAGIC:
        raise ReportDamage('expected an Nsight Compute report (starting "NVR\\0")', 0)
    reader = _Reader(stream, len(MAGIC))
    version = reader.message(messages.FileHeader, "the file header").Version
    return version, _blocks(reader)


def _blocks(reader: _Reader) -> Iterator[Block]:
    while not reader.at_end():
        header = reader.message(messages.BlockHeader, "a block header")
        end = reader.pos + header.PayloadSize
        sources = [reader.raw_message("a source message") for _ in range(header.NumSources)]
        results = _results(reader, header.NumResults)
        other = header.NumRangeResults + header.NumCmdlistResults + header.NumGraphResults
        yield Block(header, sources, results, other)
        for _ in results:  # what the caller left unread
            pass
        if reader.pos > end:
            raise ReportDamage("the block's messages run past its stated size", end)
        reader.skip(end - reader.pos, "the rest of a block")  # range/cmdlist/graph results


def _results(reader: _Reader, count: int) -> Iterator[Msg]:
    for _ in range(count):
        yield reader.message(messages.ProfileResult, "a kernel launch result")


class _Reader:
    def __init__(self, stream: BinaryIO, pos: int) -> None:
        self.stream, self.pos = stream, pos

    def at_end(self) -> bool:
        return not self._peek()

    def _peek(self) -> bytes:
        peek = getattr(self.stream, "peek", None)
        if peek is not None:
            return bytes(peek(1)[:1])
        here = self.stream.tell()
        byte = self.stream.read(1)
        self.stream.seek(here)
        return byte

    def _read(self, size: int, what: str) -> bytes:
        parts, left = [], size
        while left:
            part = self.stream.read(min(left, _CHUNK))
            if not part:
                got = size - left
                raise ReportDamage(f"{what} of {size:,} bytes; the file ends after {got:,}", self.pos)
            parts.append(part)
            left -= len(part)
        self.pos += size
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def skip(self, size: int, what: str) -> None:
        while size > 0:
            size -= len(self._read(min(size, _CHUNK), what))

    def skip_message(self, what: str) -> None:
        head = self._read(4, f"the length of {what}")
        self.skip(_LENGTH.unpack(head)[0], what)

    def raw_message(self, what: str) -> bytes:
        head = self._read(4, f"the length of {what}")
        return self._read(_LENGTH.unpack(head)[0], what)

    def message(self, cls: type[Msg], what: str) -> Msg:
        start = self.pos
        head = self.stream.read(4)
        if len(head) < 4:
            raise ReportDamage(f"the length of {what}; the file ends first", start)
        self.pos += 4
        (size,) = _LENGTH.unpack(head)
        body = self._read(size, what) if size else b""
        return parse(cls, body, what, start)
