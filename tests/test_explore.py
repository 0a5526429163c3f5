"""The TUI's headless core: kernel table, filters, kernel detail, compare, timeline, glossary."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpscope.analysis import analyze
from warpscope.explore.compare import compare, split_by_source
from warpscope.explore.glossary import entries, lookup
from warpscope.explore.kernel import kernel_detail
from warpscope.explore.query import compile_filter
from warpscope.explore.table import COLUMNS, KernelTable
from warpscope.explore.timeline import NONE, STATES, Timeline
from warpscope.explore.view import TableView
from warpscope.explore.workspace import Workspace
from warpscope.model.catalog import CATALOG
from warpscope.model.profile import Profile
from warpscope.report.kernels import kernels


@pytest.fixture(scope="module")
def analysed(seed_raw):
    return analyze(seed_raw)


def test_kernel_rows_agree_with_the_report_for_every_kernel(analysed):
    table = KernelTable.of(analysed).with_findings(analysed.findings)
    rows = {r["launch_id"]: r for r in table.kernels().iter_rows(named=True)}
    groups = kernels(analysed)
    assert len(rows) == len(groups) == 22
    for k in groups:
        row = rows[k.launch_ids[0]]
        assert row["kernel_short"] == k.kernel_short
        assert row["duration_ns"] == pytest.approx(k.total_ns)
        assert row["time_share_pct"] == pytest.approx(k.time_share_pct)
        for metric in (
            "theoretical_occupancy_pct",
            "achieved_occupancy_pct",
            "warp_execution_efficiency_pct",
            "global_load_sectors_per_request",
        ):
            assert row[metric] == pytest.approx(k.metrics.get(metric), nan_ok=True), (k.kernel_short, metric)
        conflicts = [k.metrics.get(f"shared_{op}_bank_conflicts") for op in ("load", "store")]
        assert row["bank_conflicts"] == pytest.approx(sum(c or 0 for c in conflicts))
        top = k.view.top_stalls(1)
        assert row["top_stall"] == (top[0][0] if top else None)
        worst = k.worst
        assert (row["worst_finding"] is None) == (worst is None)
        if worst is not None and worst["origin"] == "warpscope":
            assert row["worst_finding"] == worst["title"]


def test_sort_by_every_column_and_reverse(seed_raw):
    view = TableView(KernelTable.of(seed_raw))
    display, _keys = view.rows()
    durations = display["Time µs"].to_list()
    assert durations == sorted(durations, reverse=True)
    for column in COLUMNS:
        view.sort_by(column.id)
        first, _ = view.rows()
        view.sort_by(column.id)
        second, _ = view.rows()
        assert first.height == second.height == 22
        values = [v for v in first[column.label].to_list() if v is not None]
        if column.numeric and column.id != "worst_finding":
            assert values == sorted(values, reverse=view.descending is False), column.id


@pytest.mark.parametrize("mode", ["kernels", "launches"])
def test_grid_and_block_sort_by_size_not_text(seed_raw, mode):
    """16384×1×1 is the largest grid of the seed run, not the smallest (as text it sorts first)."""
    view = TableView(KernelTable.of(seed_raw))
    view.mode = mode
    for column, label in (("grid", "Grid"), ("block", "Block")):
        view.sort_by(column)  # names and shapes sort ascending first
        display, _ = view.rows()
        sizes = [math.prod(int(d) for d in text.split("×")) for text in display[label].to_list() if text]
        assert sizes == sorted(sizes) and len(set(sizes)) > 2, (column, display[label].to_list())


def test_name_filter_and_expression_filter(seed_raw):
    view = TableView(KernelTable.of(seed_raw))
    view.name_filter = "REDUCE"
    display, _ = view.rows()
    assert sorted(display["Kernel"].str.strip_chars().to_list()) == [
        "reduceInterleaved",
        "reduceSequential",
        "reduceShuffle",
        "reduceSingleThread",
        "reduceStridedIndex",
    ]
    view.name_filter = ""
    view.set_expression("theoretical_occupancy_pct < 80")
    display, _ = view.rows()
    low = seed_raw.metrics.filter((pl.col("metric") == "theoretical_occupancy_pct") & (pl.col("value") < 80))
    expected = seed_raw.launches.filter(pl.col("launch_id").is_in(low["launch_id"].to_list()))["kernel_short"]
    assert sorted(display["Kernel"].str.strip_chars().to_list()) == sorted(expected.to_list())
    assert {"bigShared", "heavyRegisters", "tinyBlocks"} <= set(expected.to_list())
    # a metric the table does not show is joined on demand
    view.set_expression("registers_per_thread >= 40 or (waves_per_sm > 30 and not kernel ~ math)")
    names = set(view.rows()[0]["Kernel"].str.strip_chars().to_list())
    waves = {
        r["kernel_short"]
        for r in seed_raw.launches.join(
            seed_raw.metrics.filter(pl.col("metric") == "waves_per_sm"), on="launch_id"
        ).iter_rows(named=True)
        if r["value"] > 30 and "math" not in r["kernel_short"].lower()
    }
    assert names == waves | {"heavyRegisters"}


def test_filter_by_the_names_the_file_exported(seed_raw):
    """Any Nsight Compute metric name of the file filters, in base units: an unmapped raw
    column (Mbyte in this export) and a mapped one, against the CSV's own cells."""
    from tests.conftest import H100
    from tests.reference import rows
    from warpscope.model.units import to_base

    header, units, *data = rows(H100 / "seed_full_raw.csv")
    col = header.index("dram__bytes_read.sum")
    factor = to_base(units[col])[0]
    assert units[col] == "Mbyte" and factor == 1e6
    expected = {r[header.index("Kernel Name")].split("(")[0] for r in data if float(r[col]) * factor > 2e6}
    assert 0 < len(expected) < 22
    view = TableView(KernelTable.of(seed_raw))
    view.set_expression("dram__bytes_read.sum > 2e6")
    shown = {k.strip() for k in view.rows()[0]["Kernel"].to_list()}
    short = dict(
        zip(seed_raw.launches["kernel"].str.split("(").list.first(), seed_raw.launches["kernel_short"])
    )
    assert shown == {short[k] for k in expected}
    view.set_expression(
        "launch__registers_per_thread == 40 and smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio >= 0"
    )
    assert [k.strip() for k in view.rows()[0]["Kernel"].to_list()] == ["heavyRegisters"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("foo < 3", "unknown name 'foo'"),
        ("dram__bytes_read.summ > 3", "unknown name 'dram__bytes_read.summ'"),
        ("achieved_occupancy_pct <", "ends early"),
        ("achieved_occupancy_pct ~ 3", "is a number"),
        ("kernel < 3", "is text"),
        ("achieved_occupancy_pct < 3 )", "unexpected ')'"),
        ("__import__('os')", "expected a comparison at column 11"),
    ],
)
def test_bad_expressions_say_what_is_wrong(seed_raw, text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_filter(text, KernelTable.of(seed_raw))


def test_expanding_a_kernel_lists_its_launches_under_it(seed_raw):
    two = Profile.concat([seed_raw, seed_raw])
    view = TableView(KernelTable.of(two))
    display, keys = view.rows()
    assert display.height == 22 and display["Runs"].to_list() == [2] * 22
    group = int(keys["group"][0])
    view.toggle(group)
    display, keys = view.rows()
    children = keys.filter(~pl.col("is_kernel"))
    assert children["group"].to_list() == [group] * children.height
    assert children.height == KernelTable.of(two).launches.filter(pl.col("group") == group).height
    first_child = keys["is_kernel"].to_list().index(False)
    assert keys["group"][first_child - 1] == group  # right under its kernel
    view.mode = "launches"
    assert view.rows()[0].height == two.launches.height


def test_kernel_detail_has_what_every_tab_needs(analysed):
    heavy = analysed.launches.filter(pl.col("kernel_short") == "heavyRegisters")["launch_id"].to_list()
    d = kernel_detail(analysed, heavy)
    assert d.occupancy is not None and d.occupancy.limiter == "registers"
    assert d.occupancy.active_blocks_per_sm == 6  # docs/checklist.md, seed errata: 6 blocks, 75%
    assert any("40 -> 32 registers" in c.text for c in d.what_if)
    assert d.sweep("registers").filter(pl.col("current"))["occupancy_pct"].to_list() == [75.0]
    assert d.stall_shares["share_pct"].sum() == pytest.approx(100.0)
    assert d.kernel.findings


def test_source_hot_spots_hottest_first(seed_details):
    import warpscope
    from tests.conftest import H100

    profile = warpscope.load(H100 / "seed_source_cuda_sass.csv")
    d = kernel_detail(analyze(profile), [0])
    hot = d.source.columns[4]
    assert hot == "Warp Stall Sampling (All Samples)"
    values = d.source[hot].drop_nulls().to_list()
    assert values == sorted(values, reverse=True) and values[0] > 0


def test_compare_two_files_matches_kernels_and_flags_changes(seed_raw, seed_details):
    base, new = analyze(seed_raw), analyze(seed_details)
    frame = compare(base, new)
    matched = frame.filter(pl.col("base_launch").is_not_null() & pl.col("new_launch").is_not_null())
    assert matched.height == 22
    for row in matched.iter_rows(named=True):
        b, n = row["duration_ns.base"], row["duration_ns.new"]
        change = (n - b) / b * 100
        assert row["duration_change_pct"] == pytest.approx(change)
        assert row["verdict"] == ("slower" if change > 5 else "faster" if change < -5 else "same")
    verdicts = frame["verdict"].to_list()
    assert verdicts == sorted(verdicts, key=["slower", "only in base", "only in new", "same", "faster"].index)
    both = Workspace(Profile.concat([seed_raw, seed_details]))
    assert both.can_compare() and split_by_source(both.profile) is not None
    assert both.comparison()[2].height == 22


def test_timeline_cells_and_warp_breakdown(emulated_seed):
    _, profile = emulated_seed
    lid = profile.launches.filter(pl.col("kernel_short") == "reduceInterleaved")["launch_id"][0]
    frame = profile.timeline.filter(pl.col("launch_id") == lid)
    tl = Timeline(frame)
    assert tl.cycles == frame["end_cycle"].max() and tl.rows
    run = frame.sort("start_cycle").row(0, named=True)
    row = next(i for i, r in enumerate(tl.rows) if (r.sm, r.slot) == (run["sm"], run["warp_slot"]))
    cells = tl.cells(row, run["start_cycle"], 1, run["end_cycle"] - run["start_cycle"])
    assert set(cells.tolist()) == {STATES.index(run["state"])}
    assert tl.cells(row, tl.cycles + 10, 1, 5).tolist() == [NONE] * 5
    block, warp, state = tl.warp_at(row, run["start_cycle"])
    assert (block, warp, state) == (run["block"], run["warp"], run["state"])
    shares = tl.breakdown(block, warp)
    mine = frame.filter((pl.col("block") == block) & (pl.col("warp") == warp))
    assert shares["cycles"].sum() == (mine["end_cycle"] - mine["start_cycle"]).sum()
    assert math.isclose(shares["share_pct"].sum(), 100.0)


def test_glossary_explains_every_metric_and_stall():
    ids = {e.id for e in entries()}
    assert {m.id for m in CATALOG} <= ids
    for reason in STATES[1:]:
        entry = lookup(reason)
        assert entry is not None and entry.kind == "stall" and entry.definition and entry.ncu
    assert lookup("stall_memory_dependency") is None
    assert "stall_memory_dependency" in lookup("long_scoreboard").nvprof
    assert lookup("registers").kind == "limiter"


def test_exported_names_give_one_value_per_launch_when_units_repeat(seed_raw):
    """Several processes in one file repeat the raw page's units row: still one value a launch."""
    from warpscope.explore.stated import StatedMetrics

    stated = StatedMetrics(
        seed_raw.metrics,
        seed_raw,
        pl.concat([seed_raw.raw_units] * 2),
        seed_raw.launches.select("launch_id", "source_file"),
    )
    values = stated.values("dram__bytes_read.sum")
    assert values.height == 22 and values["launch_id"].is_unique().all()


def test_time_shares_are_per_file_when_several_are_open(seed_raw, emulated_seed):
    """The H100 export and its emulation open together: each file's kernels share 100% of that
    file's time (pooled, the H100's 22 kernels read as a fraction of an emulated run's time)."""
    _, emulated = emulated_seed
    ws = Workspace(Profile.concat([seed_raw, emulated]))
    for mode in ("kernels", "launches"):
        ws.view.mode = mode
        display, keys = ws.view.rows()
        files = ws.table.launches.select("launch_id", "source_file")
        rows = keys.with_columns(display["Time%"]).join(files, on="launch_id", how="left")
        sums = rows.group_by("source_file").agg(pl.col("Time%").sum())["Time%"].to_list()
        assert len(sums) == 2 and all(abs(s - 100) < 0.5 for s in sums), (mode, sums)
        # asked for (`%`), one 100% over both files: each file's share is its part of the total
        ws.view.pooled = True
        display, keys = ws.view.rows()
        rows = keys.with_columns(display["Time%"]).join(files, on="launch_id", how="left")
        pooled = dict(rows.group_by("source_file").agg(pl.col("Time%").sum()).iter_rows())
        time = dict(ws.table.launches.group_by("source_file").agg(pl.col("duration_ns").sum()).iter_rows())
        assert abs(sum(pooled.values()) - 100) < 0.5, (mode, pooled)
        for name, share in pooled.items():
            assert share == pytest.approx(100 * time[name] / sum(time.values()), abs=0.5)
        ws.view.pooled = False


def test_source_listing_each_instruction_once_in_source_order():
    """The CUDA+SASS source page prints each instruction block twice, with "..." gap rows:
    the listing has each once (their executed instructions add up to their lines' again, where
    the page as printed counts twice), lines in source order with their instructions under them,
    hottest-first ranks the lines, and a bank-conflict finding points at the transposed read."""
    import warpscope
    from tests.conftest import H100
    from warpscope.explore.source_view import SourceListing

    page = warpscope.load(H100 / "seed_source_cuda_sass.csv")
    listing = SourceListing.of(page.subset([0]).source)
    rows, executed = listing.rows, "Instructions Executed"
    sass = rows.filter(pl.col("kind") == "sass")
    assert sass["address"].is_unique().all() and not rows["code"].str.strip_chars().eq("...").any()
    lines = rows.filter(pl.col("kind") == "line")
    assert lines["line"].to_list() == [64, 66, 67, 68, 69, 70, 71]  # as the page lists them
    assert sass[executed].sum() == lines[executed].sum()
    printed = page.source.filter(
        pl.col("launch_id") == 0, pl.col("counter") == executed, pl.col("address").is_not_null()
    )
    assert (
        printed.filter(pl.col("code").str.strip_chars() != "...")["value"].sum() == 2 * sass[executed].sum()
    )
    # source order: the page's order, each instruction after the line it is listed under
    assert rows["order"].to_list() == list(range(rows.height)) and rows["kind"][0] == "line"
    hottest = listing.ordered("hottest")
    assert set(hottest["kind"]) == {"line"}
    assert hottest[listing.hot].to_list() == sorted(hottest[listing.hot].to_list(), reverse=True)
    order, counter = listing.worst("bank_conflicts")
    worst = rows.row(order, named=True)
    assert counter == "L1 Wavefronts Shared Excessive" and worst["line"] == 70
    assert worst[counter] == lines[counter].max() > 0
    table = listing.table("source")
    assert table.columns[:3] == ["line", "addr", "code"] and table.height == rows.height
    assert table.filter(pl.col("line") == "")["code"].str.starts_with("  ").all()  # under their line


def test_source_listing_points_emulated_findings_at_their_lines(emulated_seed):
    """On the emulator's listing: the bank-conflict finding of the unpadded transpose points at
    the transposed shared read, the divergence finding of withDivergence at its branch, the
    coalescing finding of the strided copy at its strided load."""
    from warpscope.explore.source_view import SourceListing

    _, profile = emulated_seed
    profile = analyze(profile)

    def pointed(kernel: str, category: str) -> str:
        ids = profile.launches.filter(pl.col("kernel_short") == kernel)["launch_id"].to_list()
        assert profile.findings.filter(pl.col("launch_id").is_in(ids), pl.col("category") == category).height
        listing = SourceListing.of(profile.subset(ids[:1]).source)
        order, _ = listing.worst(category)
        return listing.rows["code"][order].strip()

    assert pointed("transposeShared<0>", "bank_conflicts").startswith("out[")  # out[...] = tile[x][y]
    assert pointed("withDivergence", "divergence").startswith("if v >")
    assert "stride" in pointed("copyStrided", "coalescing")


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e18, max_value=1e18))
def test_compact_counts_are_short_and_never_scientific(value):
    from warpscope.explore.source_view import compact

    text = compact(value)
    assert "e" not in text and len(text) <= 7  # a sign and six characters


