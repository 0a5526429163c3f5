"""The UI driven by Textual's Pilot: the walk a user takes, on the real H100 seed export."""

from __future__ import annotations

import time

import polars as pl
import pytest
from textual.widgets import OptionList, Static, TabbedContent

import warpscope
from tests.conftest import CNN_STEP, H100, PUBLIC_NVPROF, settle
from warpscope.explore.glossary import lookup
from warpscope.explore.workspace import Workspace
from warpscope.model.profile import Profile
from warpscope.tui import WarpscopeApp
from warpscope.tui.screens.compare import CompareScreen
from warpscope.tui.screens.fix_first import FixFirstScreen
from warpscope.tui.screens.glossary import GlossaryScreen
from warpscope.tui.screens.help import HelpScreen
from warpscope.tui.screens.kernel import TABS, KernelScreen
from warpscope.tui.screens.kernels import KernelsScreen
from warpscope.tui.screens.roofline import RooflineScreen
from warpscope.tui.screens.timeline import TimelineScreen
from warpscope.tui.widgets.grid import Grid
from warpscope.tui.widgets.timeline import TimelineView

HOSTILE = "[bold red]x[/]\x1b]52;c;aGk=\x07"


def _app(*paths, baseline=None) -> WarpscopeApp:
    profile = Profile.concat([warpscope.load(p) for p in paths])
    return WarpscopeApp(Workspace(profile, warpscope.load(baseline) if baseline else None))


async def _ready(pilot) -> None:
    await settle(pilot)


def _names(app) -> list[str]:
    grid = app.screen.query_one(Grid)
    return [str(grid.get_cell_at(_coord(r, 0))).strip() for r in range(grid.row_count)]


def _text(widget: Static) -> str:
    """What a Static shows, as plain text."""
    import io

    from rich.console import Console

    sink = io.StringIO()
    Console(file=sink, width=200, color_system=None).print(widget.content)
    return sink.getvalue()


def _coord(row: int, col: int):
    from textual.coordinate import Coordinate

    return Coordinate(row, col)


async def test_walk_sort_filter_open_every_tab_glossary_help():
    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        assert isinstance(app.screen, KernelsScreen) and app.workspace.analysed
        assert len(_names(app)) == 22 and _names(app)[0] == "matmulNaive"  # most time first
        # sort by duration: cursor to the "Time µs" column, s = ascending after descending
        await pilot.press("right", "right", "s")
        await pilot.pause()
        durations = [app.screen.query_one(Grid).get_cell_at(_coord(r, 2)) for r in range(22)]
        assert durations == sorted(durations)
        assert _names(app)[0] == "vecAddTail"
        status = _text(app.screen.query_one("#status", Static))
        assert "sorted by Time µs ▲" in status
        # find by name
        await pilot.press("slash", *"reduce", "enter")
        await pilot.pause()
        assert sorted(_names(app)) == [
            "reduceInterleaved",
            "reduceSequential",
            "reduceShuffle",
            "reduceSingleThread",
            "reduceStridedIndex",
        ]
        # filter by expression on top
        await pilot.press("f", *"achieved_occupancy_pct > 90", "enter")
        await pilot.pause()
        assert "filter: achieved_occupancy_pct > 90" in _text(app.screen.query_one("#status", Static))
        await pilot.press("escape")
        await pilot.pause()
        assert len(_names(app)) == 22
        # open heavyRegisters and visit every tab
        row = _names(app).index("heavyRegisters")
        app.screen.query_one(Grid).move_cursor(row=row, column=0)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, KernelScreen)
        assert app.screen.detail.kernel.kernel_short == "heavyRegisters"
        for number, tab in enumerate(TABS, 1):
            await pilot.press(str(number))
            await pilot.pause()
            assert app.screen.query_one(TabbedContent).active == tab
        await pilot.press("3")
        await pilot.pause()
        text = _text(app.screen.query_one("#occupancy-text", Static))
        assert "◀ binds" in text and "40 -> 32 registers" in text
        # the glossary for the tab's metric
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, GlossaryScreen)
        assert "achieved_occupancy_pct" in _text(app.screen.query_one("#glossary-entry", Static))
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, KernelsScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "q")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_invalid_filter_keeps_the_table_and_says_why():
    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(pilot)
        await pilot.press("f", *"occupancy < 5", "enter")
        await pilot.pause()
        assert len(_names(app)) == 22
        assert "unknown name 'occupancy'" in _text(app.screen.query_one("#status", Static))


