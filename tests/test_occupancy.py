"""Occupancy on real exports, what would help, sweeps, the CLI and the import checks."""

from __future__ import annotations

import json
from dataclasses import replace

import polars as pl
import pytest

import warpscope
from tests.conftest import PUBLIC_NCU, UNSHIPPED, needs_shared, run_cli
from tests.test_occupancy_reference import REFERENCE
from warpscope.model.values import canonical_values
from warpscope.occupancy.advice import what_would_help
from warpscope.occupancy.calculator import calculate
from warpscope.occupancy.profile_check import FORMULA, check
from warpscope.occupancy.sweeps import runs, sweep

NCU_LIMITS = ("warps", "registers", "shared_mem", "blocks")


def _raw_metric(profile, launch_id: int, name: str) -> float:
    """The raw page's own cell: a metrics row where the catalog maps it, else its raw cell."""
    row = profile.metrics.filter(
        (pl.col("launch_id") == launch_id) & (pl.col("name").cast(pl.String) == name)
    )
    if row.height:
        return row["value"][0]
    from warpscope.model.units import to_base

    cell = profile.raw_cells([name]).filter(pl.col("launch_id") == launch_id).select(name).collect()
    unit = profile.raw_units.filter(pl.col("name") == name)["unit"].item()
    return float(cell.item().replace(",", "")) * to_base(unit)[0]


def test_reproduces_ncu_on_every_h100_seed_launch(seed_raw):
    """Theoretical occupancy and the four launch__occupancy_limit_* values, from the launch
    parameters of the same file (the carveout the driver chose is one of them)."""
    launches = seed_raw.launches
    assert launches.height == 22
    for row in launches.iter_rows(named=True):
        lid = row["launch_id"]
        occ = calculate(
            f"sm_{row['compute_capability'].replace('.', '')}",
            row["block_x"] * row["block_y"] * row["block_z"],
            row["registers_per_thread"],
            row["static_shared_bytes"],
            row["dynamic_shared_bytes"],
            barriers=int(_raw_metric(seed_raw, lid, "launch__barrier_count")),
            shared_mem_config=int(_raw_metric(seed_raw, lid, "launch__shared_mem_config_size")),
        )
        stated = _raw_metric(seed_raw, lid, "sm__maximum_warps_per_active_cycle_pct")
        assert occ.occupancy_pct == pytest.approx(stated, abs=0.006), row["kernel_short"]
        assert occ.active_warps_per_sm == _raw_metric(seed_raw, lid, "sm__maximum_warps_avg_per_active_cycle")
        for limit in NCU_LIMITS:
            assert occ.limits[limit] == _raw_metric(seed_raw, lid, f"launch__occupancy_limit_{limit}"), (
                row["kernel_short"],
                limit,
            )
        assert occ.allocated_shared_mem_per_block == _raw_metric(
            seed_raw, lid, "launch__shared_mem_per_block_allocated"
        )
        assert occ.allocated_registers_per_warp // 32 == _raw_metric(
            seed_raw, lid, "launch__registers_per_thread_allocated"
        )


def test_seed_occupancy_lessons_on_h100(seed_raw):
    by_kernel = {r["kernel_short"]: r for r in seed_raw.launches.iter_rows(named=True)}
    heavy = by_kernel["heavyRegisters"]
    occ = calculate("sm_90", heavy["block_x"], heavy["registers_per_thread"])
    assert occ.occupancy_pct == 75.0
    assert next(c.text for c in what_would_help(occ)) == (
        "40 -> 32 registers: 6 -> 8 blocks, 75% -> 100% (__launch_bounds__(256, 8) or -maxrregcount=32)"
    )
    tiny = calculate("sm_90", by_kernel["tinyBlocks"]["block_x"], 16)
    assert (tiny.occupancy_pct, tiny.limiter) == (50.0, "blocks")
    assert what_would_help(tiny)[0].lever == "block_size" and what_would_help(tiny)[0].proposed == 64
    big = calculate("sm_90", 256, 16, 0, by_kernel["bigShared"]["dynamic_shared_bytes"])
    shared = next(c for c in what_would_help(big) if c.lever == "shared_mem")
    assert (shared.proposed, shared.after.active_blocks_per_sm) == (76800, 3)
    assert calculate("sm_90", 256, 16, 0, shared.proposed + 1).active_blocks_per_sm == 2