def test_source_listing_of_a_report_nests_instructions_under_their_cuda_line():
    """A .ncu-rep made with --import-source yes: each CUDA line once with its text, its
    instructions (each once, with ncu-report's SASS text) under it, in line order; the
    bank-conflict finding at line 70 as on the CSV source page."""
    import warpscope
    from tests.conftest import H100
    from warpscope.explore.source_view import SourceListing

    report = warpscope.load(H100 / "ncurep" / "seed_full.ncu-rep.gz")
    ids = report.launches.filter(pl.col("kernel_short") == "transposeShared<0>")["launch_id"].to_list()
    source = report.subset(ids).source
    listing = SourceListing.of(source)
    rows = listing.rows
    sass = rows.filter(pl.col("kind") == "sass")
    lines = rows.filter(pl.col("kind") == "line")
    assert sass.height == source["address"].drop_nulls().n_unique() > 0 and sass["address"].is_unique().all()
    assert lines["line"].is_unique().all() and lines["code"].is_not_null().all()
    assert sass["code"].is_not_null().all()
    assert rows["line"].to_list() == sorted(rows["line"].to_list())
    # each line's row comes first, then its instructions
    assert rows.group_by("line", maintain_order=True).agg(pl.col("kind").first())["kind"].eq("line").all()
    order, counter = listing.worst("bank_conflicts")
    assert counter == "L1 Wavefronts Shared Excessive" and rows["line"][order] == 70
    assert rows["kind"][order] == "line" and "tile" in rows["code"][order]


