"""The kernel table: one row per kernel (expandable to launches), sortable and filterable."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

import polars as pl
import pyarrow as pa
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, ProgressBar, Static

from warpscope.explore.table import COLUMNS
from warpscope.explore.view import TEXT_WIDTH, TableView
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import literal, one_line, tsv
from warpscope.tui.widgets.footer import FittingFooter
from warpscope.tui.widgets.grid import Grid, content_widths

#: the name column's least width (48 from 107 columns up): the other columns scroll sideways
MIN_NAME = 32
#: percent of the terminal's width the name column gets at least (the rest scrolls sideways)
NAME_SHARE = 45


class KernelsScreen(WarpscopeScreen):
    """The first screen: every kernel of the profile, the most time first."""

    # the footer shows them most used first: a narrow terminal cuts the end (all are in `?`)
    BINDINGS = [
        Binding("enter", "open_kernel", "Open", show=False),  # the table's own Enter says it
        Binding("question_mark", "app.help", "Help"),  # early: every other key is listed there
        Binding("s", "sort", "Sort"),
        Binding("slash", "filter_name", "Find"),
        Binding("f", "filter_expression", "Filter"),
        Binding("space", "expand", "Launches"),
        Binding("l", "toggle_mode", "All"),
        Binding("percent_sign", "pool_time", "Time% pooled", show=False),
        Binding("x", "fix_first", "Fix first"),
        Binding("c", "compare", "Compare"),
        Binding("t", "timeline", "Timeline"),
        Binding("T", "trend", "Trend"),
        Binding("w", "whole_run", "Run"),
        Binding("r", "roofline", "Roofline"),
        Binding("g", "glossary", "Glossary"),
        Binding("e", "export", "Export"),
        Binding("y", "copy", "Copy"),
        Binding("escape", "clear_filters", "Clear", show=False),
    ]

    def compose(self) -> ComposeResult:
        ws = self.workspace
        display, self._keys = ws.view.rows()
        self._titled = ws.profile
        self._launch_widths: tuple[object, list[int]] = (None, [])
        yield Static(self._title(), id="title")
        yield Grid(display.to_arrow(), id="kernels", cursor_type="cell", fixed_columns=1)
        yield Static("", id="full-name")
        with Horizontal(id="filter-bar"):
            yield Label("", id="filter-label")
            yield Input(id="filter")
        yield Static("", id="status")
        yield ProgressBar(id="progress", show_eta=False)
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#filter-bar").display = False
        self.query_one("#progress").display = False
        self.query_one(Grid).focus()
        self._mode = "name"
        self._fit_names(self.app.size.width)
        self._show_status()
        self._ticking = self.set_interval(0.5, self._analysis_tick)

    def _analysis_tick(self) -> None:
        """The status line follows the rules' progress until they are done."""
        if self.workspace.analysed:
            self._ticking.stop()
        self._show_status()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_names(event.size.width)

    def _fit_names(self, width: int) -> None:
        """Give the name column the width the other columns leave, and at least ``MIN_NAME``
        or ``NAME_SHARE`` of the terminal (72 columns at 160), names shortened where they differ
        least (``explore/names.py``); what does not fit scrolls sideways, the name column frozen."""
        ws = self.workspace
        display = ws.view.rows()[0]
        widths = content_widths(display.to_arrow())
        others = sum(max(w, len(c)) + 2 for w, c in zip(widths[1:], display.columns[1:]))
        least = max(MIN_NAME, width * NAME_SHARE // 100)
        name = max(least, width - others - 4)  # its own padding, the scroll bar
        grid = self.query_one(Grid)
        grid.max_column_content_width = max(name, TEXT_WIDTH)
        if ws.view.name_width != name:
            ws.view.name_width = name
            self.refresh_rows()

    @on(Grid.CellHighlighted)
    def _show_full_name(self) -> None:
        """The full name of the row under the cursor: the table's may be shortened."""
        current = self._current()
        text = ""
        if current is not None:
            launches = self.workspace.table.launches
            row = launches.filter(pl.col("launch_id") == current[1]).select("kernel", "source_file")
            if row.height:
                text = row["kernel"][0] or ""
        self.query_one("#full-name", Static).update(literal(one_line(text, 1000)))

    # -- refreshing --------------------------------------------------------------
    def refresh_rows(self) -> None:
        """Rebuild the rows from the workspace's view (after sort, filter, new data)."""
        ws = self.workspace
        display, self._keys = ws.view.rows()
        data = display.to_arrow()
        self.query_one(Grid).show(data, self._widths(data))
        if ws.profile is not self._titled:
            self._titled = ws.profile
            self.query_one("#title", Static).update(self._title())
        self._show_status()
        self._show_full_name()

    def _widths(self, data: pa.Table) -> list[int] | None:
        """Column widths of the all-launches view, measured once per table over every launch
        (a sorted or filtered part never needs more); small views are measured each time."""
        ws = self.workspace
        if ws.view.mode != "launches" or data.num_rows < 2_000:
            return None
        if self._launch_widths[0] is not ws.table:
            unfiltered = not (ws.view.name_filter or ws.view.expression)
            everything = data if unfiltered else TableView(ws.table, mode="launches").rows()[0].to_arrow()
            self._launch_widths = (ws.table, content_widths(everything))
        return self._launch_widths[1]

    def _title(self) -> Text:
        ws = self.workspace
        paths = ws.profile.sources["path"].unique(maintain_order=True).to_list()
        names = ", ".join(Path(p).name for p in paths[:20]) if paths else "no files"
        if len(paths) > 20:
            names += f" and {len(paths) - 20} more"
        devices = (
            ws.profile.launches["device_name"].drop_nulls().unique(maintain_order=True).head(5).to_list()
        )
        title = Text("warpscope ", style="bold")
        title.append(literal(one_line(names, 120)))
        if devices:
            title.append("  ·  ")
            title.append(literal(one_line(", ".join(devices), 60)))
        return title

    def _show_status(self, extra: str = "") -> None:
        ws = self.workspace
        view = ws.view
        label = next(c.label for c in COLUMNS if c.id == view.sort)
        shown = int(self._keys["is_kernel"].sum()) if view.mode == "kernels" else self._keys.height
        total = view.total_kernels() if view.mode == "kernels" else ws.table.launches.height
        unit = "kernels" if view.mode == "kernels" else "launches"
        parts = [f"{shown} of {total} {unit}", f"sorted by {label} {'▼' if view.descending else '▲'}"]
        if view.pooled:
            parts.append("Time% of all files")
        elif ws.profile.sources.height > 1:
            parts.append("Time% per file")
        if view.name_filter:
            parts.append(f"name contains {view.name_filter!r}")
        if view.expression:
            parts.append(f"filter: {view.expression}")
        if not ws.analysed:
            done, total = ws.analysis_progress
            parts.append(
                f"findings: analysing {done:,} of {total:,} launches…" if total else "findings: analysing…"
            )
        if extra:
            parts.append(extra)
        self.query_one("#status", Static).update(literal(" · ".join(parts)))

    # -- the row under the cursor -------------------------------------------------
    def _current(self) -> tuple[int, int, bool] | None:
        grid = self.query_one(Grid)
        if self._keys.is_empty():
            return None
        group, launch_id, is_kernel = self._keys.row(min(grid.cursor_row, self._keys.height - 1))
        return int(group), int(launch_id), bool(is_kernel)

    def _launch_ids(self) -> list[int] | None:
        current = self._current()
        if current is None:
            return None
        group, launch_id, is_kernel = current
        return self.workspace.launches_of(group) if is_kernel else [launch_id]

    # -- actions -------------------------------------------------------------------
    def action_open_kernel(self) -> None:
        ids = self._launch_ids()
        if ids:
            from warpscope.tui.screens.kernel import KernelScreen

            self.app.push_screen(KernelScreen(ids))

    @on(Grid.CellSelected)
    def _selected(self) -> None:
        self.action_open_kernel()

    def action_sort(self, column: int | None = None) -> None:
        grid = self.query_one(Grid)
        index = grid.cursor_column if column is None else column
        self.workspace.view.sort_by(COLUMNS[index].id)
        self.refresh_rows()

    @on(Grid.HeaderSelected)
    def _header(self, event: Grid.HeaderSelected) -> None:
        self.action_sort(event.column_index)

    def action_expand(self) -> None:
        current = self._current()
        ws = self.workspace
        if current is None or ws.view.mode != "kernels":
            return
        ws.view.toggle(current[0])
        self.refresh_rows()

    def action_toggle_mode(self) -> None:
        view = self.workspace.view
        view.mode = "launches" if view.mode == "kernels" else "kernels"
        self.refresh_rows()

    def action_pool_time(self) -> None:
        """Time% of each file and device (a baseline and its emulation never share a 100%), or
        of everything open."""
        view = self.workspace.view
        view.pooled = not view.pooled
        self.refresh_rows()

    def action_filter_name(self) -> None:
        self._open_filter("name", "Find kernel:", self.workspace.view.name_filter, "part of a kernel name")

    def action_filter_expression(self) -> None:
        self._open_filter(
            "expression",
            "Filter:",
            self.workspace.view.expression,
            "e.g. achieved_occupancy_pct < 50 and kernel ~ reduce",
        )

    def _open_filter(self, mode: str, label: str, value: str, placeholder: str) -> None:
        self._mode = mode
        self.query_one("#filter-bar").display = True
        self.query_one("#filter-label", Label).update(label)
        box = self.query_one("#filter", Input)
        box.placeholder = placeholder
        box.value = value
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._mode == "name":
            self.workspace.view.name_filter = event.value
            self.refresh_rows()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        if self._mode == "expression":
            try:
                self.workspace.view.set_expression(event.value)
            except ValueError as e:
                self._show_status()
                self.query_one("#status", Static).update(literal(f"filter not applied: {e}", style="bold"))
                self.notify(one_line(str(e)), title="Filter", severity="error")
                return
            self.refresh_rows()
        self.query_one("#filter-bar").display = False
        self.query_one(Grid).focus()

    def action_clear_filters(self) -> None:
        view = self.workspace.view
        bar = self.query_one("#filter-bar")
        if bar.display:
            bar.display = False
            self.query_one(Grid).focus()
            return
        if view.name_filter or view.expression:
            view.name_filter, view.expression = "", ""
            self.refresh_rows()

    def action_fix_first(self) -> None:
        from warpscope.tui.screens.fix_first import FixFirstScreen

        self.app.push_screen(FixFirstScreen())

    def action_whole_run(self) -> None:
        from warpscope.tui.screens.run import RunScreen

        self.app.push_screen(RunScreen())

    def action_roofline(self) -> None:
        from warpscope.tui.screens.roofline import RooflineScreen

        self.app.push_screen(RooflineScreen())

    def action_compare(self) -> None:
        if not self.workspace.can_compare():
            self.notify("Open two files, or one with --baseline FILE, to compare.", title="Compare")
            return
        from warpscope.tui.screens.compare import CompareScreen

        self.app.push_screen(CompareScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Trend is offered (in the footer too) only where a dataset is open."""
        if action == "trend":
            return self.workspace.dataset is not None
        return True

    def action_trend(self) -> None:
        if self.workspace.dataset is None:
            self.notify(
                "Open a dataset (warpscope open DATASET, made with warpscope import --into) to see "
                "its kernels over runs.",
                title="Trend",
            )
            return
        from warpscope.tui.screens.trend import TrendScreen

        self.app.push_screen(TrendScreen(self.workspace.dataset))

    def action_timeline(self) -> None:
        ids = self._launch_ids()
        if not ids:
            return
        if not self.workspace.has_timeline(ids):
            self.notify(
                "Only emulated launches have a timeline (warpscope emulate, warpscope demo).",
                title="Timeline",
            )
            return
        from warpscope.tui.screens.timeline import TimelineScreen

        self.app.push_screen(TimelineScreen(ids[0]))

    def action_glossary(self) -> None:
        column = COLUMNS[self.query_one(Grid).cursor_column]
        self.wapp.action_glossary(column.metric)

    def action_export(self) -> None:
        self.wapp.action_export()

    def action_copy(self) -> None:
        grid = self.query_one(Grid)
        if grid.row_count == 0:
            return
        row = list(grid.get_row_at(grid.cursor_row))
        current = self._current()
        if current is not None:  # the full name, not the column's shortened one
            launches = self.workspace.table.launches
            row[0] = launches.filter(pl.col("launch_id") == current[1])["kernel"][0]
        self.app.copy_to_clipboard(tsv([c.label for c in COLUMNS], [row]))
        self.notify("Row copied to the clipboard (OSC 52).", title="Copy")

    # -- background work ------------------------------------------------------------
    def analyse(self) -> None:
        """Run every rule in a daemon thread: quitting never waits for it (100k launches take
        most of a minute), and the table gains its findings column when it is done."""
        app, workspace = self.wapp, self.workspace

        def run() -> None:
            _yield_to_the_ui()
            switch = sys.getswitchinterval()
            # the UI's thread waits for the GIL after each Polars call or write: a whole switch
            # interval while the rules hold it (5 ms by default; a screen of many such calls took
            # seconds to open). Shorter while the rules run
            sys.setswitchinterval(RULES_SWITCH_INTERVAL)
            try:
                workspace.analyse(app.give_way)
            finally:
                sys.setswitchinterval(switch)
            if app.is_running and workspace is app.workspace:
                app.call_from_thread(self.refresh_rows)

        app.analysis = threading.Thread(target=run, name="warpscope-analyse", daemon=True)
        app.analysis.start()

    def show_progress(self, done: int, total: int, what: str) -> None:
        bar = self.query_one("#progress", ProgressBar)
        bar.display = done < total
        bar.update(total=total, progress=done)
        self._show_status(f"{what} {done}/{total}" if done < total else "")


#: seconds a thread may hold the GIL while another waits, while the analysis thread runs
RULES_SWITCH_INTERVAL = 0.0005


def _yield_to_the_ui() -> None:
    """Lower this (the analysis) thread's scheduling priority: when the machine is busy the OS
    runs the UI's thread first, so a key is answered while the rules run."""
    # not Linux (a thread's own nice value is Linux's), or not allowed: the default priority
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
