"""Screens that need the findings open at once while the rules still run, say how far they got,
and fill in when they are done: nothing waits for the analysis thread."""

from __future__ import annotations

import asyncio
import threading

from textual.widgets import DataTable, Static

import warpscope
import warpscope.explore.workspace as workspace_module
from tests.conftest import CNN_FILES, settle
from tests.test_tui_pilot import _text
from warpscope.explore.workspace import Workspace
from warpscope.tui import WarpscopeApp
from warpscope.tui.screens.fix_first import FixFirstScreen
from warpscope.tui.screens.kernels import KernelsScreen
from warpscope.tui.screens.run import RunScreen


async def test_fix_first_and_the_run_during_analysis_never_wait_for_it(monkeypatch):
    release = threading.Event()
    real = workspace_module.analyze

    def held(profile, views=None, progress=None):  # the rules, held back until the test says
        if progress is not None:
            progress(0, profile.launches.height)
        release.wait(60)
        return real(profile, views, progress)

    monkeypatch.setattr(workspace_module, "analyze", held)
    app = WarpscopeApp(Workspace(warpscope.load(CNN_FILES)))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.analysis is not None and app.analysis.is_alive()
        await pilot.press("x")
        await pilot.pause(0.3)
        assert isinstance(app.screen, FixFirstScreen)
        title = _text(app.screen.query_one("#fix-first-title", Static))
        assert "being analysed: 0 of 90 launches" in title
        await pilot.press("escape")  # keys answer meanwhile: back, the whole run, back, again
        assert isinstance(app.screen, KernelsScreen)
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)  # the run's own findings need no launch analysed
        await pilot.press("escape", "x")
        await pilot.pause()
        release.set()
        while app.analysis.is_alive():
            await asyncio.sleep(0.05)
        await settle(pilot)
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, FixFirstScreen)
        assert screen.entries and screen.query_one(DataTable).row_count == len(screen.entries)
        assert "(kernel, problem) pairs" in _text(screen.query_one("#fix-first-title", Static))


def test_the_launch_tables_column_widths_are_the_librarys_measure():
    """The first switch to every launch measures its columns once (``grid.content_widths``, the
    library's measure without its string-by-string path where a string is one cell a character):
    the same widths as textual-fastdatatable's, on a real profile's launches at several name
    widths (names cut with "…", shapes with "×") and on text that is not one cell a character."""
    import numpy as np
    import pyarrow as pa

    from tools.fleet_runs import jittered
    from warpscope.explore.view import TableView
    from warpscope.model.profile import Profile
    from warpscope.tui.widgets.grid import _backend, content_widths

    step = warpscope.load(CNN_FILES)
    ws = Workspace(Profile.concat([jittered(step, np.random.default_rng(i)) for i in range(3)]))
    ws.analyse()
    for width in (None, 30, 72):
        view = TableView(ws.table, mode="launches")
        view.name_width = width
        data = view.rows()[0].to_arrow()
        assert content_widths(data) == list(_backend(data).column_content_widths)
    odd = ["plain", None, "日本語", "tab\there", "e\u0301" * 4, "👍🏽", "[bold]x[/]", "…" * 9, "\x1b[31m"]
    for values in (odd, [None], [], ["×" * 3, "ab"]):
        data = pa.table({"c": pa.array(values, pa.large_string())})
        assert content_widths(data) == list(_backend(data).column_content_widths), values
