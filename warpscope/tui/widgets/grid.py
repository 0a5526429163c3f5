"""An Arrow-backed table whose rows can be replaced in place (sort, filter, expand).

textual-fastdatatable renders only the visible rows of an Arrow table, so 100k launches
scroll like 20. It has no public call to swap the data of a mounted table
("unmount this table and mount a new one instead"), which would lose focus, cursor and
scroll on every keystroke; ``show`` swaps the backend and resets the widget's caches.
Those caches are private to textual-fastdatatable 0.19.5 (pinned in pyproject.toml):
this module is the one place that touches them.

Drawing a cell goes through Rich's whole layout (Padding, Align, Styled, render_lines: about
0.3 ms a cell), and a sort redraws every visible cell: at 200x50, 100-200 ms a keystroke.
A one-line text or number cell is drawn here straight to its segments, with the same text,
alignment, ellipsis and styles Rich gives it (the screenshot tests compare them); anything
else (markup, several lines, headers) goes the library's way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual_fastdatatable import ArrowBackend, DataTable
from textual_fastdatatable.format import display_text


class Grid(DataTable):
    """A ``DataTable`` over an Arrow table, never reading cell text as markup."""

    # Enter opens what the row is (its screen handles CellSelected): said in the footer
    BINDINGS = [Binding("enter", "select_cursor", "Open")]

    def __init__(self, data: pa.Table, right_aligned: frozenset[str] = frozenset(), **kwargs: Any) -> None:
        """``right_aligned``: columns of text that are numbers as printed (``32.8k``), shown
        right-aligned as numbers are."""
        super().__init__(backend=_backend(data), render_markup=False, null_rep="–", **kwargs)
        self.right_aligned = right_aligned

    def show(self, data: pa.Table, widths: list[int] | None = None) -> None:
        """Replace the rows (same or other columns), keeping the cursor where it can stay.

        ``widths``: column content widths known to fit (e.g. measured once over all rows
        of which ``data`` is a sorted or filtered part), so 100k rows are not measured again.
        """
        cursor = self.cursor_coordinate
        self.backend = _backend(data)
        if widths is not None:
            self.backend._column_content_widths = list(widths)
        self._ordered_columns = None
        self._update_count += 1
        self._require_update_dimensions = True
        self._clear_caches()
        rows, cols = data.num_rows, data.num_columns
        self.cursor_coordinate = Coordinate(
            max(0, min(cursor.row, rows - 1)), max(0, min(cursor.column, cols - 1))
        )
        self.refresh()

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
        in_range: bool = False,
    ) -> list[list[Segment]]:
        key = (
            row_index,
            column_index,
            base_style,
            cursor,
            hover,
            in_range,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cached = self._cell_render_cache.get(key)
        if cached is not None:
            return cached
        body = row_index >= 0 and column_index >= 0  # not a header or a row label
        plain = self._plain_cell(row_index, column_index, width - 2) if body else None
        if plain is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover, in_range)
        text, justify, text_style = plain
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            row_index < self.fixed_rows or column_index < self.fixed_columns,
            hover,
            cursor,
            in_range,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_type == "range",
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        spare = width - 2 - cell_len(text)
        left = spare if justify == "right" else spare // 2 if justify == "center" else 0
        segments = [Segment(" " * (left + 1)), Segment(text, text_style), Segment(" " * (spare - left + 1))]
        pre = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        lines = [list(Segment.apply_style(segments, pre, post_style))]
        self._cell_render_cache[key] = lines
        return lines

    def _plain_cell(self, row: int, column: int, inner: int) -> tuple[str, str, Style | None] | None:
        """(text, justification, style) of a one-line cell as ``cell_formatter`` would show it
        in ``inner`` cells, or None where only Rich's layout knows."""
        if self.render_markup or inner < 1:
            return None
        datum = self.get_cell_at(Coordinate(row=row, column=column))
        if datum is None:
            null = self.null_rep
            if null.spans or cell_len(null.plain) > inner:
                return None
            style = Style.parse(null.style) if isinstance(null.style, str) else null.style
            return null.plain, "center", style or None
        if isinstance(datum, str):
            text, justify = datum, "left"
            if (
                self.right_aligned
                and self.backend is not None
                and self.backend.columns[column] in self.right_aligned
            ):
                justify = "right"
        elif isinstance(datum, (int, float, Decimal)) and not isinstance(datum, bool):
            text, justify = display_text(datum, self.ordered_columns[column]), "right"
            if "[" in text:
                return None
        else:
            return None
        if "\n" in text or "\r" in text or not text.isprintable():
            return None
        if cell_len(text) > inner:
            if self.max_column_content_width is None:
                return None  # Rich folds it onto a second line, cut by the row's height
            text = set_cell_size(text, inner - 1) + "…"
        return text, justify, None


def content_widths(data: pa.Table) -> list[int]:
    """Cells each column's widest value needs, as textual-fastdatatable measures them. The library
    measures text a string at a time through Rich (2 s for 10,000 launches' names, the first
    ``l``); a string whose every character is printable and one cell wide (ASCII, "…", "×") is
    as wide as it is long, so only the others go the library's way."""
    widths = []
    for name, column in zip(data.column_names, data.columns, strict=True):
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            widths.append(_backend(pa.table({name: column})).column_content_widths[0])
            continue
        distinct = pc.unique(column).drop_null()
        ascii_ = pc.match_substring_regex(distinct, r"^[\x20-\x7e]*$")
        plain = pc.max(pc.utf8_length(distinct.filter(ascii_))).as_py() or 0
        others: list[str] = distinct.filter(pc.invert(ascii_)).to_pylist()
        odd_chars = {c for c in set("".join(others)) if not c.isprintable() or cell_len(c) != 1}
        odd = [s for s in others if not odd_chars.isdisjoint(s)]
        plain = max([plain, *(len(s) for s in others if odd_chars.isdisjoint(s))])
        rest = _backend(pa.table({name: pa.array(odd, column.type)})).column_content_widths[0] if odd else 0
        widths.append(max(plain, rest))
    return widths


def _backend(data: pa.Table) -> ArrowBackend:
    backend = ArrowBackend(data)
    backend.render_markup = False
    return backend
