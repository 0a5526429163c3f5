"""The emulator timeline of one launch: warp slots × cycles, a legend, the selected warp's stalls."""

from __future__ import annotations

import polars as pl
from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from warpscope.explore.timeline import STATES, Timeline
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import literal, n, short_name
from warpscope.tui.widgets.bars import bar_chart
from warpscope.tui.widgets.footer import FittingFooter
from warpscope.tui.widgets.timeline import CELL_STYLES, GLYPHS, TimelineView


class TimelineScreen(WarpscopeScreen):
    """Warps × cycles for one emulated launch; arrows move, +/- zoom, Escape goes back."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("f", "fit", "Fit"),
        Binding("g", "glossary", "Glossary"),
    ]

    def __init__(self, launch_id: int) -> None:
        super().__init__()
        ws = self.workspace
        self.launch_id = launch_id
        self.timeline = Timeline(ws.profile.timeline.filter(pl.col("launch_id") == launch_id))
        self.kernel = ws.profile.launches.filter(pl.col("launch_id") == launch_id)["kernel_short"][0]

    def compose(self) -> ComposeResult:
        yield Static(id="timeline-title")
        with Horizontal(id="timeline-panes"):
            yield TimelineView(self.timeline, id="timeline")
            yield Static(id="warp-detail")
        yield Static(_legend(), id="legend")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(TimelineView).focus()
        self._update(0, 0)

    @on(TimelineView.Moved)
    def _moved(self, event: TimelineView.Moved) -> None:
        self._update(event.row, event.cycle)

    def _update(self, row: int, cycle: int) -> None:
        view = self.query_one(TimelineView)
        title = Text("Timeline · ", style="bold")
        title.append(literal(short_name(self.kernel, 60), style="bold"))
        title.append(
            f" · launch {self.launch_id} · {n(self.timeline.cycles, 0)} cycles · "
            f"{len(self.timeline.rows)} warp slots · {n(view.cycles_per_cell, 0)} "
            + ("cycle" if view.cycles_per_cell == 1 else "cycles")
            + " per cell"
        )
        self.query_one("#timeline-title", Static).update(title)
        self.query_one("#warp-detail", Static).update(self._detail(row, cycle))

    def _detail(self, row: int, cycle: int) -> Group | Text:
        if not self.timeline.rows:
            return Text("No timeline rows.")
        r = self.timeline.rows[row]
        head = Text(
            f"SM {r.sm}, warp slot {r.slot} (scheduler {r.smsp})\ncycle {n(cycle, 0)}: ", style="bold"
        )
        found = self.timeline.warp_at(row, cycle)
        if found is None:
            head.append("no warp resident")
            return head
        block, warp, state = found
        head.append(f"block {block}, warp {warp}, {state}")
        shares = self.timeline.breakdown(block, warp)
        top = float(shares["cycles"].cast(pl.Float64).max() or 1.0)  # type: ignore[arg-type]
        chart = bar_chart(
            (
                (GLYPHS.get(s, ("?",))[0] + " " + s, c, f"{n(c, 0)} · {n(sh, 0)}%")
                for s, c, sh in shares.iter_rows()
            ),
            top,
            width=12,
        )
        return Group(
            head, Text(f"\nThis warp's {n(float(shares['cycles'].sum()), 0)} cycles:", style="bold"), chart
        )

    def action_fit(self) -> None:
        view = self.query_one(TimelineView)
        view.fit()
        view.action_move(0, 0)

    def action_glossary(self) -> None:
        found = self.timeline.warp_at(
            self.query_one(TimelineView).cursor_row, self.query_one(TimelineView).cursor_cycle
        )
        self.wapp.action_glossary(found[2] if found else "warp_cycles_per_issued_instruction")


def _legend() -> Text:
    out = Text()
    for state, (glyph, style) in zip(STATES, CELL_STYLES):
        out.append(glyph, style)
        out.append(f" {state}  ")
    return out
