"""Kernel names are untrusted: stored verbatim, shown inert in every report."""

from __future__ import annotations

import json

import polars as pl

import warpscope
from tests.conftest import H100, run_cli

HOSTILE = "evil[bold red]x[/]\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u202e|`<script>`"


def test_hostile_kernel_name_is_verbatim_and_inert(tmp_path):
    data = (H100 / "seed_full_details.csv").read_text()
    data = data.replace("mathKernel1(float *)", HOSTILE.replace('"', '""'))
    path = tmp_path / "hostile.csv"
    path.write_text(data)
    profile = warpscope.load(path)
    assert profile.launches["kernel"][0] == HOSTILE
    md = run_cli("report", str(path)).stdout
    js = run_cli("report", str(path), "--format", "json").stdout
    for out in (md, js):
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert json.loads(js)["launches"][0]["kernel"] == HOSTILE
    row = next(l for l in md.splitlines() if l.startswith("| ") and "evil" in l and "×" in l)
    assert row.count(" | ") == 9  # ten columns: the name's '|' cannot add one
    assert "<script>" not in md and "\\x1b" in md


# -- every kind of hostile text, through every channel -----------------------------------------
import csv as _csv  # noqa: E402
import io as _io  # noqa: E402

import pytest  # noqa: E402

HOSTILE_KINDS = {
    "rich_markup": "[bold red]x[/][link=https://evil.example]y[/link]",
    "ansi_csi": "a\x1b[2J\x1b[31mred\x1b[0m",
    "osc": "t\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
    "c1_controls": "c1\x9b31m\x9d0;title\x9c\x85",
    "bidi_override": "abc\u202edcb\u2066x\u2069\u200f",
    "long_100kB": "k" * 100_000,
    "markdown_html": "a|b`c`<script>alert(1)</script>\n# head\r\n*x* &amp;",
}
#: characters that must never reach a terminal or a rendered page raw
_RAW = ["\x1b", "\x07", "\x9b", "\x9c", "\x9d", "\x85", "\u202e", "\u2066", "\u2069", "\u200f", "\r"]


