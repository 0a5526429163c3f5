"""An nvprof output file as a sequence of tables.

nvprof prefixes its own lines with ``==<pid>==`` (``========`` for process-independent
ones); a line ending in ``:`` names the table that follows (``Metric result:``,
``API calls:``, ``Unified Memory profiling result:``). A CSV table is a quoted header,
an optional units row, then rows up to a blank or ``==`` line. Lines of the profiled
program, and plain-text footers such as ``Total CPU Page faults: 49``, are set aside.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field

from warpscope.importers import _input
from warpscope.importers.nvprof.values import is_units_row

PREFIX = re.compile(r"^==(\d+|=+)==\s?(.*)$")


@dataclass
class Table:
    title: str  # the "==PID== <title>:" line before it, without the colon
    header: list[str]
    header_line: int  # 1-based line numbers throughout
    units: list[str] | None = None
    rows: list[tuple[int, list[str]]] = field(default_factory=list)


@dataclass
class Framing:
    tables: list[Table] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    text_lines: list[tuple[int, str]] = field(default_factory=list)  # non-CSV lines after a title
    rejected: list[tuple[int, str]] = field(default_factory=list)
    other_lines: int = 0
    process_id: str | None = None
    command: str | None = None


def _fields(line: str) -> list[str]:
    return next(csv.reader([line], strict=True))


def split(text: str) -> Framing:
    out = Framing()
    title = ""
    table: Table | None = None
    for number, line in enumerate(_input.text_lines(text), start=1):
        prefixed = PREFIX.match(line)
        if prefixed or not line.strip():
            table = None
            if prefixed:
                _message(out, prefixed[1], prefixed[2].strip())
                said = prefixed[2].strip()
                if said.endswith(":"):
                    title = said[:-1].strip()
            continue
        if table is None and line.startswith('"') and title:
            try:
                header = _fields(line)
            except csv.Error:
                header = []
            if len(header) >= 3:
                table = Table(title, header, number)
                out.tables.append(table)
                continue
        if table is None:
            if title:
                out.text_lines.append((number, line))
            else:
                out.other_lines += 1
            continue
        _row(out, table, number, line)
    return out


def _message(out: Framing, pid: str, said: str) -> None:
    out.messages.append(said)
    if pid.isdigit() and out.process_id is None:
        out.process_id = pid
    match = re.match(r"NVPROF is profiling process \d+, command: (.*)$", said)
    if match:
        out.command = match[1]


def _row(out: Framing, table: Table, number: int, line: str) -> None:
    try:
        cells = _fields(line)
    except csv.Error as e:
        out.rejected.append((number, f"malformed CSV row ({e})"))
        return
    if table.units is None and not table.rows and not line.startswith('"') and is_units_row(cells):
        table.units = cells
        return
    if len(cells) == len(table.header):
        table.rows.append((number, cells))
    elif "," not in line:
        out.other_lines += 1  # a plain-text footer under the table
    else:
        out.rejected.append((number, f"{len(cells)} fields where the header has {len(table.header)}"))