def test_nothing_helps_a_full_sm_or_a_tie():
    assert what_would_help(calculate("sm_90", 256, 16)) == []
    tie = calculate("sm_86", 256, 64, 0, 20000)  # registers and shared memory both stop at 4
    assert set(tie.limiters) == {"registers", "shared_mem"}
    assert [c.lever for c in what_would_help(tie)] == []


@pytest.mark.parametrize(
    "over, fixed, column, common",
    [
        ("registers", dict(block_size=256), "registers_per_thread", 256),
        ("block_size", dict(registers_per_thread=32), "block_size", 6),  # reference steps: 1, then 7
    ],
)
def test_sweeps_equal_cuda_on_the_dense_reference_rows(over, fixed, column, common):
    for arch in ("sm_75", "sm_86", "sm_90"):
        base = dict(block_size=256, registers_per_thread=32) | fixed
        table = sweep(calculate(arch, base["block_size"], base["registers_per_thread"]), over)
        ref = REFERENCE.filter(
            (pl.col("arch") == arch)
            & (pl.col("static_smem") == 0)
            & (pl.col("dynamic_smem") == 0)
            & (pl.col("carveout") == -1)
            & (pl.col("barriers") == 1),
            *[pl.col(k) == v for k, v in fixed.items()],
        )
        joined = table.join(
            ref.unique(column).select(pl.col(column).alias("value"), "active_blocks"), on="value"
        )
        assert joined.height >= common
        assert (joined["active_blocks_per_sm"] == joined["active_blocks"]).all()
        assert table.filter("current").height == 1


def test_register_sweep_runs_on_sm_90():
    table = runs(sweep(calculate("sm_90", 256, 40), "registers"))
    assert table.select("first", "last", "active_blocks_per_sm").rows()[:3] == [
        (0, 32, 8),
        (33, 40, 6),
        (41, 48, 5),
    ]
    assert table.filter("current")["first"].to_list() == [33]


def test_import_derives_occupancy_a_file_lacks(seed_raw):
    names = (
        "theoretical_occupancy_pct",
        "theoretical_active_warps",
        "block_limit_warps",
        "block_limit_registers",
        "block_limit_shared_mem",
        "block_limit_blocks",
        "block_limit_barriers",
    )
    stripped = seed_raw.metrics.filter(~pl.col("metric").is_in(names) | pl.col("metric").is_null())
    derived, notes = check(seed_raw.launches, stripped)
    assert notes == []
    assert set(derived["name"].unique()) == {FORMULA}
    assert derived.height == 22 * len(names)
    original = canonical_values(
        replace(seed_raw, metrics=seed_raw.metrics.filter(pl.col("metric").is_in(names)))
    )
    ours = canonical_values(replace(seed_raw, metrics=derived))
    assert ours.keys() == original.keys()
    for launch_id, values in ours.items():
        assert values == pytest.approx(original[launch_id], abs=0.006)


def test_import_notes_a_disagreement(seed_raw):
    bent = seed_raw.metrics.with_columns(
        pl.when((pl.col("launch_id") == 19) & (pl.col("metric") == "block_limit_registers"))
        .then(7.0)
        .otherwise(pl.col("value"))
        .alias("value")
    )
    derived, notes = check(seed_raw.launches, bent)
    assert derived.is_empty()
    assert notes == [
        "occupancy: launch 19 (heavyRegisters): the file says block_limit_registers 7, "
        "the calculator 6 (sm_90, 256 threads, 40 registers, 0+0 B shared)"
    ]


def test_rounded_details_export_agrees(seed_details):
    """The details page prints 3 digits ("2.05 Kbyte"): no false disagreement from rounding."""
    assert seed_details.sources["notes"].to_list() == [[]]
    checked = seed_details.launches.filter(pl.col("static_shared_bytes") == 2050)
    assert checked.height == 1  # matmulTiled<16>: 2048 B printed as 2.05 KB