def test_source_table_shows_file_text_literally():
    """Source text is file content: control and bidi characters in it are shown as escapes."""
    import warpscope
    from tests.conftest import H100
    from warpscope.explore.source_view import SourceListing

    page = warpscope.load(H100 / "seed_source_cuda_sass.csv").subset([0]).source
    hostile = page.with_columns(
        pl.when(pl.col("line") == 70)
        .then(pl.lit("out[0] = 1;\x1b]52;c;aGk=\x07 \u202e"))
        .otherwise(pl.col("code"))
        .alias("code")
    )
    table = SourceListing.of(hostile).table("source")
    shown = table.filter(pl.col("line") == "70")["code"][0]
    assert "\x1b" not in shown and "\u202e" not in shown and "\\x1b" in shown


def test_worst_finding_ranks_severity_then_gain_and_names_the_rule_shortly():
    """The PyTorch step's first kernel (cuDNN's bn_bw, 32 blocks on 132 SMs): Nsight Compute's
    MemoryCacheAccessPattern rule is 'low' but estimates a 0.0x% gain, so it ranks as info and
    does not hide the findings worth 75-96%; every worst finding reads as a short title (an ncu
    rule by its name, never its paragraph), and none of a launch's findings outranks it."""
    import warpscope
    from tests.conftest import CNN_STEP
    from warpscope.analysis import SEVERITY_RANK
    from warpscope.report.kernel_groups import NEGLIGIBLE_GAIN_PCT

    profile = analyze(warpscope.load(CNN_STEP / "cnn_full_details.csv.gz"))
    frame = KernelTable.of(profile).with_findings(profile.findings).launches
    first = profile.launches.sort("duration_ns", descending=True).row(0, named=True)
    assert first["kernel_short"] == "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, 1, 1>"
    found = profile.findings.filter(pl.col("launch_id") == first["launch_id"])
    cache = found.filter(pl.col("rule_id") == "MemoryCacheAccessPattern").row(0, named=True)
    assert cache["severity"] == "low" and cache["estimated_speedup_pct"] < 0.5
    worst = frame.filter(pl.col("launch_id") == first["launch_id"])["worst_finding"][0]
    # low: the SMs it leaves idle, an opportunity through the call (channels_last, batch, fusion)
    assert worst == "grid smaller than the SM count"

    def key(f: dict) -> tuple[int, float]:
        negligible = f["origin"] != "warpscope" and (f["estimated_speedup_pct"] or 0) < NEGLIGIBLE_GAIN_PCT
        severity = "info" if negligible and f["estimated_speedup_pct"] is not None else f["severity"]
        return SEVERITY_RANK[severity], -round(f["estimated_speedup_pct"] or 0.0, 2)

    shown = profile.findings.filter(pl.col("covered_by").is_null() & pl.col("launch_id").is_not_null())
    for launch_id, text in frame.select("launch_id", "worst_finding").iter_rows():
        if text is None:
            continue
        rows = shown.filter(pl.col("launch_id") == launch_id).to_dicts()
        best = min(key(f) for f in rows)
        titles = [
            (f["origin"] + ": " if f["origin"] != "warpscope" else "") + (f["title"] or f["rule_id"])
            for f in rows
            if key(f) == best
        ]
        assert text in titles, (launch_id, text, titles)
        assert len(text) <= 80