def _hostile_export(tmp_path, text: str):
    """The real details export with launch 0's kernel name, process name and rule messages
    replaced by ``text`` (CSV-quoted as Nsight Compute writes it)."""
    rows = list(_csv.reader(_io.StringIO((H100 / "seed_full_details.csv").read_text())))
    header = rows[0]
    k, p, r = header.index("Kernel Name"), header.index("Process Name"), header.index("Rule Description")
    u, v = header.index("Metric Unit"), header.index("Metric Value")
    for row in rows[1:]:
        if row[0] != "0":
            continue
        row[k] = text
        row[p] = text
        if len(row) > r and row[r]:
            row[r] = text
        elif row[header.index("Metric Name")] == "DRAM Frequency":  # a metric's unit and text value
            row[u], row[v] = text, text
    sink = _io.StringIO()
    _csv.writer(sink, quoting=_csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path = tmp_path / "hostile.csv"
    path.write_text(sink.getvalue())
    return path


@pytest.mark.parametrize("kind", HOSTILE_KINDS)
def test_hostile_text_is_verbatim_in_the_profile_and_inert_in_reports(tmp_path, kind):
    text = HOSTILE_KINDS[kind]
    path = _hostile_export(tmp_path, text)
    profile = warpscope.load(path)
    launch = profile.launches.row(0, named=True)
    assert launch["kernel"] == text and launch["process_name"] == text
    assert text in profile.findings["message"].to_list()
    dram = profile.metrics.filter((pl.col("launch_id") == 0) & (pl.col("name") == "DRAM Frequency")).row(
        0, named=True
    )
    assert dram["unit"] == text and dram["text"] == text and dram["value"] is None
    md = run_cli("report", str(path))
    js = run_cli("report", str(path), "--format", "json")
    assert md.returncode == js.returncode == 0
    for out in (md.stdout, js.stdout):
        assert not any(ch in out for ch in _RAW), kind
    assert js.stdout.isascii() and json.loads(js.stdout)["launches"][0]["kernel"] == text
    assert "<script>" not in md.stdout
    table = md.stdout.split("## Kernels", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if not line.startswith("|---")]
    assert all(line.count(" | ") == 9 for line in rows), kind  # no '|' or newline adds a column
    # saved and reopened: still verbatim
    saved = tmp_path / "saved.parquet"
    assert run_cli("import", str(path), "-o", str(saved)).returncode == 0
    assert warpscope.load(saved).launches["kernel"][0] == text


@pytest.mark.parametrize("kind", ["ansi_csi", "osc", "c1_controls", "bidi_override", "markdown_html"])
def test_hostile_text_in_cli_messages_is_escaped(tmp_path, kind):
    text = HOSTILE_KINDS[kind].replace("\n", " ").replace("\r", " ")
    bad = tmp_path / f"bad{text[:40].replace('/', '_')}.csv"
    bad.write_text(f"not a profile {text}\n")
    out = run_cli("report", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and not any(ch in out.stderr for ch in _RAW), out.stderr


def _plain(renderable) -> str:
    from rich.console import Console

    sink = _io.StringIO()
    Console(file=sink, width=100_000, color_system=None).print(renderable)
    return " ".join(sink.getvalue().split())


@pytest.mark.parametrize("kind", HOSTILE_KINDS)
async def test_hostile_text_is_literal_in_the_tui(tmp_path, kind):
    from textual.coordinate import Coordinate
    from textual.widgets import OptionList

    from tests.conftest import settle
    from warpscope.explore.workspace import Workspace
    from warpscope.model.kernels import short_name
    from warpscope.report.escape import visible
    from warpscope.tui import WarpscopeApp
    from warpscope.tui.widgets.grid import Grid

    text = HOSTILE_KINDS[kind]
    app = WarpscopeApp(Workspace(warpscope.load(_hostile_export(tmp_path, text))))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one(Grid)
        names = [str(grid.get_cell_at(Coordinate(r, 0))) for r in range(grid.row_count)]
        shown = visible(short_name(text) or text).strip()
        # the name column may shorten it (its head kept, "…" where it was cut): still literal
        row = next(i for i, name in enumerate(names) if shown.startswith(name.strip().split("…")[0]))
        assert names[row].strip() == shown or "…" in names[row]
        screens = [app.export_screenshot()]
        grid.move_cursor(row=row, column=0)
        await pilot.press("enter")
        await pilot.pause()
        title = app.screen.query_one("#kernel-title").content
        assert visible(" ".join(text.split()))[:60] in title.plain, kind  # shown literally, on one line
        await pilot.press("7")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        prompts = " ".join(_plain(options.get_option_at_index(i).prompt) for i in range(options.option_count))
        assert visible(" ".join(text.split()))[:60] in prompts, kind  # the ncu rule message
        screens.append(app.export_screenshot())
    for svg in screens:
        assert not any(ch in svg for ch in _RAW), kind


def test_a_100_kb_kernel_name_costs_the_report_and_the_table_no_more_than_a_normal_one(tmp_path):
    """The seed export with one kernel named in 100 kB, against the same export as it is: the
    markdown report and the kernel table's rows within 1.5x (and 0.5 s) of the normal name's."""
    import time

    from warpscope.analysis import analyze
    from warpscope.explore.workspace import Workspace
    from warpscope.report.markdown import render

    def cost(path) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        profile = analyze(warpscope.load(path))
        start = time.perf_counter()
        render(profile)
        report = time.perf_counter() - start
        ws = Workspace(profile)
        ws.view.name_width = 48
        start = time.perf_counter()
        ws.view.rows()
        ws.view.mode = "launches"
        ws.view.rows()
        return report, time.perf_counter() - start

    normal = tmp_path / "normal"
    normal.mkdir()
    plain = [
        min(cost(_hostile_export(normal, "heavyRegisters(const float *, float *, int)"))) for _ in range(2)
    ]
    long = [min(cost(_hostile_export(tmp_path, HOSTILE_KINDS["long_100kB"]))) for _ in range(2)]
    assert min(long) <= 1.5 * min(plain) + 0.5, (long, plain)


async def test_the_ui_opens_a_100_kb_kernel_name_enter_opens_it_and_q_quits(tmp_path):
    from textual.widgets import Static

    from tests.conftest import settle
    from warpscope.explore.workspace import Workspace
    from warpscope.tui import WarpscopeApp
    from warpscope.tui.screens.kernel import KernelScreen
    from warpscope.tui.widgets.grid import Grid

    profile = warpscope.load(_hostile_export(tmp_path, HOSTILE_KINDS["long_100kB"]))
    app = WarpscopeApp(Workspace(profile))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = app.screen.query_one(Grid)
        from textual.coordinate import Coordinate

        rows = [str(grid.get_cell_at(Coordinate(r, 0))) for r in range(grid.row_count)]
        row = next(i for i, name in enumerate(rows) if name.strip().startswith("kkkk"))
        grid.move_cursor(row=row, column=0)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, KernelScreen)
        title = app.screen.query_one("#kernel-title", Static)
        assert title.size.height <= 2
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running
