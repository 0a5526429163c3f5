"""Every canonical value the importer stores equals the file's own cell, unit-converted,
for every seed kernel, on both the raw and the details page (and their variants)."""

from __future__ import annotations

import math

import polars as pl
import pytest

import warpscope
from tests.conftest import H100
from tests.reference import details_expectations, raw_expectations
from warpscope.model.values import canonical_values


def _stored(profile) -> dict[tuple[int, str], float]:
    values = canonical_values(profile)
    return {(lid, metric): v for lid, ms in values.items() for metric, v in ms.items()}


def _assert_match(expected, stored):
    assert expected, "the reference found no values"
    missing = [k for k in expected if k not in stored]
    assert not missing, f"canonical values not imported: {missing[:10]}"
    wrong = [
        (k, expected[k], stored[k])
        for k in expected
        if not math.isclose(expected[k], stored[k], rel_tol=1e-12, abs_tol=1e-12)
    ]
    assert not wrong, f"values differ from the file: {wrong[:10]}"


@pytest.mark.parametrize(
    "name", ["seed_full_raw.csv", "seed_raw_base.csv", "seed_raw_auto.csv", "seed_sass_counters_raw.csv"]
)
def test_raw_page_values_equal_file(name):
    profile = warpscope.load(H100 / name)
    assert profile.launches.height == 22
    _assert_match(raw_expectations(H100 / name), _stored(profile))


@pytest.mark.parametrize("name", ["seed_full_details.csv", "seed_details_all.csv.gz"])
def test_details_page_values_equal_file(name):
    profile = warpscope.load(H100 / name)
    assert profile.launches.height == 22
    _assert_match(details_expectations(H100 / name), _stored(profile))


def test_known_seed_facts(seed_raw, seed_details):
    """The seed errata (docs/checklist.md) and the issue's facts, from both pages."""
    for profile in (seed_raw, seed_details):
        launches = profile.launches.sort("launch_id")
        regs = dict(zip(launches["kernel_short"], launches["registers_per_thread"]))
        assert regs.pop("heavyRegisters") == 40
        assert regs.pop("copyStrided") == 18 and regs.pop("matmulNaive") == 32
        values = canonical_values(profile)
        occ = {
            k: values[lid]["theoretical_occupancy_pct"]
            for lid, k in zip(launches["launch_id"], launches["kernel_short"])
        }
        assert (occ["heavyRegisters"], occ["bigShared"], occ["tinyBlocks"]) == (75, 25, 50)
        heavy = values[launches.filter(pl.col("kernel_short") == "heavyRegisters")["launch_id"][0]]
        assert heavy["block_limit_registers"] == 6  # the seed notes' 79.7% is wrong: 6 x 8 warps = 75%


def test_units_auto_and_base_agree():
    """One report printed with --print-units auto and base gives the same numbers
    (each to its printing precision: base prints 2 decimals, auto 6, scaled rates 3 digits)."""
    base = _stored(warpscope.load(H100 / "seed_raw_base.csv"))
    auto = _stored(warpscope.load(H100 / "seed_raw_auto.csv"))
    assert base.keys() == auto.keys()
    # flop counts are rates x cycles where the page exports only rates: as precise as the
    # printed rate (base units print 2 decimals: vecAddTail's 0.05 inst/cycle gives 983 flop
    # for 1000; auto prints 6 digits and gives 1000)
    from_rates = {
        "fp32_flop",
        "fp64_flop",
        "fp16_flop",
        "flop",
        "achieved_flop_per_s",
        "arithmetic_intensity_dram",
    }
    off = [
        (k, base[k], auto[k])
        for k in base
        if not math.isclose(base[k], auto[k], rel_tol=2e-3, abs_tol=0.0051) and k[1] not in from_rates
    ]
    assert not off, off[:10]
    rough = [
        (k, base[k], auto[k])
        for k in base
        if k[1] in from_rates and not math.isclose(base[k], auto[k], rel_tol=0.03, abs_tol=0.0051)
    ]
    assert not rough, rough[:10]


def test_text_output_equals_csv_of_same_report():
    """The plain-text output and the CSV export of one report import identically."""
    csv_values = _stored(warpscope.load(H100 / "seed_details_all.csv.gz"))
    text_values = _stored(warpscope.load(H100 / "seed_details_all.txt.gz"))
    assert len(csv_values) > 1000
    assert csv_values == text_values


