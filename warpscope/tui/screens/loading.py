"""The screen shown while the profile loads: the app is on screen before Polars and the
rules are even imported, and a big export shows how far its import has got."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from warpscope.report.escape import visible
from warpscope.tui.widgets.footer import FittingFooter


class LoadingScreen(Screen[None]):
    """``what`` is loading; ``show_progress`` moves the bar (bytes read of a file)."""

    DEFAULT_CSS = """
    LoadingScreen { align: center middle; }
    LoadingScreen #loading { width: auto; max-width: 100%; }
    LoadingScreen ProgressBar { width: auto; margin-top: 1; }
    """

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        # not tui.text.literal: that module brings the analysis package (and Polars) with it
        yield Static(Text(visible(f"Loading {self.what}…")), id="loading")
        yield ProgressBar(id="load-progress", show_eta=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one(ProgressBar).display = False

    def show_progress(self, done: int, total: int) -> None:
        bar = self.query_one(ProgressBar)
        bar.display = total > 0
        bar.update(total=max(total, 1), progress=done)