async def test_misspelt_filter_metric_gets_a_did_you_mean():
    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(240, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("f", *"achieved_ocupancy_pct < 5", "enter")
        await pilot.pause()
        assert len(_names(app)) == 22
        assert "did you mean achieved_occupancy_pct?" in _text(app.screen.query_one("#status", Static))


async def test_expand_kernel_and_launch_mode():
    app = _app(H100 / "seed_full_raw.csv", H100 / "seed_full_raw.csv")
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(pilot)
        names = _names(app)  # the same file twice: each kernel has two launches
        assert len(names) == 22 and names[0].startswith("▸ ")
        await pilot.press("space")
        await pilot.pause()
        names = _names(app)
        assert len(names) == 24 and names[0].startswith("▾ ")
        assert [n.split("#")[0] for n in names[1:3]] == ["└ ", "└ "]
        await pilot.press("l")
        await pilot.pause()
        assert len(_names(app)) == 44 and "#" in _names(app)[0]


async def test_compare_two_profiles_with_baseline():
    # two real Nsight Compute runs of the same program: run-to-run changes, matched kernel by kernel
    app = _app(H100 / "seed_raw_base.csv", baseline=H100 / "seed_full_raw.csv")
    async with app.run_test(size=(160, 50)) as pilot:
        await _ready(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        frame = app.screen.frame
        assert (
            frame.filter(pl.col("new_launch").is_not_null() & pl.col("base_launch").is_not_null()).height
            == 22
        )
        title = _text(app.screen.query_one("#compare-title", Static))
        assert "base: seed_full_raw.csv" in title and "new: seed_raw_base.csv" in title
        for row in frame.filter(pl.col("verdict") == "slower").iter_rows(named=True):
            assert row["duration_ns.new"] > row["duration_ns.base"] * 1.02


async def test_emulator_timeline_and_warp_breakdown(emulated_seed):
    path, _profile = emulated_seed
    app = WarpscopeApp(Workspace(warpscope.load(path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        row = _names(app).index("reduceInterleaved")
        app.screen.query_one(Grid).move_cursor(row=row, column=0)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        view = app.screen.query_one(TimelineView)
        before = view.cycles_per_cell
        # the title states the scale the view was fitted to, before any key is pressed
        title = _text(app.screen.query_one("#timeline-title", Static))
        assert before > 1 and f"{before:,} cycles per cell" in title, (before, title)
        await pilot.press("plus")
        await pilot.pause()
        assert view.cycles_per_cell == max(1, before // 2)
        await pilot.press("down", "right", "right")
        await pilot.pause()
        detail = _text(app.screen.query_one("#warp-detail", Static))
        assert "warp slot" in detail and ("cycles:" in detail or "no warp resident" in detail)
        legend = _text(app.screen.query_one("#legend", Static))
        assert "long_scoreboard" in legend and "barrier" in legend


async def test_timeline_refused_for_hardware_profiles():
    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test() as pilot:
        await _ready(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, KernelsScreen)


async def test_findings_tab_labels_origins_and_copies(monkeypatch):
    app = _app(H100 / "seed_full_details.csv")
    copied = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("enter", "7")
        await pilot.pause()
        options = app.screen.query_one("#finding-list", OptionList)
        text = "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))
        assert options.option_count >= 1
        findings = app.screen.detail.kernel.findings
        assert {f["origin"] for f in findings} <= {"warpscope", "ncu"}
        await pilot.press("y")
        await pilot.pause()
        assert copied and copied[0].splitlines()[0].startswith(f"[{findings[0]['severity']}]")
        del text


async def test_fix_first_agrees_with_the_reports_and_opens_findings():
    """`x` lists what the JSON report's `opportunities` and the markdown "Fix first" table list,
    in the same order; Enter opens the kernel of the highlighted row on its Findings tab."""
    from warpscope.analysis import analyze
    from warpscope.report.escape import md_cell
    from warpscope.report.json_report import report_dict
    from warpscope.report.markdown import render
    from warpscope.report.names import middle

    path = H100 / "seed_full_details.csv"
    analysed = analyze(warpscope.load(path))
    expected = report_dict(analysed)["opportunities"]
    markdown = render(analysed)
    app = _app(path)
    async with app.run_test(size=(160, 50)) as pilot:
        await _ready(pilot)
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FixFirstScreen)
        shown = [(e["kernel_short"], e["rule"], e["est_saved_ns"]) for e in screen.entries]
        assert shown == [(e["kernel_short"], e["rule"], e["est_saved_ns"]) for e in expected]
        assert screen.query_one("#fix-first").row_count == len(expected) >= 10
        for i, e in enumerate(expected[:10], 1):  # the markdown table's rows, same order (escaped)
            assert f"| {i} | {md_cell(middle(e['kernel_short']))}" in markdown
        await pilot.press("down", "enter")
        await pilot.pause()
        opened = app.screen
        assert isinstance(opened, KernelScreen)
        assert opened.query_one(TabbedContent).active == "findings"
        assert opened.detail.kernel.kernel_short == expected[1]["kernel_short"]
        assert expected[1]["rule"] in {f["rule_id"] for f in opened.detail.kernel.findings}


async def test_roofline_screen_and_the_overview_plot():
    """`r`: the kernels with a roofline point, in kernel-table order, with the report's numbers;
    the kernel view's Overview plots its own point at each level (▲ L1, ■ L2, ◆ DRAM)."""
    from warpscope.tui.widgets.roofline_plot import RooflinePlot

    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(160, 50)) as pilot:
        await _ready(pilot)
        await pilot.press("r")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RooflineScreen)
        names = [p.kernel_short for p in screen.points]
        assert names[:3] == ["matmulNaive", "withDivergence", "noDivergence"] and "bigShared" not in names
        naive = screen.points[0].point
        assert naive.bound == "compute" and round(naive.intensity, 2) == 128.14
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, KernelScreen)
        plot = app.screen.query_one("#overview-roofline", RooflinePlot)
        # its hierarchical roofline: the point at L1, L2 and DRAM, the L1 roof binding
        assert plot.levels is not None and plot.levels == screen.points[0].main
        assert [lv.level for lv in plot.levels.levels] == ["L1", "L2", "DRAM"] and plot.levels.bound == "L1"


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_roofline_labels_never_run_together(size):
    """Issue 42: the terminal roofline of 56 PyTorch kernels printed neighbouring labels as one
    number ("145013"). Each label now has cells of its own with a blank one beside it: every
    run of digits on the plot is one kernel's label, each at most once; those left out are
    counted on the x label."""
    import re

    from warpscope.tui.widgets.roofline_plot import RooflinePlot

    app = WarpscopeApp(Workspace(warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz")))
    async with app.run_test(size=size) as pilot:
        await _ready(pilot)
        await pilot.press("r")
        await pilot.pause()
        await pilot.pause()
        plot = app.screen.query_one("#roofline-plot", RooflinePlot)
        labels = {p.label for p in plot.points}
        assert len(labels) == 56
        text = re.sub(r"\x1b\[[0-9;]*m", "", plot.plt.build())
        frame = [re.match(r"^\s*\S*[┤│](.*)│\s*$", line) for line in text.splitlines()]
        canvas = [m.group(1) for m in frame if m]
        assert len(canvas) >= 9
        runs = [m.group() for line in canvas for m in re.finditer(r"\d+", line)]
        assert runs and set(runs) <= labels, set(runs) - labels
        assert len(runs) == len(set(runs)) == 56 - plot.labels_left_out
        # the kernels that hold the time are labelled first: none of them is left out
        big = {p.label for p in plot.points if (p.time_share_pct or 0) >= 5}
        assert big and big <= set(runs)
        assert plot.labels_left_out <= (28 if size[0] == 80 else 7)


async def test_roofline_screen_and_overview_name_the_roof_that_binds_tensor_work_included():
    """Issue 37: the CNN step's tensor-core kernels. The roofline screen lists the two cuBLAS bf16
    GEMMs with no SIMT flop (not on the plot: dashes where the SIMT numbers go) with the roof
    their bf16 work meets; the cuDNN dgrad's Bound names its tf32 tensor path's L2 roof; its
    Overview gives every pipe's share of the roof at L1, L2 and DRAM, the binding one marked."""
    from textual.widgets import DataTable

    from warpscope.analysis.text import DASH
    from warpscope.tui.widgets.roofline_plot import RooflinePlot

    app = WarpscopeApp(Workspace(warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz")))
    async with app.run_test(size=(160, 50)) as pilot:
        await _ready(pilot)
        await pilot.press("r")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RooflineScreen)
        assert len(screen.points) == 58 and len(screen.query_one(RooflinePlot).points) == 56
        table = screen.query_one("#roofline-table", DataTable)
        rows = {p.kernel_short: [str(c) for c in table.get_row_at(i)] for i, p in enumerate(screen.points)}
        nvjet = [cells for name, cells in rows.items() if name.startswith("nvjet") and cells[2] == DASH]
        assert sorted(cells[5] for cells in nvjet) == ["DRAM bf16", "bf16 peak"]
        dgrad = next(
            p for p in screen.points if p.kernel_short.startswith("sm90_xmma_dgrad_implicit_gemm_indexed")
        )
        assert rows[dgrad.kernel_short][5] == "L2 tf32"
        table.move_cursor(row=screen.points.index(dgrad))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, KernelScreen)
        text = _text(app.screen.query_one("#overview-text", Static))
        assert "Roofline: % of the roof at each level" in text
        assert "tf32 HGMMA" in text and "85.6 Top/s" in text and "L2 33% ◀" in text
        assert "bound: L2 bandwidth" in text
        plot = app.screen.query_one("#overview-roofline", RooflinePlot)
        assert plot.levels is not None and plot.levels.pipe == "tf32 HGMMA" and plot.levels.bound == "L2"


def test_label_places_keep_a_blank_cell_between_labels_and_off_points():
    from warpscope.tui.widgets.roofline_plot import place_labels

    points = [(10, 5), (11, 5), (12, 5), (13, 5), (30, 2)]
    places = place_labels(points, ["14", "50", "13", "7", "222"], 40, 10)
    taken = set(points)
    for place, label, point in zip(places, ["14", "50", "13", "7", "222"], points, strict=True):
        if place is None:
            continue
        cells = {(place[0] + i, place[1]) for i in range(len(label))}
        beside = {(place[0] - 1, place[1]), (place[0] + len(label), place[1])}
        assert not cells & taken and not (beside & taken) - {point}
        taken |= cells | beside
    assert places[0] is not None and places[-1] == (31, 2)


async def test_ctrl_c_quits():
    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test() as pilot:
        await _ready(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running


async def test_export_writes_the_markdown_report(tmp_path):
    app = _app(H100 / "seed_full_raw.csv")
    app.report_path = tmp_path / "report.md"
    said: list[str] = []
    notify = app.notify

    def recording(message, **kwargs):  # type: ignore[no-untyped-def]
        said.append(message)
        notify(message, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await _ready(pilot)
        await pilot.press("e")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
    text = app.report_path.read_text()
    assert text.startswith("# warpscope report") and "heavyRegisters" in text
    where = str(app.report_path)
    # where it goes is said before the report is written, and again once it is there
    assert said[:2] == [f"Writing the report to {where} …", f"Report written to {where}"]


async def test_export_keeps_earlier_files_and_follows_the_filter(tmp_path):
    """`e` never overwrites (report.md exists: report-2.md), and with a filter set it reports
    the launches the table shows."""
    app = _app(H100 / "seed_full_raw.csv")
    app.report_path = tmp_path / "report.md"
    app.report_path.write_text("mine\n")
    async with app.run_test() as pilot:
        await _ready(pilot)
        await pilot.press("slash", *"reduce", "enter")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        await app.workers.wait_for_complete()
    assert app.report_path.read_text() == "mine\n"
    text = (tmp_path / "report-2.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ") and ". " in line]
    assert len(headings) == 5 and all("reduce" in h for h in headings), headings
    assert "heavyRegisters" not in text


@pytest.fixture()
def hostile_export(tmp_path):
    raw = (H100 / "seed_full_raw.csv").read_text()
    path = tmp_path / "hostile.csv"
    path.write_text(raw.replace('"heavyRegisters(const float *, float *, int)"', f'"{HOSTILE}"', 1))
    return path


async def test_hostile_kernel_name_imports_and_displays_literally(hostile_export):
    profile = warpscope.load(hostile_export)
    assert HOSTILE in profile.launches["kernel"].to_list()  # stored verbatim
    app = WarpscopeApp(Workspace(profile))
    async with app.run_test(size=(160, 50)) as pilot:
        await _ready(pilot)
        shown = "[bold red]x[/]\\x1b]52;c;aGk=\\x07"
        assert shown in _names(app)
        app.screen.query_one(Grid).move_cursor(row=_names(app).index(shown), column=0)
        await pilot.press("enter")
        await pilot.pause()
        title = _text(app.screen.query_one("#kernel-title", Static))
        assert shown in title and "\x1b" not in title
        svg = app.export_screenshot()
        assert "[bold red]x[/]" in svg.replace("&#160;", " ") and "\x1b" not in svg and "\x07" not in svg


async def test_demo_job_shows_progress_and_adds_emulated_launches():
    from warpscope.emulator.kernel import Settings
    from warpscope.emulator.runner import emulate_workload
    from warpscope.emulator.workloads.seed import LAUNCHES

    heard: list[tuple[int, int, str]] = []

    def job(progress):
        def both(done, total, what):
            heard.append((done, total, what))
            progress(done, total, what)

        # the counts alone, at 1/256: this is about the job's progress, not the emulation
        return emulate_workload("seed", Settings(timing=False), 256, progress=both)

    app = WarpscopeApp(Workspace(warpscope.load(H100 / "seed_full_raw.csv")), job=job)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        deadline = time.monotonic() + 120  # a job that failed says why, not a test that never ends
        while len(app.workspace.table.launches) < 22 + LAUNCHES:
            assert time.monotonic() < deadline, [n.message for n in app._notifications]
            await pilot.pause(0.1)
            await _ready(pilot)
        assert [d for d, _, _ in heard] == list(range(1, LAUNCHES + 1))
        assert {t for _, t, _ in heard} == {LAUNCHES}
        names = _names(app)
        assert any(n.endswith("· seed.py") for n in names) and any(
            n.endswith("· seed_full_raw.csv") for n in names
        )
        assert not app.screen.query_one("#progress").display


def test_help_and_docs_name_every_key():
    """`?` and docs/tui.md stay true: every key a screen binds is explained in both."""
    from tests.conftest import ROOT
    from warpscope.tui.screens.help import HELP
    from warpscope.tui.widgets.timeline import TimelineView

    doc = (ROOT / "docs" / "tui.md").read_text()
    names = {
        "slash": "/",
        "question_mark": "?",
        "space": "Space",
        "escape": "Escape",
        "enter": "Enter",
        "plus": "+",
        "minus": "-",
        "home": "Home",
        "end": "End",
        "tab": "Tab",
        "shift+tab": "Shift+Tab",
        "percent_sign": "%",
    }
    for screen in (
        KernelsScreen,
        KernelScreen,
        TimelineScreen,
        CompareScreen,
        FixFirstScreen,
        RooflineScreen,
        TimelineView,
        WarpscopeApp,
    ):
        for binding in screen.BINDINGS:
            for key in binding.key.split(","):
                if key in (
                    "up",
                    "down",
                    "left",
                    "right",
                    "pageup",
                    "pagedown",
                    "shift+left",
                    "shift+right",
                    "equals_sign",
                    "ctrl+p",
                ):
                    continue
                shown = names.get(key, key)
                if key.isdigit():
                    shown = f"`1`–`{len(TABS)}`"
                elif not shown.startswith("`"):
                    shown = f"`{shown}`"
                assert shown in HELP, (screen.__name__, key)
                assert shown in doc, (screen.__name__, key)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_whole_run_shows_the_step_its_families_and_the_program_advice(size):
    """`w` on a profiled training loop: the step the report finds, one row per family of work
    with the report's figures, and the findings about the whole program."""
    from warpscope.analysis import analyze
    from warpscope.report.json_report import report_dict
    from warpscope.tui.screens.run import RunScreen

    path = H100 / "trainloop" / "trainloop_fused_raw_base.csv.gz"
    (run,) = report_dict(analyze(warpscope.load(path)))["runs"]
    app = _app(path)
    async with app.run_test(size=size) as pilot:
        await _ready(pilot)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        step = str(screen.query_one(".run-step", Static).render())
        assert "a step of 141 launches repeated 2 times after 229 launches of warm-up" in step
        table = screen.query_one(".run-families")
        assert table.row_count == len(run["step"]["families"])
        first = [str(c) for c in table.get_row_at(0)]
        assert first[0] == run["step"]["families"][0]["family"]
        findings = " ".join(str(s.render()) for s in screen.query(".run-finding"))
        assert "many short kernel launches" in findings and "CUDA Graph" in findings
        await pilot.press("escape")
        assert isinstance(app.screen, KernelsScreen)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_whole_run_shows_the_copies_a_trace_spends_its_time_on(size):
    """The vectorAdd trace (the issue's example: copies dwarf the kernel): the copies and the
    transfer findings the report has, which the kernel table cannot show."""
    from warpscope.tui.screens.run import RunScreen

    app = _app(PUBLIC_NVPROF / "magus_vectorAdd_gputrace.csv")
    async with app.run_test(size=size) as pilot:
        await _ready(pilot)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        copies = str(screen.query_one(".run-copies", Static).render())
        assert "HtoD" in copies and "DtoH" in copies and "against" in copies
        findings = " ".join(str(s.render()) for s in screen.query(".run-finding"))
        assert "copies" in findings


async def test_glossary_search_takes_what_is_typed_and_help_has_every_screen():
    """In the glossary, typing narrows the list although the list has the focus; `?` lists the
    keys of every screen, Compare and Glossary included."""
    from textual.widgets import Input, Markdown

    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("g")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GlossaryScreen)
        await pilot.press(*"bank")
        await pilot.pause()
        assert screen.query_one("#glossary-search", Input).value == "bank"
        listed = screen.query_one("#glossary-list", OptionList)
        ids = [listed.get_option_at_index(i).id for i in range(listed.option_count)]
        assert ids and all("bank" in i or "bank" in (lookup(i).definition.lower()) for i in ids)
        assert "shared_load_bank_conflicts" in ids
        await pilot.press("escape")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        source = app.screen.query_one(Markdown).source
        for section in (
            "Kernel table",
            "Kernel view",
            "Whole run",
            "Compare",
            "Glossary",
            "Fix first",
            "Timeline",
        ):
            assert f"## {section}\n\n| key | what it does |\n|---|---|\n| " in source


async def test_tab_and_arrows_move_between_the_kernel_tabs():
    """Tab / Shift+Tab and Left / Right switch the kernel view's tabs (wrapping round)."""
    from textual.widgets import DataTable

    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, KernelScreen)
        tabs = screen.query_one(TabbedContent)
        assert tabs.active == "overview"
        await pilot.press("tab")
        await pilot.pause()
        assert tabs.active == "divergence"
        await pilot.press("tab", "tab")
        await pilot.pause()
        assert tabs.active == "stalls"
        await pilot.press("shift+tab")
        await pilot.pause()
        assert tabs.active == "occupancy"
        await pilot.press("shift+tab", "shift+tab", "shift+tab")
        await pilot.pause()
        assert tabs.active == "findings"  # wraps round
        await pilot.press("1")
        await pilot.pause()
        assert not isinstance(screen.focused, DataTable)  # the overview scrolls vertically only
        await pilot.press("right")
        await pilot.pause()
        assert tabs.active == "divergence"
        await pilot.press("left", "left")
        await pilot.pause()
        assert tabs.active == "findings"


async def test_the_layout_follows_each_resize_at_once():
    """80 → 200 columns takes the wide layout on that resize, not on the next one."""
    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        assert app.has_class("narrow")
        await pilot.resize_terminal(200, 50)
        await pilot.pause()
        assert not app.has_class("narrow")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.has_class("narrow")


async def test_app_is_on_screen_while_the_profile_loads_and_says_a_load_error():
    """As `warpscope open` starts it: the loading screen first (the importers run in a
    thread), then the kernel table; a file that cannot be read ends the app with exit code 2
    and the error kept for the command line to print."""
    import threading

    from warpscope.errors import InputError
    from warpscope.tui.screens.loading import LoadingScreen

    go = threading.Event()

    def load(progress):
        go.wait(10)
        progress(50, 100)
        return Workspace(warpscope.load(H100 / "seed_full_raw.csv"))

    app = WarpscopeApp(load, loading="seed_full_raw.csv")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen)
        assert "Loading seed_full_raw.csv" in _text(app.screen.query_one("#loading"))
        go.set()
        for _ in range(200):
            await pilot.pause(0.05)
            if isinstance(app.screen, KernelsScreen):
                break
        assert isinstance(app.screen, KernelsScreen)
        await settle(pilot)
        assert len(_names(app)) == app.workspace.view.rows()[0].height > 10

    def broken(progress):
        raise InputError("bad.csv", "not a profiler export", line=1)

    app = WarpscopeApp(broken, loading="bad.csv")
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if app.return_code is not None:
                break
    assert app.return_code == 2 and "not a profiler export" in str(app.load_error)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_names_use_the_width_tell_rows_apart_and_stay_in_view(size):
    """A PyTorch step (cnn_step: cuDNN, CUTLASS, PyTorch's templated kernels, one kernel at
    several grids): every row's name is distinct and fits the column the terminal leaves it
    (wider at 200 columns), the name column stays while the table scrolls right, and the
    line under the table gives the selected row's full name."""
    from warpscope.tui.screens.kernels import MIN_NAME

    profile = warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz")
    app = WarpscopeApp(Workspace(profile), analyse=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        width = app.workspace.view.name_width
        assert width == max(MIN_NAME, 80 * 45 // 100) if size[0] == 80 else width > 60
        names = [n.strip("▸▾ ") for n in _names(app)]
        assert len(names) == len(set(names)) == app.workspace.view.rows()[0].height > 70
        assert all(len(n) <= width for n in names)
        grid = app.screen.query_one(Grid)
        assert grid.fixed_columns == 1
        for _ in range(12):
            await pilot.press("right")
        await pilot.pause()
        if size[0] == 80:
            assert grid.scroll_x > 0  # scrolled to the right-hand columns...
        first_line = "".join(seg.text for seg in grid.render_line(1))
        assert names[0][:20] in first_line  # ...with the name column still there
        await pilot.press("down", "down")
        await pilot.pause()
        full = _text(app.screen.query_one("#full-name")).replace("\n", "").strip()
        launch = app.workspace.view.rows()[1]["launch_id"][2]
        kernel = profile.launches.filter(pl.col("launch_id") == launch)["kernel"][0]
        assert full == kernel and len(full) > len(names[2])


def _bottom_line(svg: str) -> str:
    """The last line of a screenshot, as text."""
    import html
    import re

    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', svg):
        text = html.unescape(m.group(3)).replace("\xa0", " ")
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), text))
    return " ".join(" ".join(t for _, t in sorted(rows[max(rows)])).split())


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_footer_names_the_table_keys_most_used_first(size):
    """Enter, Space, l, t, e and y are in the kernel table's footer (at 200 columns every key
    is); at 80 the first ones, Help among them, are what shows."""
    app = WarpscopeApp(Workspace(warpscope.load(H100 / "seed_full_raw.csv")), analyse=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        footer = _bottom_line(app.export_screenshot())
    first = ["⏎ Open", "? Help", "s Sort", "/ Find", "f Filter", "space Launches"]
    assert all(key in footer for key in first), footer
    if size[0] == 200:
        rest = ["l All", "x Fix first", "c Compare", "t Timeline", "w Run", "r Roofline", "g Glossary"]
        assert all(key in footer for key in [*rest, "e Export", "y Copy", "q Quit"]), footer


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_compare_is_navigable_sortable_filterable_and_opens_both_sides(size):
    """A training loop's per-parameter AdamW run (base) against its fused-AdamW run (new),
    both real H100 exports: arrows move, `s` sorts by the column under the cursor, `/` finds
    by name, `f` shows one kind of row, a kernel only one side launched shows that side's
    values, and Enter opens the kernel on both sides with the findings that appeared or went."""
    from warpscope.tui.screens.compare_pair import PairScreen

    base = warpscope.load(H100 / "trainloop" / "trainloop_loop_raw_base.csv.gz")
    new = warpscope.load(H100 / "trainloop" / "trainloop_fused_raw_base.csv.gz")
    app = WarpscopeApp(Workspace(new, base))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        table = screen.query_one("#compare")
        total = screen.frame.height
        await pilot.press("down", "down")
        assert table.cursor_row == 2
        await pilot.press("right", "right", "s")  # Δ time: largest change first
        changes = screen.shown["duration_change_pct"].drop_nulls().to_list()
        assert changes == sorted(changes, reverse=True) and screen.shown.height == total
        await pilot.press("s")
        assert screen.shown["duration_change_pct"].drop_nulls().to_list() == sorted(changes)
        await pilot.press("slash", *"softmax")
        await pilot.pause()
        assert 0 < screen.shown.height < total
        assert all("softmax" in k.lower() for k in screen.shown["kernel"].to_list())
        await pilot.press("enter", "escape")  # leave the find box, then clear it
        await pilot.pause()
        assert screen.shown.height == total
        await pilot.press("f", "f", "f")  # every row, slower, faster, on one side only
        one_side = screen.shown
        assert one_side.height > 0 and set(one_side["verdict"]) <= {"only in base", "only in new"}
        gone = one_side.filter(pl.col("verdict") == "only in base").row(0, named=True)
        assert gone["duration_ns.base"] is not None and gone["duration_ns.new"] is None
        await pilot.press("f")  # findings changed
        changed = screen.shown.row(0, named=True)
        assert changed["findings_appeared"] or changed["findings_gone"]
        table.move_cursor(row=0, column=0)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PairScreen)
        detail = app.screen.detail
        said = {f.get("title") or f.get("message") for f in [*detail.appeared, *detail.gone]}
        assert said >= set(changed["findings_appeared"]) | set(changed["findings_gone"])
        assert detail.metrics.filter(pl.col("metric") == "duration_ns").height == 1
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_source_page_beside_its_report_fills_a_source_tab_in_order(size):
    """Issue 24 items 4 and 5: the raw page and the CUDA+SASS source page of one report open as
    the report's 22 kernels (the listings on their launches, no row without a time); the unpadded
    transpose's Source tab lists each line and instruction once in source order with compact
    counts and the code in view; `o` puts the hottest lines first; `j` on the bank-conflict
    finding lands on line 70, the shared read that conflicts; `%` pools the time shares."""
    from warpscope.tui.screens.kernel import _code_width

    app = WarpscopeApp(
        Workspace(warpscope.load([H100 / "seed_full_raw.csv", H100 / "seed_source_cuda_sass.csv"]))
    )
    async with app.run_test(size=size) as pilot:
        await _ready(pilot)
        table = app.screen.query_one(Grid)
        assert table.row_count == 22
        assert all(table.get_cell_at(_coord(r, 2)) is not None for r in range(22))  # Time µs
        assert "Time% per file" in _text(app.screen.query_one("#status", Static))
        await pilot.press("percent_sign")
        await pilot.pause()
        assert "Time% of all files" in _text(app.screen.query_one("#status", Static))
        await pilot.press("slash", *"transposeShared<0>", "enter")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, KernelScreen) and screen.detail.kernel.kernel_short == "transposeShared<0>"
        await pilot.press("6")
        await pilot.pause()
        source = screen.query_one("#source-grid", Grid)
        listing = screen.detail.listing
        assert source.row_count == listing.rows.height == 55  # 7 lines, 48 instructions, once each
        assert source.max_column_content_width == _code_width(size[0]) <= size[0] - 40
        cells = [str(source.get_cell_at(_coord(r, c))) for r in range(source.row_count) for c in range(3, 9)]
        assert not any("e+" in c for c in cells) and all(len(c) <= 6 for c in cells)
        assert "source order" in _text(screen.query_one("#source-caption", Static))
        await pilot.press("o")
        await pilot.pause()
        assert "hottest first" in _text(screen.query_one("#source-caption", Static))
        assert [str(source.get_cell_at(_coord(r, 0))) for r in range(3)] == ["70", "67", "71"]
        await pilot.press("7")
        await pilot.pause()
        assert screen.detail.kernel.findings[0]["category"] == "bank_conflicts"
        await pilot.press("j")
        await pilot.pause()
        assert screen.query_one(TabbedContent).active == "source"
        row = source.cursor_row
        assert str(source.get_cell_at(_coord(row, 0))) == "70" and listing.rows["line"][row] == 70
        caption = _text(screen.query_one("#source-caption", Static))
        assert "line 70: L1 Wavefronts Shared Excessive" in caption and "source order" in caption
        # a finding no per-line counter locates lands on the hottest line, and says so
        occupancy = next(
            i for i, f in enumerate(screen.detail.kernel.findings) if f["category"] == "occupancy"
        )
        await pilot.press("7")
        await pilot.pause()
        screen.query_one("#finding-list").highlighted = occupancy
        await pilot.press("j")
        await pilot.pause()
        caption = _text(screen.query_one("#source-caption", Static))
        assert "no per-line counter locates" in caption and "the hottest line" in caption


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_source_tab_of_a_report_shows_cuda_lines_and_sass_and_lands_on_the_line(size):
    """A .ncu-rep made with --import-source yes: the Source tab lists each CUDA line with its
    text and, under it, its instructions with their SASS; counts are right-aligned; `j` on the
    bank-conflict finding lights the whole row of line 70, in view."""
    app = WarpscopeApp(Workspace(warpscope.load(H100 / "ncurep" / "seed_full.ncu-rep.gz")))
    async with app.run_test(size=size) as pilot:
        await _ready(pilot)
        await pilot.press("slash", *"transposeShared<0>", "enter")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, KernelScreen) and screen.detail.kernel.kernel_short == "transposeShared<0>"
        await pilot.press("6")
        await pilot.pause()
        source = screen.query_one("#source-grid", Grid)
        listing = screen.detail.listing
        assert source.row_count == listing.rows.height
        first = [str(source.get_cell_at(_coord(0, c))) for c in range(3)]
        second = [str(source.get_cell_at(_coord(1, c))) for c in range(3)]
        assert first[1] in ("", "None") and first[2].startswith("__global__")  # a CUDA line, its text
        assert second[1] != "" and second[2].startswith("  ") and second[2].split()[0].isupper()  # SASS
        assert source.cursor_type == "row"
        counts = source._plain_cell(0, 3, 10)
        assert counts is not None and counts[1] == "right"
        assert source._plain_cell(0, 2, 10)[1] == "left"
        await pilot.press("7")
        await pilot.pause()
        assert screen.detail.kernel.findings[0]["category"] == "bank_conflicts"
        await pilot.press("j")
        await pilot.pause()
        row = source.cursor_row
        assert listing.rows["line"][row] == 70 and listing.rows["kind"][row] == "line"
        assert source.has_focus and source.cursor_type == "row"
        top = int(source.scroll_y)
        assert top <= row < top + source.scrollable_content_region.height - 1  # in view