def test_details_and_raw_of_same_report_agree():
    """Labels (details, 2 decimals) and internal names (raw, 6 decimals) of one report."""
    details = _stored(warpscope.load(H100 / "seed_details_names.csv"))
    labels = _stored(warpscope.load(H100 / "seed_details_all.csv.gz"))
    raw = _stored(warpscope.load(H100 / "seed_raw_base.csv"))
    shared = [k for k in labels if k in raw]
    assert len(shared) > 500
    for key in shared:
        assert math.isclose(labels[key], raw[key], rel_tol=0.01, abs_tol=0.01), (key, labels[key], raw[key])
    assert {k for k in details if k in raw}


def test_stall_reasons(seed_raw):
    stalls = seed_raw.stalls
    assert stalls.group_by("launch_id").len()["len"].to_list() == [19] * 22
    heavy = seed_raw.launches.filter(pl.col("kernel_short") == "heavyRegisters")["launch_id"][0]
    row = stalls.filter(pl.col("launch_id") == heavy, pl.col("reason") == "dispatch_stall")
    assert row["cycles_per_issue"][0] == pytest.approx(2.367536)
    shares = stalls.group_by("launch_id").agg(pl.col("share_pct").sum())["share_pct"]
    assert all(s == pytest.approx(100.0) for s in shares)


def test_details_all_stalls_equal_raw():
    """Per-reason stall tables of --print-details all equal the raw page of the same report."""
    labelled = warpscope.load(H100 / "seed_details_all.csv.gz").stalls
    raw = warpscope.load(H100 / "seed_raw_base.csv").stalls
    joined = labelled.join(raw, on=["launch_id", "reason"], suffix="_raw")
    assert joined.height == 22 * 19
    assert (joined["cycles_per_issue"] - joined["cycles_per_issue_raw"]).abs().max() <= 0.0051


def test_derived_sectors_per_request(seed_raw):
    values = canonical_values(seed_raw)
    by_name = dict(zip(seed_raw.launches["kernel_short"], seed_raw.launches["launch_id"]))
    strided = values[by_name["copyStrided"]]
    assert strided["global_load_sectors_per_request"] == 32.0  # stride 32 floats: one sector per lane
    assert values[by_name["saxpyCoalesced"]]["global_load_sectors_per_request"] == 4.0
    # no global loads at all: the ratio is absent, never 0
    assert "global_load_sectors_per_request" not in values[by_name["mathKernel1"]]


def test_details_divergent_branches_derived(seed_details, seed_raw):
    d = canonical_values(seed_details)
    r = canonical_values(seed_raw)
    wd = 2  # withDivergence
    assert r[wd]["divergent_branches"] == 32768
    assert d[wd]["divergent_branches"] == 32768  # 62.06 per SMSP x 132 SMs x 4


def test_summary_pages(seed_raw):
    profile = warpscope.load(H100 / "seed_summary_per_kernel.csv")
    assert profile.launches.height == 22
    assert set(profile.metrics["stat"].drop_nulls().unique().to_list()) == {"min", "max", "avg"}
    assert profile.launches["invocations"].to_list() == [1] * 22
    values = canonical_values(profile)
    names = dict(zip(profile.launches["launch_id"], profile.launches["kernel_short"]))
    occ = {names[k]: v["theoretical_occupancy_pct"] for k, v in values.items()}
    assert occ["heavyRegisters"] == 75 and occ["bigShared"] == 25
    per_gpu = warpscope.load(H100 / "seed_summary_per_gpu.csv")
    assert canonical_values(per_gpu) == values


def test_source_pages():
    sass = warpscope.load(H100 / "seed_source_sass.csv.gz")
    assert sass.launches.height == 22
    assert sass.sources["rows_in"][0] == sass.sources["rows_imported"][0]
    conflicts = sass.source.filter(
        pl.col("counter") == "L1 Conflicts Shared N-Way", pl.col("code").str.contains("LDS")
    )
    by_kernel = dict(zip(sass.launches["launch_id"], sass.launches["kernel_short"]))
    worst = {
        by_kernel[lid]: v for lid, v in conflicts.group_by("launch_id").agg(pl.col("value").max()).iter_rows()
    }
    assert worst["transposeShared<0>"] == 32 and worst["transposeShared<1>"] == 1  # the padding fixes it
    cuda = warpscope.load(H100 / "seed_source_cuda_sass.csv")
    assert cuda.launches["kernel_short"].to_list() == ["transposeShared<0>", "transposeShared<1>"]
    assert cuda.source.filter(pl.col("line") == 70).height > 0