@needs_shared
def test_public_v100_exports_match_sm_70():
    """ncu 2019 on a V100 (the file names no device; SOURCES.md does)."""
    for name in ("xplacer_v100_cfd_details_thousands_sep.log", "xplacer_v100_hotspot_details_2019.log"):
        profile = warpscope.load(UNSHIPPED / "ncu" / name)
        values = canonical_values(profile)
        launches = profile.launches.iter_rows(named=True)
        checked = 0
        for row in launches:
            v = values[row["launch_id"]]
            if "block_size" not in v:
                continue
            occ = calculate(
                "sm_70",
                int(v["block_size"]),
                row["registers_per_thread"],
                row["static_shared_bytes"],
                row["dynamic_shared_bytes"],
            )
            assert occ.occupancy_pct == pytest.approx(v["theoretical_occupancy_pct"], abs=0.006)
            for limit in ("warps", "registers", "blocks"):
                assert occ.limits[limit] == v[f"block_limit_{limit}"]
            assert min(occ.block_limit_shared_mem or 32, 32) == v["block_limit_shared_mem"]
            checked += 1
        assert checked >= 1


def test_public_b200_export_is_checked_without_notes():
    profile = warpscope.load(PUBLIC_NCU / "superbench_b200_cublaslt_details_base_units.log")
    assert profile.sources["notes"].to_list() == [[]]
    row = profile.launches.row(0, named=True)
    occ = calculate("sm_100", row["block_x"], row["registers_per_thread"], 0, row["dynamic_shared_bytes"])
    assert (occ.active_blocks_per_sm, occ.occupancy_pct) == (1, 18.75)


def test_cli_explains_the_seed_example():
    out = run_cli("occupancy", "--arch", "sm_90", "--block-size", "256", "--registers", "40")
    assert out.returncode == 0, out.stderr
    assert "theoretical occupancy 75%: 6 blocks x 8 warps = 48 of 64 warps per SM" in out.stdout
    assert "40 -> 32 registers: 6 -> 8 blocks, 75% -> 100%" in out.stdout
    js = run_cli("occupancy", "-a", "9.0", "-b", "256", "-r", "40", "--json", "--sweep", "registers")
    data = json.loads(js.stdout)
    assert (data["active_blocks_per_sm"], data["limiter"], data["what_would_help"][0]["proposed"]) == (
        6,
        "registers",
        32,
    )
    assert len(data["sweeps"]["registers"]) == 256


def test_cli_reports_a_launch_that_cannot_run():
    out = run_cli("occupancy", "--arch", "sm_90", "--block-size", "2048", "--registers", "16")
    assert out.returncode == 1
    assert "cannot launch: 2048 threads per block: sm_90 allows at most 1024" in out.stdout
    bad = run_cli("occupancy", "--arch", "sm_35", "--block-size", "256", "--registers", "16")
    assert bad.returncode == 2 and bad.stderr.startswith("warpscope: unknown architecture 'sm_35'")
    assert "Traceback" not in bad.stderr


def test_batch_mode_equals_the_reference(tmp_path):
    sample = REFERENCE.filter(pl.col("carveout") == -1).gather_every(20)
    configs = tmp_path / "configs.csv"
    sample.select(
        "arch", "block_size", "registers_per_thread", "static_smem", "dynamic_smem", "barriers"
    ).write_csv(configs)
    out = run_cli("occupancy", "--batch", str(configs), "--json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(l) for l in out.stdout.splitlines()]
    assert len(lines) == sample.height > 100
    for got, ref in zip(lines, sample.iter_rows(named=True)):
        assert got["active_blocks_per_sm"] == ref["active_blocks"]
        for k in ("registers", "shared_mem", "warps", "blocks"):
            assert (got[f"block_limit_{k}"] if got[f"block_limit_{k}"] is not None else -1) == ref[
                f"limit_{k}"
            ]
        assert (got["error"] is None) == (ref["active_blocks"] > 0)


def test_batch_mode_bad_cell_is_one_line(tmp_path):
    configs = tmp_path / "configs.csv"
    configs.write_text("arch,block_size,registers_per_thread\nsm_90,256,40\nsm_90,2x6,40\n")
    out = run_cli("occupancy", "--batch", str(configs), "--json")
    assert out.returncode == 2
    assert out.stderr == f'warpscope: {configs}:3: block_size "2x6" is not an integer\n'
    configs.write_text("arch,threads\nsm_90,256\n")
    out = run_cli("occupancy", "--batch", str(configs))
    assert out.returncode == 2 and "missing column(s) block_size, registers_per_thread" in out.stderr