def test_memory_tab_shows_local_traffic_only_where_a_kernel_spills():
    """The cuDNN dgrad kernel of the PyTorch step spills: the Memory tab gives its local loads
    and stores (requests, sectors, sectors per request) as the raw page states them; a kernel
    without local traffic shows no local table."""
    from warpscope.tui.screens import kernel_tabs

    workspace = Workspace(warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz"))
    ids = dict(zip(workspace.profile.launches["profiler_launch_id"], workspace.profile.launches["launch_id"]))
    text = _text(Static(kernel_tabs.memory(workspace.detail([ids["60"]]))))
    table = text.split("Local memory (spills, local arrays)", 1)[1]
    assert [line.split() for line in table.strip().splitlines()[1:3]] == [
        ["loads", "6,250", "25,000", "4"],
        ["stores", "2,640", "10,560", "4"],
    ]
    assert "Local memory" not in _text(Static(kernel_tabs.memory(workspace.detail([ids["0"]]))))


def test_every_kernel_tab_has_its_key_glossary_entry_help_and_docs():
    """A tab of the kernel view is reached by its digit (1 to the number of tabs, in order),
    opens a glossary entry with `g` (or none, said so), and is named in `?` and docs/tui.md:
    in the keys (`1`–`N` and the names in order) and described in the Kernel view paragraph."""
    from tests.conftest import ROOT
    from warpscope.tui.screens.help import HELP
    from warpscope.tui.screens.kernel import TAB_METRIC

    digits = [(b.key, b.action) for b in KernelScreen.BINDINGS if b.key.isdigit()]
    assert digits == [(str(i), f"tab('{tab}')") for i, tab in enumerate(TABS, 1)]
    assert list(TAB_METRIC) == list(TABS)
    assert [tab for tab, entry in TAB_METRIC.items() if entry is not None and lookup(entry) is None] == []
    names = ", ".join(tab.capitalize() for tab in TABS)
    keys = f"`1`–`{len(TABS)}`"
    help_text = " ".join(HELP.split())
    assert f"## Kernel view | key | what it does | |---|---| | {keys} | tabs ({names}) |" in help_text
    doc = " ".join((ROOT / "docs" / "tui.md").read_text().split())
    assert f"| kernel view | {keys} {names} ·" in doc
    paragraph = doc.split("**Kernel view.**", 1)[1].split("**", 1)[0]
    assert [tab for tab in TABS if f"{tab.capitalize()} (" not in paragraph] == []


async def test_y_copies_every_kernel_tab_even_an_empty_one(monkeypatch):
    """`y` copies what each tab shows, on every tab, also where the tab has nothing to list (a
    trace: no source lines, no findings); the tabs are labelled with their keys."""
    from textual.widgets import Tab

    from warpscope.tui.screens.kernel import NO_FINDINGS, NO_SOURCE

    app = _app(PUBLIC_NVPROF / "magus_vectorAdd_gputrace.csv")
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, KernelScreen)
        assert not screen.detail.kernel.findings and screen.detail.listing.is_empty()
        labels = [str(tab.label) for tab in screen.query_one(TabbedContent).query(Tab)]
        assert labels == [f"{i} {tab.capitalize()}" for i, tab in enumerate(TABS, 1)]
        for number, tab in enumerate(TABS, 1):
            await pilot.press(str(number), "y")
            await pilot.pause()
            assert len(copied) == number, tab
        copy = dict(zip(TABS, copied))
        assert copy["source"] == NO_SOURCE + "\n" and copy["findings"] == NO_FINDINGS + "\n"
        assert copy["overview"].startswith("name ") and "GeForce GTX 1080 Ti" in copy["overview"]
        assert copy["memory"].startswith("Global memory")