def test_source_listing_of_a_report_names_a_headers_lines():
    """reduceShuffle inlines __shfl_down_sync from CUDA's sm_30_intrinsics.hpp: its lines come
    after the kernel's own file's, and say their file (a line number alone would point into the
    kernel's file)."""
    import warpscope
    from tests.conftest import H100
    from warpscope.explore.source_view import SourceListing

    report = warpscope.load(H100 / "ncurep" / "seed_full.ncu-rep.gz")
    ids = report.launches.filter(pl.col("kernel_short") == "reduceShuffle")["launch_id"].to_list()
    table = SourceListing.of(report.subset(ids).source).table("source")
    lines = table.filter(pl.col("addr") == "")
    assert lines["line"].to_list() == ["121", "122", "123", "124", "125", "126", "440"]
    assert lines["code"][-1].startswith("sm_30_intrinsics.hpp: ret = __nvvm_shfl_down_sync(")
    assert not any(c.startswith("seedkernels.cu") for c in lines["code"])
    shuffles = table.filter(pl.col("code").str.contains("SHFL.DOWN"))
    assert shuffles.height == 5 and (shuffles["line"] == "440").all()


def test_launches_that_arrive_while_the_rules_run_are_kept_and_analysed_next(seed_raw):
    """The demo's emulated launches can arrive while the first analysis still runs (in a thread):
    that analysis's result is dropped, never written over the table that has them, and the next
    analysis covers every launch."""
    import warpscope
    from tests.conftest import H100

    workspace = Workspace(seed_raw)
    more = warpscope.load(H100 / "seed_full_raw.csv")
    arrived = []

    def give_way() -> None:  # called between launches: the launches arrive mid-analysis
        if not arrived:
            arrived.append(True)
            workspace.add(more)

    workspace.analyse(give_way)
    everything = seed_raw.launches.height + more.launches.height
    assert arrived and not workspace.analysed
    assert workspace.table.launches.height == everything
    workspace.analyse()
    assert workspace.analysed and workspace.table.launches.height == everything
    analysed_launches = workspace.profile.findings["launch_id"].drop_nulls().n_unique()
    assert analysed_launches > seed_raw.launches.height  # the arrived launches have findings too
