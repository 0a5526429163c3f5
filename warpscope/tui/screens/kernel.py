"""The kernel view: one kernel (a group of launches) in tabs, from overview to findings."""

from __future__ import annotations

import pyarrow as pa
from rich.console import RenderableType
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from warpscope.analysis.roofline import main_roofline, roofline
from warpscope.explore.kernel import KernelDetail
from warpscope.explore.source_view import SHORT_NAMES, Order, compact
from warpscope.report.roofline_points import KernelPoint
from warpscope.tui.screens import kernel_tabs
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import literal, short_name
from warpscope.tui.widgets.footer import FittingFooter
from warpscope.tui.widgets.grid import Grid
from warpscope.tui.widgets.occupancy_plot import OccupancyPlot
from warpscope.tui.widgets.roofline_plot import RooflinePlot

TABS = ("overview", "divergence", "occupancy", "stalls", "memory", "source", "findings")
#: the glossary entry each tab's `g` opens
TAB_METRIC = {
    "overview": "duration_ns",
    "divergence": "warp_execution_efficiency_pct",
    "occupancy": "achieved_occupancy_pct",
    "stalls": "warp_cycles_per_issued_instruction",
    "memory": "global_load_sectors_per_request",
    "source": "instructions_executed",
    "findings": None,
}

#: the tab each tab-specific key acts on
_ACTION_TAB = {"next_sweep": "occupancy", "source_order": "source", "jump_to_line": "findings"}

#: what the Source and Findings tabs show (and `y` copies) when there is nothing to list
NO_SOURCE = (
    "No per-line counters: they come from Nsight Compute's source page "
    "(ncu --page source --csv) or from the emulator."
)
NO_FINDINGS = "No findings for this kernel."