async def test_long_names_keep_head_and_tail_and_titles_take_two_rows():
    """The PyTorch step's CUTLASS kernel (a 3,476-character name): at 160 columns the name column
    has 72 (not 48), the fix-first, roofline and table names keep their head and tail, and the
    kernel view's title is two rows at 80 columns, the full name whole on the Overview tab."""
    from rich.console import Console

    from warpscope.report.names import middle

    path = CNN_STEP / "cnn_full_details.csv.gz"
    launches = warpscope.load(path).launches
    cutlass = launches.filter(pl.col("kernel_short").str.len_chars() > 3000).row(0, named=True)
    app = _app(path)
    async with app.run_test(size=(160, 50)) as pilot:
        await _ready(pilot)
        assert app.screen.workspace.view.name_width == 72
        assert max(len(name) for name in _names(app)) == 72
        await pilot.press("x")
        await pilot.pause()
        table = app.screen.query_one("#fix-first")
        kernels = [str(table.get_row_at(r)[3]) for r in range(table.row_count)]
        assert all(len(k.split(" (")[0]) <= 60 for k in kernels)
        long = [k for k in kernels if "…" in k]
        assert long and all(k.split(" (")[0] == middle(k.split(" (")[0], 60) for k in long)
    app = _app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        app.push_screen(KernelScreen([cutlass["launch_id"]]))
        await pilot.pause()
        title = app.screen.query_one("#kernel-title", Static)
        sink = Console(width=78, color_system=None, record=True)
        sink.print(title.content)
        rows = sink.export_text().rstrip("\n").split("\n")
        assert len(rows) == 2 and rows[0].startswith("1 launch · cutlass__5x_cudnn::Kernel<")
        assert rows[0].endswith(cutlass["kernel_short"][-20:]) and "…" in rows[0]
        assert (
            _text(app.screen.query_one("#overview-text", Static))
            .replace("\n", "")
            .count(cutlass["kernel"][-40:])
            == 1
        )


