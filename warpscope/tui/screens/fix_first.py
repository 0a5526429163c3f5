"""Fix first: the program's (kernel, problem) pairs ranked by the time their fix would save."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from warpscope.analysis.calibration import cell as calibration_cell
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import literal, one_line, p, short_name, t
from warpscope.tui.widgets.footer import FittingFooter

#: severity -> mark: the word says it without colour (NO_COLOR)
SEVERITY_STYLE = {"high": "bold red", "medium": "yellow", "low": "", "info": "dim"}


class FixFirstScreen(WarpscopeScreen):
    """Every (kernel, problem) pair with an estimated saving, the largest first; Enter opens
    the kernel on its Findings tab."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("enter", "open", "Open kernel"),
        Binding("y", "copy", "Copy"),
    ]

    def compose(self) -> ComposeResult:
        self.entries: list[dict[str, Any]] = []
        yield Static(Text("Fix first", style="bold"), id="fix-first-title")
        table: DataTable[Text | str] = DataTable(id="fix-first", cursor_type="row", zebra_stripes=True)
        table.add_columns(
            "#",
            "Saves",
            "Of program",
            "Kernel",
            "Problem",
            "Severity",
            "Confidence",
            "Launches",
            "Kernel time",
            "Calibrated",
        )
        yield table
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        if self.workspace.analysed:
            self._fill()
        else:  # the rules still run in their thread: say how far, fill in when they are done
            self._waiting()
            self._poll = self.set_interval(0.2, self._waiting)

    def _waiting(self) -> None:
        if self.workspace.analysed:
            self._poll.stop()
            self._fill()
            return
        done, total = self.workspace.analysis_progress
        title = Text("Fix first", style="bold")
        title.append(
            f" · the findings are being analysed: {done:,} of {total:,} launches. The list fills in "
            "when they are done; Escape goes back meanwhile."
        )
        self.query_one("#fix-first-title", Static).update(title)

    def _fill(self) -> None:
        self.entries = self.workspace.opportunities()
        saved = sum(e["est_saved_ns"] or 0.0 for e in self.entries)
        kernel_time = float(self.workspace.profile.launches["duration_ns"].sum() or 0.0)
        share = 100 * saved / kernel_time if kernel_time else None
        files = {e["source_file"] for e in self.entries}
        title = Text("Fix first", style="bold")
        title.append(
            f" · {len(self.entries)} (kernel, problem) pairs; together they may save {t(saved)}"
            f" ({p(share)} of the kernel time). Enter opens the kernel's findings."
            if self.entries
            else " · no finding with an estimated saving."
        )
        self.query_one("#fix-first-title", Static).update(title)
        table = self.query_one(DataTable)
        for i, e in enumerate(self.entries, 1):
            table.add_row(*_cells(i, e, with_file=len(files) > 1), key=str(i - 1))

    def _entry(self) -> dict[str, Any] | None:
        table = self.query_one(DataTable)
        if not self.entries or table.cursor_row is None:
            return None
        return self.entries[min(table.cursor_row, len(self.entries) - 1)]

    def action_open(self) -> None:
        entry = self._entry()
        if entry is None:
            return
        from warpscope.tui.screens.kernel import KernelScreen

        ids = self.workspace.launches_of_kernel(entry["kernel_short"], entry["source_file"])
        if ids:
            self.app.push_screen(KernelScreen(ids, tab="findings"))

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_open()

    def action_copy(self) -> None:
        entry = self._entry()
        if entry is None:
            return
        self.app.copy_to_clipboard(f"{entry['kernel_short']}\t{entry['rule']}\t{entry['fix']}")
        self.notify("Entry and its fix copied to the clipboard (OSC 52).", title="Copy")


def _cells(i: int, e: dict[str, Any], *, with_file: bool) -> list[Text | str]:
    kernel = literal(short_name(e["kernel_short"], 60))
    if e["library"]:
        kernel.append(f" ({e['library']})", style="dim")
    if with_file:  # an H100 export and its emulation: the same kernel, two programs
        kernel.append(f" · {one_line(Path(e['source_file'] or '').name, 40)}", style="dim")
    return [
        str(i),
        Text(t(e["est_saved_ns"]), justify="right"),
        Text(p(e["program_share_pct"]), justify="right"),
        kernel,
        Text(e["rule"]),
        Text(e["severity"], style=SEVERITY_STYLE.get(e["severity"], "")),
        Text(e["confidence"] or "–"),
        Text(str(e["launches"]), justify="right"),
        Text(t(e["time_ns"]), justify="right"),
        Text(calibration_cell(e.get("calibration")), justify="right"),
    ]
