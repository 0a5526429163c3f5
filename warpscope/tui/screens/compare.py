"""Two profiles side by side, per kernel: values before and after, regressions first."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Static

from warpscope.explore.compare import COMPARED, NOISE_PCT
from warpscope.tui.screens.base import WarpscopeScreen
from warpscope.tui.text import DASH, literal, n, one_line

#: verdict -> (mark, style): the mark says it without colour
VERDICTS = {
    "slower": ("▲ slower", "bold red"),
    "faster": ("▼ faster", "green"),
    "same": ("= same", ""),
    "only in base": ("− gone", "yellow"),
    "only in new": ("+ new", "yellow"),
}


class CompareScreen(WarpscopeScreen):
    """Per-kernel deltas between the baseline and the profile (or the first two files)."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("y", "copy", "Copy")]

    def compose(self) -> ComposeResult:
        result = self.workspace.comparison()
        assert result is not None
        base, new, self.frame = result
        title = Text("Compare · base: ", style="bold")
        title.append(literal(one_line(", ".join(Path(x).name for x in base.split(", ")), 60)))
        title.append(" → new: ", style="bold")
        title.append(literal(one_line(", ".join(Path(x).name for x in new.split(", ")), 60)))
        slower = int((self.frame["verdict"] == "slower").sum())
        title.append(
            f"\n{slower} slower by more than {n(NOISE_PCT)}%, "
            f"{int((self.frame['verdict'] == 'faster').sum())} faster, "
            f"{self.frame.height} rows"
        )
        yield Static(title, id="compare-title")
        table: DataTable[Text | str] = DataTable(id="compare", cursor_type="row", zebra_stripes=True)
        table.add_columns("Verdict", "Kernel", "Δ time", *(label for _, label, _ in COMPARED), "Findings ±")
        for row in self.frame.iter_rows(named=True):
            table.add_row(*_cells(row))
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.frame.write_csv(separator="\t"))
        self.notify("Comparison copied to the clipboard (OSC 52).", title="Copy")


def _cells(row: dict) -> list[Text]:
    mark, style = VERDICTS.get(row["verdict"], (row["verdict"], ""))
    change = row["duration_change_pct"]
    cells = [
        Text(mark, style=style),
        literal(one_line(row["kernel"], 40)),
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
    gained, lost = row["findings_new"], row["findings_gone"]
    cells.append(Text(DASH if gained is None else f"+{gained} / −{lost}", justify="right"))
    return cells