def test_occupancy_tab_gives_the_block_limits_the_cli_gives():
    """matmulTiled<16, 0> on the H100 (sm_90, 256 threads, 32 registers, 2 KB static shared, one
    barrier): the tab's named-barrier limit is the calculator's 64 (64 barriers per SM, one per
    block), as `warpscope occupancy` prints it, not Nsight Compute's 32 (capped at the block
    slots); a kernel without barriers has no barrier limit, as the CLI says for --barriers 0."""
    import re

    from rich.console import Console

    from tests.conftest import run_cli
    from warpscope.tui.screens.kernel_tabs import occupancy

    workspace = Workspace(warpscope.load(H100 / "seed_full_raw.csv"))

    def tab(kernel: str) -> tuple[str, dict[str, float]]:
        launches = workspace.profile.launches.filter(pl.col("kernel_short") == kernel)
        detail = workspace.detail(launches["launch_id"].to_list())
        sink = Console(width=120, color_system=None, record=True)
        sink.print(occupancy(detail))
        return sink.export_text(), detail.kernel.metrics

    text, metrics = tab("matmulTiled<16, 0>")
    assert metrics["block_limit_barriers"] == 32 and metrics["barriers_per_block"] == 1  # the file's
    args = ["--arch", "sm_90", "--block-size", "256", "--registers", "32", "--static-smem", "2048"]
    cli = run_cli("occupancy", *args, "--barriers", "1").stdout
    for label in ("named barriers", "registers", "warp slots", "block slots"):
        ours = re.search(rf"^{label}\s+(\d+)", text, re.M)
        theirs = re.search(rf"^\s+{label}\s+(\d+)", cli, re.M)
        assert ours and theirs and ours[1] == theirs[1], label
    assert re.search(r"^named barriers\s+64", text, re.M)
    assert "Nsight Compute caps the shared-memory and barrier limits" in " ".join(text.split())
    text, _ = tab("heavyRegisters")  # no __syncthreads: no barrier limit
    assert re.search(r"^named barriers\s+no limit", text, re.M)
    assert re.search(
        r"^\s+named barriers\s+no limit\s+no barriers",
        run_cli("occupancy", *args, "--barriers", "0").stdout,
        re.M,
    )


