"""A dataset's kernels over its runs: a sparkline per kernel, its change points, what moved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from warpscope.report.trend import Series, Trend, sparkline
from warpscope.report.trend import trend as follow
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import literal, one_line, p, short_name, t

#: columns the kernel name and the sparkline get at 80 columns; wider terminals give both more
NAME, SPARK = 28, 24


class TrendScreen(WarpscopeScreen):
    """Per kernel, its median duration over the dataset's runs; changed kernels first."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, dataset: Path) -> None:
        super().__init__()
        self.dataset = dataset
        self.rows: list[Series] = []
        self.result: Trend | None = None

    def compose(self) -> ComposeResult:
        title = Text("Trend", style="bold")
        title.append(" · ")
        title.append_text(literal(one_line(self.dataset.name, 40)))
        title.append(" · reading the runs…")
        yield Static(title, id="trend-title")
        table: DataTable[Text | str] = DataTable(id="trend-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="trend-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._load()

    @work(thread=True, exclusive=True)
    def _load(self) -> None:
        result = follow(self.dataset)
        self.app.call_from_thread(self._show, result)

    def _show(self, result: Trend) -> None:
        self.result = result
        self.rows = sorted(
            result.series,
            key=lambda s: (not s.changes, -abs(s.changes[-1].change_pct) if s.changes else 0.0, s.kernel),
        )
        changed = sum(1 for s in result.series if s.changes)
        title = Text("Trend", style="bold")
        title.append(" · ")
        title.append_text(literal(one_line(self.dataset.name, 40)))
        title.append(f" · {len(result.points)} runs, {len(result.series)} kernels, {changed} changed")
        self.query_one("#trend-title", Static).update(title)
        table = self.query_one(DataTable)
        extra = max(0, self.app.size.width - 80)
        name, spark = NAME + extra // 2, SPARK + extra // 4
        table.clear(columns=True)
        # widths given, not measured from the rows: they arrive from a worker, and a table measured
        # before its first layout kept its headers' widths
        spark_label = f"Duration, newest {spark} runs"
        for label, width in (("Kernel", name), (spark_label, max(spark, len(spark_label))), ("Last", 10),
                             ("Change", 7), ("At", 14)):  # fmt: skip
            table.add_column(label, width=width)
        for s in self.rows:
            last = next((v for v in reversed(s.values) if v is not None), None)
            change = s.changes[-1] if s.changes else None
            table.add_row(
                literal(short_name(s.kernel, name)),
                sparkline(s.values[-spark:]),
                Text(t(last), justify="right"),
                Text(_signed(change.change_pct) if change else "", justify="right"),
                literal(one_line(_name(result.points[change.index]), 14)) if change else "",
            )
        self._detail(0)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(event.cursor_row)

    def _detail(self, row: int) -> None:
        detail = self.query_one("#trend-detail", Static)
        if self.result is None or not 0 <= row < len(self.rows):
            detail.update("")
            return
        s = self.rows[row]
        text = literal(one_line(s.kernel, 400), "bold")
        if not s.changes:
            text.append("\nno change beyond the run-to-run noise")
        for c in s.changes:
            at = one_line(_name(self.result.points[c.index]), 40)
            text.append(f"\n{t(c.before)} → {t(c.after)} ({_signed(c.change_pct)}) at ")
            text.append_text(literal(at))
            moved = ", ".join(f"{m['metric']} {_signed(m['change_pct'])}" for m in c.moved)
            text.append(f"; moved with it: {moved}" if moved else "; no counter moved with it")
        detail.update(text)


def _name(point: dict[str, Any]) -> str:
    """A point as people name it: its commit where the run has one, else its run id."""
    commit = point["labels"].get("commit")
    return f"commit {commit}" if commit and point["key"] != commit else point["key"]


def _signed(pct: float) -> str:
    return ("+" if pct >= 0 else "") + p(pct)
