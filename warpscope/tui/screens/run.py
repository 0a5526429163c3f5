"""The whole run: its repeated step and time by family of work, the findings about the whole
program (launch overhead, host-device copies, a kernel that holds most of the time), and the
copies themselves — what the report's "The run" and "Whole run" sections say."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from warpscope.analysis.text import count, size
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.screens.fix_first import SEVERITY_STYLE
from warpscope.tui.text import literal, n, p, t
from warpscope.tui.widgets.footer import FittingFooter


class RunScreen(WarpscopeScreen):
    """One screen for the program as a whole; Escape goes back."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        records, findings, copies = self.workspace.run()
        yield Static(Text("Whole run", style="bold"), id="run-title")
        with VerticalScroll(id="run-body"):
            for r in records:
                yield Static(_step_text(r, len(records) > 1), classes="run-step")
                table: DataTable[Text | str] = DataTable(classes="run-families", cursor_type="row")
                table.add_columns("Family", "Launches", "Time", "Share")
                for f in r["step"]["families"]:
                    table.add_row(
                        f["family"],
                        Text(n(f["launches"], 1), justify="right"),
                        Text(t(f["time_ns"]), justify="right"),
                        Text(p(f["share_pct"]), justify="right"),
                    )
                yield table
            if not copies.is_empty():
                yield Static(_copies_text(copies, records), classes="run-copies")
            if findings.is_empty():
                yield Static("No findings about the whole program.", classes="run-finding")
            for row in findings.iter_rows(named=True):
                yield Static(_finding_text(row), classes="run-finding")
        yield FittingFooter()


def _step_text(r: dict, several: bool) -> Text:
    steps, step = r["steps"], r["step"]
    out = Text()
    if several:
        out.append(literal(r["source"]))
        out.append(": ")
    if steps is None:
        out.append(f"{count(r['launches'], 'launch')}, {t(r['kernel_ns'])} of kernel time; no repeated step.")
    else:
        out.append(
            f"{count(r['launches'], 'launch')}: a step of {count(steps['launches_per_step'], 'launch')} repeated "
            f"{steps['count']} times"
            + (
                f" after {count(steps['warmup_launches'], 'launch')} of warm-up ({t(steps['warmup_ns'])})"
                if steps["warmup_launches"]
                else ""
            )
            + f". One step: {t(step['kernel_ns'])} of kernel time, by family of work:"
        )
    return out


def _copies_text(copies, records: list[dict]) -> Text:
    kernel = sum(r["kernel_ns"] for r in records)
    out = Text("Host-device copies: ", style="bold")
    parts = [
        f"{row['kind']} {row['copies']:,} ({size(row['bytes'] or 0)}, {t(row['duration_ns'])})"
        for row in copies.iter_rows(named=True)
    ]
    out.append("; ".join(parts))
    out.append(f" — against {t(kernel)} of kernel time.")
    return out


def _finding_text(row: dict) -> Text:
    out = Text()
    out.append(row["severity"], style=SEVERITY_STYLE.get(row["severity"], ""))
    out.append(" · ")
    out.append(literal(row["title"] or row["rule_id"] or "", "bold"))
    out.append("\n")
    out.append(literal(row["message"] or ""))
    if row["fix"]:
        out.append("\nFix: ", style="bold")
        out.append(literal(row["fix"]))
    return out