async def test_footer_keys_are_whole_at_80_columns_and_the_kernel_view_lists_its_tab_keys():
    """At 80 columns every footer key is whole (none runs under the command palette's), `?` help
    shows on every screen; the kernel view's footer has `1–7` and, on their tabs, `v`, `o`, `j`."""
    from textual.widgets._footer import FooterKey

    from warpscope.tui.widgets.footer import FittingFooter

    def footer(app) -> list[tuple[str, int, int]]:
        keys = app.screen.query_one(FittingFooter).query(FooterKey)
        return [(k.key_display, k.region.x, k.region.right) for k in keys]

    def check(app) -> list[str]:
        keys = footer(app)
        palette = next(x for name, x, _ in keys if name == "^p")
        assert all(right <= palette for name, _, right in keys if name != "^p"), keys
        assert "?" in [name for name, _, _ in keys]
        return [name for name, _, _ in keys]

    app = _app(H100 / "seed_full_raw.csv")
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        assert check(app)[:7] == ["⏎", "?", "s", "/", "f", "space", "l"]
        await pilot.press("enter")
        await pilot.pause()
        shown: dict[str, list[str]] = {}
        for number, tab in enumerate(TABS, 1):
            await pilot.press(str(number))
            await pilot.pause()
            shown[tab] = check(app)
        assert all(keys[:2] == ["esc", "1–7"] for keys in shown.values())
        for key, tab in (("v", "occupancy"), ("o", "source"), ("j", "findings")):
            assert [t for t, keys in shown.items() if key in keys] == [tab]
        for key in ("escape", "x", "escape", "r", "escape", "c", "escape", "w"):
            await pilot.press(key)
            await pilot.pause()
            check(app)


