"""Finding Nsight Compute's CSV tables inside what a user saved.

A saved export can be a clean ``--csv`` file, or a stdout capture where
``==PROF==``/``==WARNING==``/``==ERROR==`` lines and the profiled program's own output
sit before, between and after the CSV, several processes each with its own header.
Every CSV row ncu writes begins with a double quote; anything else is not part of
the table and is set aside (profiler lines are kept as messages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DETAILS_HEADER = b'"ID","Process ID",'
SUMMARY_HEADER = b'"Process ID","Process Name",'
PROFILER_LINE = re.compile(rb"^==(PROF|WARNING|ERROR|WARN|INFO)==")
_NOT_CSV_LINE = re.compile(rb'\n(?=[^"])')
MAX_MESSAGES = 200


@dataclass
class CsvBlock:
    """One CSV table: its header line and body, with the file line of every body line."""

    body: bytes  # header line + the table's CSV lines, newline-terminated
    header_line: int  # 1-based line of the header in the file
    line_numbers: list[int] | None  # file line of each body line after the header; None = contiguous
    truncated_last: bool = False  # the file ended inside the last row, which was dropped
    truncated_line: int | None = None

    def line_of_row(self, row: int) -> int:
        """File line of data row ``row`` (0-based, after the header)."""
        if self.line_numbers is None:
            return self.header_line + 1 + row
        if not self.line_numbers:
            return self.header_line
        # a row quoted across several lines counts them all: past the end means the last line
        return int(self.line_numbers[max(0, min(row, len(self.line_numbers) - 1))])


@dataclass
class Framing:
    blocks: list[CsvBlock] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # profiler lines, verbatim
    other_lines: int = 0  # program output and blank lines set aside


def header_offsets(data: bytes, marker: bytes) -> list[int]:
    """Byte offsets of lines that start with ``marker``."""
    found = []
    if data.startswith(marker):
        found.append(0)
    needle = b"\n" + marker
    pos = data.find(needle)
    while pos >= 0:
        found.append(pos + 1)
        pos = data.find(needle, pos + 1)
    return found


def split(data: bytes, starts: list[int]) -> Framing:
    """Cut ``data`` into CSV blocks beginning at the header offsets ``starts``."""
    framing = Framing()
    _collect_messages(data[: starts[0]] if starts else data, framing)
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        header_line = data.count(b"\n", 0, start) + 1
        framing.blocks.append(_block(data[start:end], header_line, framing))
    return framing


def _block(chunk: bytes, header_line: int, framing: Framing) -> CsvBlock:
    if not chunk.endswith(b"\n"):
        chunk += b"\n"
    # Fast path: every line after the header is a CSV row.
    if _NOT_CSV_LINE.search(chunk, 0, len(chunk) - 1) is None:
        block = CsvBlock(chunk, header_line, None)
    else:
        lines = chunk.split(b"\n")[:-1]
        kept = [lines[0]]
        numbers = []
        open_row = False  # the last kept row has a quoted field still open
        for n, line in enumerate(lines[1:], start=header_line + 1):
            if open_row or line.startswith(b'"'):
                kept.append(line)  # an open row goes on: a field quoted across lines
                if not open_row:
                    numbers.append(n)
            else:
                _note(line, framing)
                continue
            if line.count(b'"') % 2:  # each line's own quotes: linear, however long the row
                open_row = not open_row
        block = CsvBlock(b"\n".join(kept) + b"\n", header_line, numbers)
    _drop_truncated_tail(block)
    return block


def _drop_truncated_tail(block: CsvBlock) -> None:
    """A file cut inside a quoted field leaves an odd number of quotes (a field quoted across
    lines is whole when the count is even)."""
    body = block.body
    if body.count(b'"') % 2 == 0:
        return
    last_start = body.rfind(b"\n", 0, len(body) - 1) + 1
    if last_start == 0:
        return  # only the header
    last = body[last_start:-1]
    if last.count(b'"') % 2:
        rows = body.count(b"\n", 0, last_start) - 1
        block.truncated_last = True
        block.truncated_line = block.line_of_row(rows)
        block.body = body[:last_start]
        if block.line_numbers is not None:
            block.line_numbers = block.line_numbers[:rows]


def _collect_messages(text: bytes, framing: Framing) -> None:
    for line in text.split(b"\n"):
        _note(line, framing)


def _note(line: bytes, framing: Framing) -> None:
    line = line.rstrip(b"\r")
    if PROFILER_LINE.match(line):
        if len(framing.messages) < MAX_MESSAGES:
            framing.messages.append(line.decode("utf-8", "replace"))
    elif line.strip():
        framing.other_lines += 1
