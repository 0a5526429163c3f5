"""The table's own cell drawing (``widgets/grid.py``) against textual-fastdatatable's, cell by
cell, on real profiles: long templated names cut with an ellipsis, numbers, empty cells, the
cursor and hover styles, at 80 and 200 columns."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.coordinate import Coordinate
from textual_fastdatatable import DataTable

import warpscope
from tests.conftest import CNN_STEP, H100, settle
from warpscope.explore.workspace import Workspace
from warpscope.tui import WarpscopeApp
from warpscope.tui.widgets.grid import Grid

CNN = CNN_STEP / "cnn_full_details.csv.gz"


def _library(grid: Grid, *args) -> list[list[Segment]]:
    grid._cell_render_cache.clear()
    return [list(Segment.simplify(line)) for line in DataTable._render_cell(grid, *args)]


def _ours(grid: Grid, *args) -> list[list[Segment]]:
    grid._cell_render_cache.clear()
    return [list(Segment.simplify(line)) for line in grid._render_cell(*args)]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
@pytest.mark.parametrize("mode", ["kernels", "launches"])
async def test_cells_drawn_as_the_library_draws_them(size, mode):
    app = WarpscopeApp(Workspace(warpscope.load([CNN, H100 / "seed_full_raw.csv"])))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if mode == "launches":
            await pilot.press("l")
            await pilot.pause()
        grid = app.screen.query_one(Grid)
        widths = [c.render_width for c in grid.ordered_columns]
        drawn = cut = empty = 0
        for row in range(min(grid.row_count, size[1])):
            for column, width in enumerate(widths):
                value = grid.get_cell_at(Coordinate(row, column))
                # its own width, and a narrow one that cuts names and numbers with an ellipsis
                for cells in (width, 9):
                    for base, cursor, hover in (
                        (Style(), False, False),
                        (Style(bold=True), True, False),
                        (Style(), False, True),
                    ):
                        args = (row, column, base, cells, cursor, hover, False)
                        assert _ours(grid, *args) == _library(grid, *args), (row, column, cells, value)
                drawn += 1
                empty += value is None
                cut += value is not None and len(str(value)) > 7
        assert drawn > 200 and empty > 0 and cut > 0  # names cut, dashes, numbers all compared