class KernelScreen(WarpscopeScreen):
    """Everything about one kernel; Escape goes back to the table."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        # one footer entry for the digits: "1–7 Tabs"
        *(
            Binding(
                str(i),
                f"tab('{tab}')",
                "Tabs" if i == 1 else tab.capitalize(),
                show=i == 1,
                key_display=f"1–{len(TABS)}" if i == 1 else None,
            )
            for i, tab in enumerate(TABS, 1)
        ),
        # Tab and Left/Right move between the tabs, not the focus (each tab focuses its own list
        # or table); in a table Left/Right keep moving across its columns
        Binding("tab", "step_tab(1)", "Next tab", show=False, priority=True),
        Binding("shift+tab", "step_tab(-1)", "Previous tab", show=False, priority=True),
        Binding("right", "arrow(1)", show=False, priority=True),
        Binding("left", "arrow(-1)", show=False, priority=True),
        # shown on their own tab only (check_action)
        Binding("v", "next_sweep", "Next graph"),
        Binding("o", "source_order", "Order"),
        Binding("j", "jump_to_line", "Jump to line"),
        Binding("t", "timeline", "Timeline"),
        Binding("g", "glossary", "Glossary"),
        Binding("y", "copy", "Copy"),
        Binding("e", "app.export", "Export"),
    ]

    def __init__(self, launch_ids: list[int], tab: str = "overview") -> None:
        super().__init__()
        self.launch_ids = launch_ids
        self.initial_tab = tab if tab in TABS else "overview"
        self.detail: KernelDetail = self.workspace.detail(launch_ids)
        self.source_order: Order = "source"
        self._source_note = ""  # what the last jump from a finding found

    def compose(self) -> ComposeResult:
        d = self.detail
        yield Static(self._title(self.app.size.width), id="kernel-title")
        with TabbedContent(id="tabs", initial=self.initial_tab):
            with TabPane("1 Overview", id="overview"), VerticalScroll(), Horizontal(id="overview-panes"):
                yield Static(kernel_tabs.overview(d), id="overview-text")
                main = main_roofline(d.kernel.metrics)
                point = roofline(d.kernel.metrics)
                if main is not None:  # its main pipe under the L1, L2 and DRAM roofs
                    yield RooflinePlot([], levels=main, id="overview-roofline")
                elif point is not None:  # the DRAM roofline (the emulator's, nvprof's with roofs)
                    here = KernelPoint(
                        1, d.kernel.kernel_short, d.kernel.launch_ids, d.time_share_pct, point, "◆"
                    )
                    yield RooflinePlot([here], id="overview-roofline")
            yield _scroll_pane("divergence", 2, kernel_tabs.divergence(d))
            with TabPane("3 Occupancy", id="occupancy"), VerticalScroll(), Horizontal(id="occupancy-panes"):
                yield Static(kernel_tabs.occupancy(d), id="occupancy-text")
                yield OccupancyPlot(d, id="occupancy-plot")
            yield _scroll_pane("stalls", 4, kernel_tabs.stalls(d))
            yield _scroll_pane("memory", 5, kernel_tabs.memory(d))
            with TabPane("6 Source", id="source"):
                if d.listing.is_empty():
                    yield Static(Text(NO_SOURCE), classes="empty")
                else:
                    yield Static(self._source_caption(), id="source-caption")
                    yield Grid(
                        self._source_table(),
                        id="source-grid",
                        # the whole row lit: after `j`, the line is found at a glance
                        cursor_type="row",
                        right_aligned=frozenset(SHORT_NAMES.values()),
                        fixed_columns=3,
                        max_column_content_width=_code_width(self.app.size.width),
                    )
            with TabPane("7 Findings", id="findings"):
                yield self._findings()
        yield FittingFooter()

    def _findings(self) -> OptionList | Static:
        k = self.detail.kernel
        if not k.findings:
            return Static(Text(NO_FINDINGS), classes="empty")
        options = [
            Option(
                kernel_tabs.finding(
                    f,
                    len(k.launch_ids),
                    k.covered.get(f["rule_id"], []) if f["origin"] == "warpscope" else [],
                ),
                id=str(i),
            )
            for i, f in enumerate(k.findings)
        ]
        return OptionList(*options, id="finding-list")

    # -- actions ---------------------------------------------------------------------
    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_arrow(self, step: int) -> None:
        focused = self.focused
        if isinstance(focused, DataTable):
            (focused.action_cursor_right if step > 0 else focused.action_cursor_left)()
        else:
            self.action_step_tab(step)

    def action_step_tab(self, step: int) -> None:
        """The next (1) or previous (-1) tab, wrapping round."""
        tabs = self.query_one(TabbedContent)
        tabs.active = TABS[(TABS.index(tabs.active) + step) % len(TABS)]

    @on(TabbedContent.TabActivated)
    def _focus_tab(self) -> None:
        self.refresh_bindings()  # v, o and j come and go with their tabs
        pane = self.query_one(TabbedContent).active_pane
        if pane is not None:
            focusable = [w for w in pane.query("*") if w.can_focus]
            if focusable:
                focusable[0].focus()

    def _title(self, width: int) -> Text:
        """Two rows at most: the launches and the short name, then the full name (each shortened
        in the middle to the terminal's width; the Overview tab has the full name whole)."""
        k = self.detail.kernel
        room = max(width - 2, 20)  # the title's padding
        count = len(k.launch_ids)
        head = f"{count} launch{'es' if count != 1 else ''} · "
        title = Text(head, style="bold")
        title.append(literal(short_name(k.kernel_short or k.kernel, room - len(head)), style="bold"))
        if k.kernel and k.kernel != k.kernel_short:
            title.append("\n")
            title.append(literal(short_name(k.kernel, room)))
        return title

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#kernel-title", Static).update(self._title(event.size.width))
        for grid in self.query("#source-grid").results(Grid):
            grid.max_column_content_width = _code_width(event.size.width)
            grid.show(self._source_table())

    # -- the Source tab ------------------------------------------------------------------
    def _source_table(self) -> pa.Table:
        return self.detail.listing.table(self.source_order).to_arrow()

    def _source_caption(self) -> Text:
        order = "source order" if self.source_order == "source" else "hottest first"
        other = "hottest first" if self.source_order == "source" else "source order"
        text = Text()
        text.append(f"{order} · o: {other} · j on a finding: its line", style="bold")
        if self._source_note:
            text.append("\n")
            text.append(literal(self._source_note))
        text.append("\n")
        text.append(literal(self.detail.listing.legend(), style="italic"))
        return text

    def _show_source(self) -> None:
        self.query_one("#source-grid", Grid).show(self._source_table())
        self.query_one("#source-caption", Static).update(self._source_caption())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``v``, ``o`` and ``j`` act on one tab each: only there are they on (and in the footer)."""
        tab = _ACTION_TAB.get(action)
        tabs = self.query(TabbedContent)  # none yet while the screen is composed
        return tab is None or (bool(tabs) and tabs.first().active == tab)

    def action_source_order(self) -> None:
        """Source order (each line, its instructions under it) or the hottest lines first."""
        if self.detail.listing.is_empty() or self.query_one(TabbedContent).active != "source":
            return
        self.source_order = "hottest" if self.source_order == "source" else "source"
        self._source_note = ""
        self._show_source()
        self.query_one("#source-grid", Grid).move_cursor(row=0)

    def action_jump_to_line(self) -> None:
        """From the highlighted finding to the line its counter points at, in source order."""
        k, listing = self.detail.kernel, self.detail.listing
        if self.query_one(TabbedContent).active != "findings" or not k.findings:
            return
        finding = k.findings[self.query_one("#finding-list", OptionList).highlighted or 0]
        found = listing.worst(finding.get("category"))
        if found is None:
            self.notify("This kernel has no per-line counters to point at.", title="Jump to line")
            return
        order, counter = found
        row = listing.rows.row(order, named=True)
        where = f"line {row['line']}" if row["kind"] == "line" else f"instruction {row['address']}"
        fewest = "the fewest" if counter == "Avg. Threads Executed" else "the most"
        what = f"{where}: {counter} {compact(row[counter])}, {fewest} in this kernel"
        if listing.located(finding.get("category"), counter):
            self._source_note = f"{what} (finding: {finding['rule_id']})"
        else:  # nothing per line says where this finding is: the hottest line, as such
            self._source_note = f"{what}; no per-line counter locates {finding['rule_id']}: the hottest line"
        self.source_order = "source"
        self.query_one(TabbedContent).active = "source"
        self._show_source()
        grid = self.query_one("#source-grid", Grid)
        grid.move_cursor(row=order, column=0)
        grid.focus()
        # the tab was hidden until now: once the grid has its size, the row in the middle
        self.call_after_refresh(_centre_row, grid, order)

    def action_next_sweep(self) -> None:
        self.query_one(OccupancyPlot).cycle()

    def action_timeline(self) -> None:
        if not self.workspace.has_timeline(self.launch_ids):
            self.notify(
                "Only emulated launches have a timeline (warpscope emulate, warpscope demo).",
                title="Timeline",
            )
            return
        from warpscope.tui.screens.timeline import TimelineScreen

        self.app.push_screen(TimelineScreen(self.launch_ids[0]))

    def action_glossary(self) -> None:
        tab = self.query_one(TabbedContent).active
        entry = TAB_METRIC.get(tab)
        if tab == "stalls" and not self.detail.stall_shares.is_empty():
            entry = self.detail.stall_shares["reason"][0]
        self.wapp.action_glossary(entry)

    def action_copy(self) -> None:
        tab = self.query_one(TabbedContent).active
        k = self.detail.kernel
        listing = self.detail.listing
        if tab == "findings" and k.findings:
            index = self.query_one("#finding-list", OptionList).highlighted or 0
            text = kernel_tabs.finding_text(k.findings[index])
        elif tab == "findings":
            text = NO_FINDINGS + "\n"
        elif tab == "source" and not listing.is_empty():
            text = listing.table(self.source_order).write_csv(separator="\t")
        elif tab == "source":
            text = NO_SOURCE + "\n"
        else:
            text = _plain(getattr(kernel_tabs, tab)(self.detail))
        self.app.copy_to_clipboard(text)
        self.notify(f"{tab.capitalize()} copied to the clipboard (OSC 52).", title="Copy")


def _centre_row(grid: Grid, row: int) -> None:
    """Scroll ``grid`` so that ``row`` is in the middle of its view (or as near as it goes)."""
    grid.scroll_to(y=max(0, row - grid.scrollable_content_region.height // 2), animate=False)


def _code_width(columns: int) -> int:
    """The code column's width: what line, address and two counters leave (at 80 columns, 40)."""
    return max(24, min(100, columns - 40))


def _scroll_pane(tab: str, number: int, body: RenderableType) -> TabPane:
    return TabPane(f"{number} {tab.capitalize()}", VerticalScroll(Static(body)), id=tab)


def _plain(renderable: RenderableType) -> str:
    import io

    from rich.console import Console

    sink = io.StringIO()
    Console(file=sink, width=120, color_system=None).print(renderable)
    return sink.getvalue()
