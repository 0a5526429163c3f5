"""The JSON and markdown reports of the H100 seed export."""

from __future__ import annotations

import json

from tests.conftest import H100, run_cli

SEED = H100 / "seed_full_raw.csv"
KERNELS = [
    "mathKernel1",
    "mathKernel2",
    "withDivergence",
    "noDivergence",
    "vecAddTail",
    "saxpyCoalesced",
    "copyStrided",
    "copyOffset",
    "transposeNaive",
    "transposeShared<0>",
    "transposeShared<1>",
    "matmulNaive",
    "matmulTiled<16, 0>",
    "matmulTiled<32, 1>",
    "reduceSingleThread",
    "reduceInterleaved",
    "reduceStridedIndex",
    "reduceSequential",
    "reduceShuffle",
    "heavyRegisters",
    "bigShared",
    "tinyBlocks",
]


def test_json_report_of_seed_export():
    result = run_cli("report", str(SEED), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert list(report) == [
        "sources",
        "missing_sections",
        "hazards",
        "opportunities",
        "runs",
        "run_findings",
        "launches",
    ]
    assert report["missing_sections"] == []  # the seed kernels were profiled with --set full
    assert report["hazards"] == []  # racecheck is the emulator's
    assert report["sources"] == [
        {"path": str(SEED), "format": "ncu-raw", "launches": 22, "rows_rejected": 0, "notes": []}
    ]
    assert report["run_findings"] == []
    assert report["runs"] == []  # 22 launches of different kernels: no step, too few for families
    launches = report["launches"]
    assert [l["kernel_short"] for l in launches] == KERNELS
    keys = [
        "launch_id",
        "source",
        "kernel",
        "kernel_short",
        "library",
        "device",
        "compute_capability",
        "grid",
        "block",
        "metrics",
        "stalls",
        "occupancy_limiter",
        "findings",
    ]
    assert all(list(l) == keys for l in launches)
    by = {l["kernel_short"]: l for l in launches}
    assert (
        by["matmulTiled<32, 1>"]["kernel"]
        == "void matmulTiled<32, 1>(const float *, const float *, float *, int)"
    )
    assert by["transposeNaive"]["grid"] == [32, 32, 1] and by["transposeNaive"]["block"] == [32, 32, 1]
    assert by["tinyBlocks"]["grid"] == [40, 1, 1] and by["tinyBlocks"]["block"] == [32, 1, 1]
    assert by["matmulTiled<16, 0>"]["block"] == [16, 16, 1]
    regs = {k: l["metrics"]["registers_per_thread"] for k, l in by.items()}
    assert regs.pop("heavyRegisters") == 40
    assert sorted(set(regs.values())) == [16, 18, 22, 30, 32]  # 16 for most
    assert sum(r == 16 for r in regs.values()) == 16
    occ = {k: l["metrics"]["theoretical_occupancy_pct"] for k, l in by.items()}
    assert (occ["heavyRegisters"], occ["bigShared"], occ["tinyBlocks"]) == (75, 25, 50)
    assert (
        by["heavyRegisters"]["occupancy_limiter"],
        by["bigShared"]["occupancy_limiter"],
        by["tinyBlocks"]["occupancy_limiter"],
        by["mathKernel1"]["occupancy_limiter"],
    ) == ("registers", "shared_mem", "blocks", "warps")
    for l in launches:
        assert l["device"] == "NVIDIA H100 80GB HBM3" and l["compute_capability"] == "9.0"
        assert len(l["stalls"]) == 19 and l["stalls"]["selected"] > 0
    assert by["heavyRegisters"]["stalls"]["dispatch_stall"] == 2.367536


def test_reports_are_deterministic():
    a = run_cli("report", str(SEED))
    b = run_cli("report", str(SEED))
    assert a.returncode == 0 and a.stdout == b.stdout
    assert (
        "| 6 | heavyRegisters | 1 | 45.79 µs | 9.2% | 4096×1×1 | 256×1×1 | 75% / 67.9% | 100% | "
        "low: occupancy limited by registers |"
    ) in a.stdout


def test_report_writes_file_atomically(tmp_path):
    out = tmp_path / "r.md"
    result = run_cli("report", str(SEED), "-o", str(out))
    assert result.returncode == 0 and result.stdout == ""
    assert out.read_text().startswith("# warpscope report")
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]  # no temporary left behind


def test_details_report_carries_ncu_findings():
    report = json.loads(run_cli("report", str(H100 / "seed_full_details.csv"), "--format", "json").stdout)
    heavy = report["launches"][19]
    occ = [f for f in heavy["findings"] if f["rule"] == "TheoreticalOccupancy"]
    assert occ and occ[0]["origin"] == "ncu" and occ[0]["estimated_speedup_pct"] == 25.0
    assert occ[0]["covered_by"] == "occupancy_limited"  # warpscope's finding says it; counted once


def test_json_findings_carry_rule_fix_and_evidence():
    report = json.loads(run_cli("report", str(SEED), "--format", "json").stdout)
    by = {l["kernel_short"]: l for l in report["launches"]}
    (f,) = [f for f in by["transposeShared<0>"]["findings"] if f["rule"] == "shared_bank_conflicts"]
    for key in (
        "rule",
        "category",
        "origin",
        "severity",
        "message",
        "fix",
        "estimated_speedup_pct",
        "evidence",
    ):
        assert key in f
    assert (f["category"], f["origin"], f["severity"]) == ("bank_conflicts", "warpscope", "high")
    assert {"metric": "shared_load_wavefronts", "value": 1048802.0} in f["evidence"]
    assert "tile[32][33]" in f["fix"] and f["speedup_formula"]


def test_a_grid_of_four_blocks_is_a_fraction_of_a_wave_not_zero():
    """vecAddTail on the H100: 4 blocks of 256 threads, which Nsight Compute prints as 0.00 waves
    per SM; the report and the kernel view say 4 / (132 SMs x 8 blocks each) = 0.0038."""
    import polars as pl
    from rich.console import Console

    import warpscope
    from warpscope.analysis.text import significant, waves
    from warpscope.explore.workspace import Workspace
    from warpscope.tui.screens.kernel_tabs import overview

    workspace = Workspace(warpscope.load(H100 / "seed_full_raw.csv"))
    launches = workspace.profile.launches.filter(pl.col("kernel_short") == "vecAddTail")
    detail = workspace.detail(launches["launch_id"].to_list())
    m = detail.kernel.metrics
    assert m["waves_per_sm"] == 0 and m["grid_size"] == 4 and m["sm_count"] == 132
    assert waves(m) == "0.0038" == significant(4 / (132 * 8))
    sink = Console(width=120, color_system=None, record=True)
    sink.print(overview(detail))
    assert "waves per SM   0.0038" in sink.export_text()
    text = run_cli("report", str(H100 / "seed_full_raw.csv"), "--full").stdout
    assert "grid 4×1×1 (4 blocks); block 256×1×1 (256 threads)" in text and "; 0.0038 waves per SM |" in text
    assert [significant(x) for x in (0.0303, 0.5, 3.884, 0)] == ["0.03", "0.5", "3.88", "0"]
