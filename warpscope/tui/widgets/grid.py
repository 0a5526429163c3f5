"""An Arrow-backed table whose rows can be replaced in place (sort, filter, expand).

textual-fastdatatable renders only the visible rows of an Arrow table, so 100k launches
scroll like 20. It has no public call to swap the data of a mounted table
("unmount this table and mount a new one instead"), which would lose focus, cursor and
scroll on every keystroke; ``show`` swaps the backend and resets the widget's caches.
Those caches are private to textual-fastdatatable 0.19.5 (pinned in pyproject.toml):
this module is the one place that touches them.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual_fastdatatable import ArrowBackend, DataTable


class Grid(DataTable):
    """A ``DataTable`` over an Arrow table, never reading cell text as markup."""

    # Enter opens what the row is (its screen handles CellSelected): said in the footer
    BINDINGS = [Binding("enter", "select_cursor", "Open")]

    def __init__(self, data: pa.Table, **kwargs: Any) -> None:
        super().__init__(backend=_backend(data), render_markup=False, null_rep="–", **kwargs)

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


def content_widths(data: pa.Table) -> list[int]:
    """Cells each column's widest value needs (measured by textual-fastdatatable, vectorised)."""
    return list(_backend(data).column_content_widths)


def _backend(data: pa.Table) -> ArrowBackend:
    backend = ArrowBackend(data)
    backend.render_markup = False
    return backend
