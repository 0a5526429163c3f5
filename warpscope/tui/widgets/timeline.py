"""Warps × cycles: each cell one letter for the warp's state, on that state's colour.

A Line-API ``ScrollView``: only the visible rows are drawn, each from a binary search
over the row's runs (``warpscope.explore.timeline``), so any zoom of any launch draws
at once. The letters carry the meaning; colour only helps (``NO_COLOR`` keeps them).
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from warpscope.explore.timeline import NONE, STATES, Timeline

#: state -> (letter, colour); Okabe–Ito colours, safe for colour-blind readers
GLYPHS: dict[str, tuple[str, str]] = {
    "selected": ("█", "#009E73"),
    "not_selected": ("n", "#56B4E9"),
    "long_scoreboard": ("L", "#D55E00"),
    "short_scoreboard": ("S", "#E69F00"),
    "wait": ("w", "#F0E442"),
    "barrier": ("B", "#CC79A7"),
    "math_pipe_throttle": ("M", "#0072B2"),
    "mio_throttle": ("m", "#999933"),
    "lg_throttle": ("g", "#882255"),
    "branch_resolving": ("b", "#44AA99"),
    "no_instruction": ("i", "#BBBBBB"),
    "drain": ("d", "#777777"),
}
CELL_STYLES = [
    (
        GLYPHS[s][0],
        Style(color="black", bgcolor=GLYPHS[s][1]) if s != "selected" else Style(color=GLYPHS[s][1]),
    )
    for s in STATES
]
_EMPTY = (" ", Style())
LABEL_WIDTH = 9


class TimelineView(ScrollView, can_focus=True):
    """The timeline of one launch, with a cursor on one warp slot and one cell."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", "Warp up", show=False),
        Binding("down", "move(1, 0)", "Warp down", show=False),
        Binding("left", "move(0, -1)", "Earlier", show=False),
        Binding("right", "move(0, 1)", "Later", show=False),
        Binding("pageup", "move(-10, 0)", show=False),
        Binding("pagedown", "move(10, 0)", show=False),
        Binding("shift+left", "move(0, -20)", show=False),
        Binding("shift+right", "move(0, 20)", show=False),
        Binding("home", "jump(0)", "Start", show=False),
        Binding("end", "jump(1)", "End", show=False),
        Binding("plus,equals_sign", "zoom(0.5)", "Zoom in"),
        Binding("minus", "zoom(2)", "Zoom out"),
    ]

    cursor_row: reactive[int] = reactive(0)
    cursor_cell: reactive[int] = reactive(0)
    cycles_per_cell: reactive[int] = reactive(1)

    class Moved(Message):
        """The cursor moved to another warp slot or cycle."""

        def __init__(self, row: int, cycle: int) -> None:
            super().__init__()
            self.row, self.cycle = row, cycle

    def __init__(self, timeline: Timeline, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.timeline = timeline

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit)  # the width is known once the layout has run

    def fit(self) -> None:
        """Zoom so the whole launch fits the width."""
        width = max(10, (self.size.width or 80) - LABEL_WIDTH)
        self.cycles_per_cell = max(1, -(-self.timeline.cycles // width))
        self._resize()
        self.post_message(self.Moved(self.cursor_row, self.cursor_cycle))  # the scale changed

    def _resize(self) -> None:
        cells = -(-self.timeline.cycles // self.cycles_per_cell)
        self.virtual_size = Size(LABEL_WIDTH + cells, len(self.timeline.rows))
        self.refresh()

    @property
    def cursor_cycle(self) -> int:
        return self.cursor_cell * self.cycles_per_cell

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        width = self.size.width
        if row >= len(self.timeline.rows):
            return Strip.blank(width)
        r = self.timeline.rows[row]
        on_cursor = row == self.cursor_row
        label_style = Style(bold=True, reverse=on_cursor)
        segments = [Segment(f"{r.sm}:{r.slot:>3} s{r.smsp}".ljust(LABEL_WIDTH)[:LABEL_WIDTH], label_style)]
        count = max(0, width - LABEL_WIDTH)
        codes = self.timeline.cells(row, scroll_x * self.cycles_per_cell, self.cycles_per_cell, count)
        cursor_at = self.cursor_cell - scroll_x if on_cursor else -1
        for i, code in enumerate(codes.tolist()):
            glyph, style = CELL_STYLES[code] if code != NONE else _EMPTY
            if i == cursor_at:
                style = style + Style(reverse=True, bold=True, underline=True)
            segments.append(Segment(glyph, style))
        return Strip(segments).simplify()

    def action_move(self, rows: int, cells: int) -> None:
        last_cell = max(0, self.virtual_size.width - LABEL_WIDTH - 1)
        self.cursor_row = max(0, min(len(self.timeline.rows) - 1, self.cursor_row + rows))
        self.cursor_cell = max(0, min(last_cell, self.cursor_cell + cells))
        self._follow()

    def action_jump(self, end: int) -> None:
        self.cursor_cell = 0 if not end else max(0, self.virtual_size.width - LABEL_WIDTH - 1)
        self._follow()

    def action_zoom(self, factor: float) -> None:
        cycle = self.cursor_cycle
        self.cycles_per_cell = max(1, int(self.cycles_per_cell * factor))
        self.cursor_cell = cycle // self.cycles_per_cell
        self._resize()
        self._follow()

    def _follow(self) -> None:
        """Scroll so the cursor is visible, then say where it is."""
        view_w = max(1, self.size.width - LABEL_WIDTH)
        view_h = max(1, self.size.height)
        x, y = self.scroll_offset
        if self.cursor_cell < x or self.cursor_cell >= x + view_w:
            x = max(0, self.cursor_cell - view_w // 2)
        if self.cursor_row < y or self.cursor_row >= y + view_h:
            y = max(0, self.cursor_row - view_h // 2)
        self.scroll_to(x, y, animate=False)
        self.refresh()
        self.post_message(self.Moved(self.cursor_row, self.cursor_cycle))

    def on_click(self, event: events.Click) -> None:
        x, y = self.scroll_offset
        if event.x >= LABEL_WIDTH:
            self.cursor_cell = x + event.x - LABEL_WIDTH
        self.cursor_row = max(0, min(len(self.timeline.rows) - 1, y + event.y))
        self._follow()
