"""The plain-text output ``ncu`` prints without ``--csv`` (what people copy from a terminal).

It is turned into the same long frame as ``--page details`` and read by the same code,
so a pasted terminal log and a CSV export of one report give the same Profile.
The layout is fixed-width: a dashed rule under each table's header gives the column
spans; long values wrap onto lines whose name and unit cells are blank; rule
messages start with their type (OPT, INF, WRN, ERR) and wrap with a deeper indent.
"""

from __future__ import annotations

import re

import polars as pl

from warpscope.importers import _input
from warpscope.importers.ncu.framing import PROFILER_LINE
from warpscope.importers.ncu.long_page import PageResult, import_long

PROCESS = re.compile(r"^\[(\d+)\] (.*)@(.*?)\s*$")
LAUNCH = re.compile(
    r"^  (\S.*?) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context (\S+), Stream (\S+)"
    r"(?:, Device (\S+), CC ([\d.]+))?\s*$"
)
SECTION = re.compile(r"^    Section: (.*?)\s*$")
TABLE = re.compile(r"^    Table Name : (.*?)\s*$")
DASHES = re.compile(r"^ *-+( +-+)+ *$")
RULE = re.compile(r"^    (OPT|INF|WRN|ERR|WARNING|ERROR)\s{2,}(.*?)\s*$")
RULE_MORE = re.compile(r"^ {10}(\S.*?)\s*$")
SPEEDUP = re.compile(r"^Est\. (?:(Local|Global) )?Speedup: ([\d.]+)%\s*")

COLUMNS = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Body Item Label",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
    "_rule_row",
    "_line",
]


def looks_like_text(data: bytes) -> bool:
    head = data[: 1 << 16].decode("utf-8", "replace")
    return bool(re.search(r"^\[\d+\] .*@", head, re.M) and re.search(r"^    Section: ", head, re.M))


class _Parser:
    def __init__(self) -> None:
        self.rows: list[list[str | bool | int | None]] = []
        self.messages: list[str] = []
        self.other_lines = 0
        self.process = ("", "", "")
        self.launch: list[str] | None = None
        self.launch_id = -1
        self.section: str | None = None
        self.item: str | None = None
        self.spans: list[tuple[int, int]] | None = None
        self.table_state = 0  # 0 none, 1 header next, 2 rows, 3 closed
        self.in_rule: list[str | None] | None = None

    def feed(self, n: int, line: str) -> None:
        line = line.rstrip("\r\n")
        if m := PROCESS.match(line):
            self.process = (m[1], m[2], m[3])
            return
        if m := LAUNCH.match(line):
            self.launch_id += 1
            self.launch = [
                str(self.launch_id),
                *self.process,
                m[1],
                m[8],
                m[9],
                f"({m[5]}, {m[6]}, {m[7]})",
                f"({m[2]}, {m[3]}, {m[4]})",
                m[10],
                m[11],
            ]
            self.section = self.item = None
            self.table_state, self.in_rule = 0, None
            return
        if self.launch is None:
            self._other(line)
            return
        if m := SECTION.match(line):
            self.section, self.item, self.table_state, self.in_rule = m[1], None, 0, None
            return
        if m := TABLE.match(line):
            self.item, self.table_state, self.in_rule = m[1], 0, None
            return
        if DASHES.match(line):
            self._dashes(line)
            return
        if self.table_state == 1:
            header = [line[a:b].strip() for a, b in self.spans or []]
            self.table_state = 1 if header[:1] == ["Metric Name"] else 0
            return
        if self.table_state == 2:
            self._table_row(n, line)
            return
        if m := RULE.match(line):
            self._rule(n, m[1], m[2])
            return
        if self.in_rule is not None and (m := RULE_MORE.match(line)):
            self.in_rule[18] = f"{self.in_rule[18]} {m[1]}".strip()
            return
        self._other(line)

    def _other(self, line: str) -> None:
        if PROFILER_LINE.match(line.encode()):
            self.messages.append(line)
        elif line.strip():
            self.other_lines += 1

    def _dashes(self, line: str) -> None:
        spans = [(m.start(), m.end()) for m in re.finditer(r"-+", line)]
        self.in_rule = None
        if self.table_state == 0 and len(spans) == 3:
            self.spans, self.table_state = spans, 1  # header follows
        elif self.table_state == 1:
            self.table_state = 2  # rows follow
        elif self.table_state == 2:
            self.table_state = 0  # table closed
        # other dashed lines separate rule messages

    def _table_row(self, n: int, line: str) -> None:
        (a0, b0), (a1, b1), (a2, _) = self.spans  # type: ignore[misc]
        name, unit, value = line[a0:b0].strip(), line[a1:b1].strip(), line[a2:].strip()
        if not name and not unit and self.rows and self.rows[-1][21] is False:
            self.rows[-1][15] = f"{self.rows[-1][15]} {value}"  # wrapped value
            return
        self.rows.append(
            [
                *self.launch,
                self.section,
                self.item,
                name,
                unit,
                value,  # type: ignore[misc]
                None,
                None,
                None,
                None,
                None,
                False,
                n,
            ]
        )

    def _rule(self, n: int, kind: str, text: str) -> None:
        speedup_type = speedup = None
        if m := SPEEDUP.match(text):
            speedup_type = (m[1] or "global").lower()
            speedup, text = m[2], text[m.end() :]
        row = [
            *self.launch,
            self.section,
            self.item,
            None,
            None,
            None,  # type: ignore[misc]
            None,
            kind,
            text,
            speedup_type,
            speedup,
            True,
            n,
        ]
        self.rows.append(row)
        self.in_rule = row


def import_text(text: str, *, launch_offset: int = 0) -> tuple[PageResult, list[str], int, list[int]]:
    """Parse the text output; returns the page result, profiler messages, lines set aside,
    and the file line of each row (for rejections)."""
    parser = _Parser()
    for n, line in enumerate(_input.text_lines(text), start=1):
        parser.feed(n, line)
    frame = pl.DataFrame(
        parser.rows,
        schema={
            c: (pl.Boolean if c == "_rule_row" else pl.Int64 if c == "_line" else pl.String) for c in COLUMNS
        },
        orient="row",
    )
    lines = frame["_line"].to_list()
    frame = frame.drop("_line").with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))
    result = import_long(frame, summary=False, fmt="ncu-text", launch_offset=launch_offset)
    return result, parser.messages, parser.other_lines, lines