def test_source_page_template_names_match_the_other_pages():
    from warpscope.importers.pages import kernel_key

    for listed, named in [
        (
            "void transposeShared<(int)0>(float *, const float *, int, int)",
            "void transposeShared<0>(float *, const float *, int, int)",
        ),
        (
            "void matmulTiled<(int)32, (int)1>(const float *, const float *, float *, int)",
            "void matmulTiled<32, 1>(const float *, const float *, float *, int)",
        ),
        ("void k<(unsigned int)4, (long)-1, (bool)1>(int)", "void k<4, -1, 1>(int)"),
    ]:
        assert kernel_key(listed) == kernel_key(named)
    assert kernel_key("f(float *)") != kernel_key("f(int *)")


def test_source_page_attached_to_the_launches_it_lists(tmp_path):
    """A source page opened beside the raw page of the same report: its listings go to the
    launches they were taken from (no launch of dashes), every per-line row kept; a listing
    no launch matches stays a launch of its own, and the file row says what moved."""
    from warpscope.importers import import_files

    alone = warpscope.load(H100 / "seed_source_cuda_sass.csv")
    both = import_files([H100 / "seed_full_raw.csv", H100 / "seed_source_cuda_sass.csv"])
    assert both.launches.height == 22 and both.launches["duration_ns"].null_count() == 0
    names = both.launches.select("launch_id", "kernel_short")
    got = both.source.join(names, on="launch_id").drop("launch_id")
    want = alone.source.join(alone.launches.select("launch_id", "kernel_short"), on="launch_id").drop(
        "launch_id"
    )
    assert got.sort(pl.all()).equals(want.sort(pl.all()))
    assert set(got["kernel_short"]) == {"transposeShared<0>", "transposeShared<1>"}
    page = both.sources.filter(pl.col("format") == "ncu-source").row(0, named=True)
    assert page["launches"] == 0 and page["notes"] == [
        "2 listings attached to the launches of " + str(H100 / "seed_full_raw.csv")
    ]

    # every kernel's SASS listing (each printed twice), and one more listing of mathKernel1
    # than the report has launches of it
    import gzip

    text = gzip.decompress((H100 / "seed_source_sass.csv.gz").read_bytes()).decode()
    lines = text.splitlines(keepends=True)
    start = next(i for i, l in enumerate(lines) if l.startswith('"Kernel Name","mathKernel1'))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith('"Kernel Name"'))
    # the same listing with other counts (a second launch of the kernel): not an exact repeat
    extra = lines[start : start + 2] + [l.replace(',"1",', ',"2",', 1) for l in lines[start + 2 : end]]
    page_file = tmp_path / "sass_plus.csv"
    page_file.write_text(text + "".join(extra))
    sass = import_files([H100 / "seed_full_raw.csv", page_file])
    assert sass.launches.height == 23  # the raw page's 22, and the listing left over
    left = sass.launches.filter(pl.col("source_format") == "ncu-source")
    assert left["kernel_short"].to_list() == ["mathKernel1"]
    raw_ids = sass.launches.filter(pl.col("source_format") == "ncu-raw")["launch_id"]
    assert set(sass.source["launch_id"].unique()) == set(raw_ids) | set(left["launch_id"])
    page = sass.sources.filter(pl.col("format") == "ncu-source").row(0, named=True)
    assert page["notes"] == ["22 listings attached to the launches of other files"] and page["launches"] == 1


def test_stdout_capture_and_processes():
    live = warpscope.load(H100 / "seed_live_stdout.log.gz")
    assert live.launches.height == 22
    assert any(m.startswith("==PROF== Connected") for m in live.sources["messages"][0])
    assert live.sources["lines_set_aside"][0] == 1  # "seedkernels: all launches completed"
    two = warpscope.load(H100 / "seed_two_processes_raw.log")
    assert two.launches.height == 44
    assert two.launches["process_id"].n_unique() == 2


