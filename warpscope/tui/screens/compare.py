"""Two profiles side by side, per kernel: values before and after, regressions first.

Arrows move, ``s`` sorts by the column under the cursor (again: reversed), ``/`` finds by
name, ``f`` shows only one kind of row (slower, faster, one side only, changed findings),
``Enter`` opens the kernel on both sides (``compare_pair.py``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, Label, Static

from warpscope.explore.compare import COMPARED, NOISE_PCT, VERDICT_ORDER
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import DASH, literal, n, one_line, short_name
from warpscope.tui.widgets.footer import FittingFooter

#: verdict -> (mark, style): the mark says it without colour
VERDICTS = {
    "slower": ("▲ slower", "bold red"),
    "faster": ("▼ faster", "green"),
    "same": ("= same", ""),
    "only in base": ("− gone", "yellow"),
    "only in new": ("+ new", "yellow"),
}
#: what ``f`` steps through: (label, rows kept)
SHOWN = (
    ("every row", pl.lit(True)),
    ("slower", pl.col("verdict") == "slower"),
    ("faster", pl.col("verdict") == "faster"),
    ("on one side only", pl.col("verdict").str.starts_with("only")),
    ("findings changed", (pl.col("findings_appeared").list.len() + pl.col("findings_gone").list.len()) > 0),
)
#: per column: what it sorts by (the "after" value for the side-by-side metrics)
SORT_KEYS = [
    pl.col("verdict").replace_strict(VERDICT_ORDER, return_dtype=pl.Int64),
    pl.col("kernel"),
    pl.col("duration_change_pct"),
    *(pl.coalesce(f"{metric}.new", f"{metric}.base") for metric, _, _ in COMPARED),
    pl.col("findings_appeared").list.len() - pl.col("findings_gone").list.len(),
]
HEADERS = ["Verdict", "Kernel", "Δ time", *(label for _, label, _ in COMPARED), "Findings"]


class CompareScreen(WarpscopeScreen):
    """Per-kernel deltas between the baseline and the profile (or the first two files)."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("s", "sort", "Sort"),
        Binding("slash", "find", "Find"),
        Binding("f", "next_filter", "Show"),
        Binding("y", "copy", "Copy"),
    ]

    def compose(self) -> ComposeResult:
        self.frame = pl.DataFrame()  # filled by ``_compare`` in a thread: it analyses both sides
        self.shown = self.frame
        self.sort_column: int | None = None
        self.descending = False
        self.kind = 0
        self.name_filter = ""
        title = Text("Compare", style="bold")
        title.append(" · analysing both profiles…")
        yield Static(title, id="compare-title")
        table: DataTable[Text] = DataTable(id="compare", cursor_type="cell", zebra_stripes=True)
        table.add_columns(*HEADERS)
        yield table
        with Horizontal(id="filter-bar"):
            yield Label("Find kernel:", id="filter-label")
            yield Input(id="filter", placeholder="part of a kernel name")
        yield Static("", id="status")
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#filter-bar").display = False
        self.query_one(DataTable).focus()
        self._compare()

    @work(thread=True, exclusive=True)
    def _compare(self) -> None:
        """The comparison analyses the baseline (and the profile, before its own analysis is
        done): off the UI's thread, so Escape and every other key answer meanwhile."""
        result = self.workspace.comparison()
        if result is not None:
            self.app.call_from_thread(self._show, *result)

    def _show(self, base: str, new: str, frame: pl.DataFrame) -> None:
        self.frame = frame
        title = Text("Compare · base: ", style="bold")
        title.append(literal(one_line(", ".join(Path(x).name for x in base.split(", ")), 60)))
        title.append(" → new: ", style="bold")
        title.append(literal(one_line(", ".join(Path(x).name for x in new.split(", ")), 60)))
        slower = int((frame["verdict"] == "slower").sum())
        title.append(
            f"\n{slower} slower by more than {n(NOISE_PCT)}%, "
            f"{int((frame['verdict'] == 'faster').sum())} faster, "
            f"{frame.height} rows"
        )
        self.query_one("#compare-title", Static).update(title)
        self._fill()

    # -- rows ----------------------------------------------------------------------
    def _fill(self) -> None:
        if not self.frame.columns:  # still comparing
            return
        rows = self.frame.filter(SHOWN[self.kind][1])
        if self.name_filter:
            rows = rows.filter(
                pl.col("kernel").str.to_lowercase().str.contains(self.name_filter.lower(), literal=True)
            )
        if self.sort_column is not None:
            rows = rows.sort(SORT_KEYS[self.sort_column], descending=self.descending, nulls_last=True)
        self.shown = rows
        table = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        cells = [_cells(row) for row in rows.iter_rows(named=True)]
        # the columns' widths given, as wide as their widest cell: measured by the table itself,
        # rows that arrive from the comparison's thread before its first layout left them at
        # their headers' widths now and then
        table.clear(columns=True)
        for i, header in enumerate(HEADERS):
            table.add_column(header, width=max([cell_len(header), *(row[i].cell_len for row in cells)]))
        for row_cells in cells:
            table.add_row(*row_cells)
        if rows.height:
            table.cursor_coordinate = cursor if cursor.row < rows.height else cursor._replace(row=0)
        parts = [f"{rows.height} of {self.frame.height} rows", f"showing {SHOWN[self.kind][0]}"]
        if self.sort_column is not None:
            parts.append(f"sorted by {HEADERS[self.sort_column]} {'▼' if self.descending else '▲'}")
        if self.name_filter:
            parts.append(f"name contains {self.name_filter!r}")
        self.query_one("#status", Static).update(literal(" · ".join(parts)))

    # -- actions -------------------------------------------------------------------
    def action_sort(self) -> None:
        column = self.query_one(DataTable).cursor_column
        self.descending = not self.descending if column == self.sort_column else column >= 2
        self.sort_column = column
        self._fill()

    def action_next_filter(self) -> None:
        self.kind = (self.kind + 1) % len(SHOWN)
        self._fill()

    def action_find(self) -> None:
        self.query_one("#filter-bar").display = True
        box = self.query_one("#filter", Input)
        box.value = self.name_filter
        box.focus()

    @on(Input.Changed, "#filter")
    def _find_changed(self, event: Input.Changed) -> None:
        self.name_filter = event.value
        self._fill()

    @on(Input.Submitted, "#filter")
    def _find_done(self) -> None:
        self.query_one(DataTable).focus()

    def action_back(self) -> None:
        bar = self.query_one("#filter-bar")
        if bar.display or self.name_filter:
            self.name_filter = ""
            bar.display = False
            self._fill()
            self.query_one(DataTable).focus()
        else:
            self.app.pop_screen()

    @on(DataTable.CellSelected)
    def _open(self, event: DataTable.CellSelected) -> None:
        if not 0 <= event.coordinate.row < self.shown.height:
            return
        from warpscope.tui.screens.compare_pair import PairScreen

        row = self.shown.row(event.coordinate.row, named=True)
        self.app.push_screen(PairScreen(self.workspace.compare_pair(row["base_launch"], row["new_launch"])))

    def action_copy(self) -> None:
        if not self.shown.columns:
            return
        flat = self.shown.with_columns(
            pl.col("findings_appeared").list.join("; "), pl.col("findings_gone").list.join("; ")
        )
        self.app.copy_to_clipboard(flat.write_csv(separator="\t"))
        self.notify("Comparison copied to the clipboard (OSC 52).", title="Copy")


def _cells(row: dict) -> list[Text]:
    mark, style = VERDICTS.get(row["verdict"], (row["verdict"], ""))
    change = row["duration_change_pct"]
    cells = [
        Text(mark, style=style),
        literal(short_name(row["kernel"], 40)),
        Text(DASH if change is None else f"{change:+.1f}%", style=style, justify="right"),
    ]
    for metric, _, higher_better in COMPARED:
        base, new = row[f"{metric}.base"], row[f"{metric}.new"]
        scale = 1e-3 if metric == "duration_ns" else 1.0
        text = f"{n(None if base is None else base * scale)} → {n(None if new is None else new * scale)}"
        worse = (
            base is not None
            and new is not None
            and (new < base if higher_better else new > base)
            and abs(new - base) > abs(base) * NOISE_PCT / 100
        )
        cells.append(Text(text + (" !" if worse else ""), style="bold" if worse else "", justify="right"))
    gained, lost = row["findings_appeared"] or [], row["findings_gone"] or []
    said = [f"+{one_line(f, 30)}" for f in gained] + [f"−{one_line(f, 30)}" for f in lost]
    cells.append(literal(one_line(", ".join(said), 48) if said else DASH))
    return cells