async def test_y_copies_the_kernel_row_as_tsv(monkeypatch):
    """`y` on the kernel table: a header line and the row, tab-separated (a spreadsheet pastes
    it as two rows), the full kernel name in the first cell, not key=value pairs."""
    from warpscope.explore.table import COLUMNS

    app = _app(H100 / "seed_full_raw.csv")
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(160, 40)) as pilot:
        await _ready(pilot)
        await pilot.press("y")
        await pilot.pause()
    (text,) = copied
    header, row = text.rstrip("\n").split("\n")
    assert header.split("\t") == [c.label for c in COLUMNS]
    cells = row.split("\t")
    assert len(cells) == len(COLUMNS) and "=" not in row
    first = app.workspace.profile.launches.sort("duration_ns", descending=True)["kernel"][0]
    assert cells[0] == first


async def test_every_title_takes_two_rows_at_most_at_80_columns():
    """The PyTorch step's raw and details pages (long file names, CUTLASS names of thousands of
    characters): at 80 columns the title of the kernel table, the kernel view, fix first, the
    roofline, the whole run and compare's pair view is one or two rows."""
    path = [CNN_STEP / "cnn_full_raw_base.csv.gz", CNN_STEP / "cnn_full_details.csv.gz"]
    cutlass = warpscope.load(path[1]).launches.filter(pl.col("kernel_short").str.len_chars() > 3000)[
        "launch_id"
    ][0]
    app = _app(*path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _ready(pilot)
        heights = {"table": app.screen.query_one("#title").region.height}
        app.push_screen(KernelScreen([cutlass]))
        await pilot.pause()
        heights["kernel"] = app.screen.query_one("#kernel-title").region.height
        for key, title in (("x", "#fix-first-title"), ("r", "#roofline-title"), ("w", "#run-title")):
            await pilot.press("escape", key)
            await pilot.pause()
            heights[key] = app.screen.query_one(title).region.height
    assert all(1 <= h <= 2 for h in heights.values()), heights
    assert heights["kernel"] == 2  # the short name, then the full one shortened in the middle


def test_an_ncu_rule_shows_its_speedup_type_and_its_table_lines():
    """Read with --via-ncu through ncu-report, an ncu rule's finding says whether its gain is
    local or global, and its table's rows come on lines of their own (as `y` copies it)."""
    from warpscope.importers import import_files
    from warpscope.tui.screens.kernel_tabs import finding_text

    profile = import_files([H100 / "ncurep" / "seed_full.ncu-rep.gz"], via_ncu=True)
    rows = profile.findings.filter(pl.col("origin") == "ncu").to_dicts()
    fp32 = next(f for f in rows if f["rule_id"] == "FPInstructions" and "line 30 |" in f["message"])
    text = finding_text(fp32).splitlines()
    assert "Most frequently executed non-fused FP32 instructions:" in text
    assert "Location | Source | Opcode | Executed Instructions" in text
    assert any(
        line.startswith("seedkernels.cu, line 30 | ") and line.endswith("| FADD | 32768") for line in text
    )
    assert text[-1].startswith("estimated gain: ") and text[-1].endswith((", local", ", global"))
    kinds = {finding_text(f).splitlines()[-1].rsplit(", ", 1)[-1] for f in rows if f["estimated_speedup_pct"]}
    assert {"local", "global"} <= kinds
