"""nvprof's default plain-text output (no ``--csv``), turned into the same tables as CSV.

The text tables are fixed-width with right-aligned columns: a cell ends where its header
label ends, except the last column (``Name``, ``Avg``), which runs to the end of the line.
Metric results come in ``Device "..."`` / ``Kernel: ...`` blocks; traces and summaries put
units in every cell (``337.33ms``, ``7.6949GB/s``) and tuples in one cell (``(69 64 1)``).
"""

from __future__ import annotations

import re

from warpscope.importers.nvprof.framing import Table

_LABEL = re.compile(r"\S+(?: \S+)*")
_DEVICE = re.compile(r'^\s*Device "(.*)"\s*$')
_KERNEL = re.compile(r"^\s*Kernel: (.*)$")
_RENAMES = {"Regs*": "Registers Per Thread", "SSMem*": "Static SMem", "DSMem*": "Dynamic SMem"}
_TUPLES = {"Grid Size": ("Grid X", "Grid Y", "Grid Z"), "Block Size": ("Block X", "Block Y", "Block Z")}


def tables(lines: list[tuple[int, str]], title: str = "Profiling result") -> tuple[list[Table], int]:
    """Tables found in text lines, and how many lines were set aside (footnotes, program output)."""
    out: list[Table] = []
    aside = 0
    layout: list[tuple[str, int, int]] | None = None
    table: Table | None = None
    device = kernel = None
    for number, line in lines:
        labels = [(m[0], m.start(), m.end()) for m in _LABEL.finditer(line)]
        names = {n for n, _, _ in labels}
        if (
            {"Invocations", "Metric Name", "Avg"} <= names
            or {"Start", "Duration", "Name"} <= names
            or {"Time(%)", "Calls", "Name"} <= names
        ):
            layout = labels
            header = _header(labels)
            table = Table(title, header, number)
            out.append(table)
            device = kernel = None
            continue
        if table is None or layout is None:
            aside += 1
            continue
        if m := _DEVICE.match(line):
            device = m[1]
            continue
        if m := _KERNEL.match(line):
            kernel = m[1].strip()
            continue
        cells = _cut(line, layout)
        if cells is None:
            aside += 1
            continue
        if "Invocations" in table.header[:3]:
            if kernel is None:
                aside += 1
                continue
            table.rows.append((number, [device or "", kernel, *cells]))
        else:
            table.rows.append((number, _expand(cells, [n for n, _, _ in layout])))
    return out, aside


def _header(labels: list[tuple[str, int, int]]) -> list[str]:
    names = [_RENAMES.get(n, n) for n, _, _ in labels]
    if "Invocations" in names:
        return ["Device", "Kernel", *names]
    out: list[str] = []
    for n in names:
        out.extend(_TUPLES.get(n, (n,)))
    return out


def _cut(line: str, layout: list[tuple[str, int, int]]) -> list[str] | None:
    """The cells of a data line, or None for a line that does not fit the layout (a footnote)."""
    if not line.strip() or len(line) < layout[-1][1]:
        return None
    cells, start = [], 0
    for i, (_, label_start, end) in enumerate(layout):
        if i == len(layout) - 1:
            cells.append(line[label_start if layout[-1][0] == "Name" else start :].strip())
        else:
            cells.append(line[start:end].strip())
            start = end
    if layout[-1][0] == "Name" and line[layout[-1][1] - 1 : layout[-1][1]].strip():
        return None  # the text runs through the column gap: not a table row
    return cells


def _expand(cells: list[str], labels: list[str]) -> list[str]:
    out: list[str] = []
    for label, cell in zip(labels, cells):
        if label in _TUPLES:
            parts = cell.strip("()").split() if cell.startswith("(") else []
            out.extend(parts if len(parts) == 3 else ["", "", ""])
        else:
            out.append("" if cell == "-" else cell)
    return out