def test_shared_transactions_per_request_derived_like_nvprof(seed_raw):
    """nvprof's shared_load_transactions_per_request, from ncu's wavefronts / instructions: the
    unpadded 32x32 transpose tile conflicts 32 ways, the [32][33] one does not."""
    import polars as pl

    m = seed_raw.metrics.join(seed_raw.launches.select("launch_id", "kernel_short"), on="launch_id")

    def value(kernel: str, name: str) -> float:
        return m.filter((pl.col("kernel_short") == kernel) & (pl.col("metric") == name))["value"].item()

    for kernel, low, high in (("transposeShared<0>", 31.9, 32.1), ("transposeShared<1>", 1.0, 1.05)):
        ratio = value(kernel, "shared_load_transactions_per_request")
        assert low <= ratio <= high
        assert ratio == value(kernel, "shared_load_wavefronts") / value(kernel, "shared_load_requests")


@pytest.mark.parametrize("name", ["seed_full_raw.csv", "seed_raw_auto.csv", "seed_sass_counters_raw.csv"])
def test_raw_page_keeps_every_cell_once(name):
    """Each metric cell of the raw page is in exactly one place, verbatim with its unit: a
    ``metrics`` row (mapped columns, stall reasons) or a raw cell (the rest, wide)."""
    from tests.reference import rows
    from warpscope.importers.ncu.raw_page import IDENTITY_COLUMNS

    header, units, *data = rows(H100 / name)
    profile = warpscope.load(H100 / name)
    wide = profile.raw_cells().collect()
    wide_units = dict(zip(profile.raw_units["name"], profile.raw_units["unit"]))
    stated = profile.metrics.filter(pl.col("section").is_null())  # not derived
    long = {
        (lid, n): (t, u)
        for lid, n, t, u in zip(
            stated["launch_id"],
            stated["name"].cast(pl.String),
            stated["text"],
            stated["unit"].cast(pl.String),
        )
    }
    assert len(long) == stated.height
    columns = [c for c in header if c not in IDENTITY_COLUMNS]
    assert set(wide.columns) - {"launch_id"} == set(wide_units) and len(wide_units) > 0
    assert not set(wide_units) & {n for _, n in long}
    checked = 0
    for lid, row in enumerate(data):
        for c in columns:
            cell, unit = row[header.index(c)], units[header.index(c)]
            if c in wide_units:
                assert (wide[c][lid] or "") == cell and wide_units[c] == unit, (lid, c)
                assert (lid, c) not in long
            elif cell:
                assert long[(lid, c)] == (cell, unit), (lid, c)
            else:
                assert (lid, c) not in long
            checked += 1
    assert checked == len(data) * len(columns) and len(data) == 22


def test_local_memory_sectors_of_the_spilling_cudnn_kernels():
    """Local-memory traffic (register spills) reaches `local_load_sectors` / `local_store_sectors`
    as the raw page states it: the two cuDNN dgrad kernels of the PyTorch step that spill
    (168 registers per thread), and an exact 0 where nothing spills."""
    from tests.conftest import CNN_STEP
    from tests.reference import number, rows

    path = CNN_STEP / "cnn_full_raw_base.csv.gz"
    table = rows(path)
    col = {name: i for i, name in enumerate(table[0])}
    assert table[1][col["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"]] == "sector"
    in_file = {
        int(row[col["ID"]]): (
            number(row[col["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"]]),
            number(row[col["l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"]]),
        )
        for row in table[2:]
    }
    assert {i: v for i, v in in_file.items() if v != (0, 0)} == {60: (25_000, 10_560), 74: (12_544, 12_800)}
    profile = warpscope.load(path)
    values = canonical_values(profile)
    ids = dict(zip(profile.launches["profiler_launch_id"].cast(pl.Int64), profile.launches["launch_id"]))
    assert len(ids) == len(in_file) == 90
    for file_id, (loads, stores) in in_file.items():
        stored = values[ids[file_id]]
        assert (stored["local_load_sectors"], stored["local_store_sectors"]) == (loads, stores), file_id
    spilling = profile.launches.filter(pl.col("profiler_launch_id").is_in(["60", "74"]))
    assert spilling["kernel"].str.starts_with("sm90_xmma_dgrad_implicit_gemm").all()
    assert set(spilling["registers_per_thread"]) == {168}
    # the seed kernels never spill: an exact zero, stated, not a missing value
    seed = warpscope.load(H100 / "seed_full_raw.csv")
    heavy = seed.launches.filter(pl.col("kernel_short") == "heavyRegisters")["launch_id"].item()
    assert canonical_values(seed)[heavy]["local_load_sectors"] == 0.0
