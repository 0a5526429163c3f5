"""One kernel on both sides of a comparison: its configuration, every metric before and
after, and the findings that appeared, went or stayed."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from warpscope.explore.compare import PairDetail
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import DASH, literal, n, one_line, short_name
from warpscope.tui.widgets.footer import FittingFooter


class PairScreen(WarpscopeScreen):
    """The compare view's row, opened; Escape goes back to the comparison."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("y", "copy", "Copy")]

    def __init__(self, detail: PairDetail) -> None:
        super().__init__()
        self.detail = detail

    def compose(self) -> ComposeResult:
        d = self.detail
        room = max(self.app.size.width - 2, 20)  # the title's padding: one row
        title = Text("Compare · ", style="bold")
        title.append(literal(short_name(d.kernel, room - 10)))
        yield Static(title, id="compare-title")
        with VerticalScroll(id="pair"):
            yield Static(_names(d), id="pair-names")
            yield Static(_findings(d), id="pair-findings")
            yield Static(_config(d), id="pair-config")
            yield Static(_metrics(d), id="pair-metrics")
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.detail.metrics.write_csv(separator="\t"))
        self.notify("Metrics (base, new, change) copied to the clipboard (OSC 52).", title="Copy")


def _findings(d: PairDetail) -> RenderableType:
    parts: list[RenderableType] = [Text("Findings", style="bold underline")]
    for mark, label, items in (
        ("+", "appeared", d.appeared),
        ("−", "gone", d.gone),
        ("=", "on both", d.kept),
    ):
        line = Text(f"{mark} {label}: ", style="bold")
        line.append(str(len(items)))
        parts.append(line)
        for f in items:
            text = Text(f"   {mark} ")
            text.append(literal(one_line(f.get("title") or f.get("message") or f.get("rule_id"), 160)))
            sev = f.get("severity")
            if sev:
                text.append(f"  [{sev}]", style="dim")
            parts.append(text)
    return Group(*parts, Text(""))


def _names(d: PairDetail) -> Text:
    """Both sides' full names, whole (the title has the short name)."""
    text = Text()
    for side, name in zip(("base", "new"), d.names):
        text.append(f"{side}: ", style="bold")
        text.append(literal(one_line(name, 100_000)) if name else Text("not launched on this side"))
        text.append("\n")
    return text


def _config(d: PairDetail) -> RenderableType:
    table = Table(
        box=None, pad_edge=False, title="Launch", title_justify="left", title_style="bold underline"
    )
    for name in ("", "base", "new", ""):
        table.add_column(name)
    for what, base, new in d.config:
        changed = base is not None and new is not None and base != new
        table.add_row(
            what,
            literal(one_line(base, 60)) if base else DASH,
            literal(one_line(new, 60)) if new else DASH,
            Text("changed", style="bold") if changed else "",
        )
    return Group(table, Text(""))


def _metrics(d: PairDetail) -> RenderableType:
    table = Table(
        box=None, pad_edge=False, title="Metrics", title_justify="left", title_style="bold underline"
    )
    for name, justify in (
        ("metric", "left"),
        ("base", "right"),
        ("new", "right"),
        ("change", "right"),
        ("", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in d.metrics.iter_rows(named=True):
        change = row["change_pct"]
        noise = row["within_noise"]
        table.add_row(
            row["metric"],
            n(row["base"]),
            n(row["new"]),
            DASH if change is None else f"{change:+.1f}%",
            "" if noise is None else ("within noise" if noise else Text("changed", style="bold")),
        )
    return table
