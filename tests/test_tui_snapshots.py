"""Snapshots of the main screens at 80x24 and 160x50, in colour and with NO_COLOR.

Update after a deliberate UI change with ``pytest tests/test_tui_snapshots.py --snapshot-update``
and look at every changed SVG before committing it.
"""

from __future__ import annotations

import pytest

import warpscope
from tests.conftest import CNN_STEP, H100, settle
from warpscope.explore.workspace import Workspace
from warpscope.tui import WarpscopeApp
from warpscope.tui.widgets.grid import Grid

SIZES = [(80, 24), (160, 50)]


@pytest.fixture(params=[False, True], ids=["colour", "no_color"])
def no_color(request, monkeypatch):
    if request.param:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    return request.param


def _seed_app(baseline: bool = False) -> WarpscopeApp:
    # with a baseline: the same program profiled again (seed_raw_base.csv), new vs the first run
    profile = warpscope.load(H100 / ("seed_raw_base.csv" if baseline else "seed_full_raw.csv"))
    base = warpscope.load(H100 / "seed_full_raw.csv") if baseline else None
    return WarpscopeApp(Workspace(profile, base))


def _then(*keys: str, row_of: str | None = None):
    async def run_before(pilot) -> None:
        await settle(pilot)
        if row_of is not None:
            grid = pilot.app.screen.query_one(Grid)
            names = [str(grid.get_cell_at(_coord(r))).strip() for r in range(grid.row_count)]
            grid.move_cursor(row=names.index(row_of), column=0)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await settle(pilot)

    return run_before


def _coord(row: int):
    from textual.coordinate import Coordinate

    return Coordinate(row, 0)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_kernel_table(snap_compare, size, no_color):
    assert snap_compare(_seed_app(), terminal_size=size, run_before=_then())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_kernel_view_overview(snap_compare, size, no_color):
    assert snap_compare(_seed_app(), terminal_size=size, run_before=_then("enter", row_of="heavyRegisters"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_kernel_view_occupancy(snap_compare, size, no_color):
    assert snap_compare(
        _seed_app(), terminal_size=size, run_before=_then("enter", "3", row_of="heavyRegisters")
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_kernel_view_stalls(snap_compare, size, no_color):
    assert snap_compare(
        _seed_app(), terminal_size=size, run_before=_then("enter", "4", row_of="matmulTiled<32, 1>")
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare(snap_compare, size, no_color):
    assert snap_compare(_seed_app(baseline=True), terminal_size=size, run_before=_then("c"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fix_first(snap_compare, size, no_color):
    assert snap_compare(_seed_app(), terminal_size=size, run_before=_then("x"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_roofline(snap_compare, size, no_color):
    assert snap_compare(_seed_app(), terminal_size=size, run_before=_then("r"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_glossary(snap_compare, size, no_color):
    assert snap_compare(_seed_app(), terminal_size=size, run_before=_then("g"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_timeline(snap_compare, size, no_color, emulated_seed):
    app = WarpscopeApp(Workspace(warpscope.load(emulated_seed[0])))
    assert snap_compare(
        app, terminal_size=size, run_before=_then("t", "down", "right", row_of="reduceInterleaved")
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_whole_run(snap_compare, size, no_color):
    # a profiled training loop (H100): its step, the time by family, the advice about the program
    profile = warpscope.load(H100 / "trainloop" / "trainloop_fused_raw_base.csv.gz")
    assert snap_compare(WarpscopeApp(Workspace(profile)), terminal_size=size, run_before=_then("w"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fix_first_keeps_the_h100_and_the_emulator_apart(snap_compare, size, no_color, emulated_seed):
    # the demo's two programs: the H100 export and the emulated seed workload, one row each
    profile = warpscope.load([H100 / "seed_full_raw.csv", emulated_seed[0]])
    assert snap_compare(WarpscopeApp(Workspace(profile)), terminal_size=size, run_before=_then("x"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_trend(snap_compare, size, no_color, fleet_dataset):
    from warpscope.model import store

    profile = warpscope.load(fleet_dataset)
    base = store.load_run(fleet_dataset, store.select_run(fleet_dataset, offset=1))
    app = WarpscopeApp(Workspace(profile, base, dataset=fleet_dataset))
    assert snap_compare(app, terminal_size=size, run_before=_then("T"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_source_tab_of_a_report(snap_compare, size, no_color):
    # a .ncu-rep made with --import-source yes: CUDA lines with their text, the SASS under each
    # (ncu-report's), counts right-aligned; `j` from the bank-conflict finding lights line 70
    app = WarpscopeApp(Workspace(warpscope.load(H100 / "ncurep" / "seed_full.ncu-rep.gz")))
    assert snap_compare(
        app, terminal_size=size, run_before=_then("enter", "7", "j", row_of="transposeShared<0>")
    )


def _cnn_app(baseline: bool = False) -> WarpscopeApp:
    # a PyTorch training step on the H100: cuDNN, CUTLASS and PyTorch kernels, long templated
    # names; with a baseline: the first 12 launches of another run of the step
    profile = warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz")
    base = warpscope.load(H100 / "ncurep" / "cnn_first12_raw_base.csv.gz") if baseline else None
    return WarpscopeApp(Workspace(profile, base))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fix_first_long_names(snap_compare, size, no_color):
    assert snap_compare(_cnn_app(), terminal_size=size, run_before=_then("x"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_roofline_long_names(snap_compare, size, no_color):
    assert snap_compare(_cnn_app(), terminal_size=size, run_before=_then("r"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_long_names(snap_compare, size, no_color):
    assert snap_compare(_cnn_app(baseline=True), terminal_size=size, run_before=_then("c"))
