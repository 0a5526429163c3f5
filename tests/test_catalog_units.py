"""The catalog's required ids and the unit conversions."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli
from warpscope.model.catalog import BY_ID, CATALOG
from warpscope.model.units import to_base

REQUIRED = [
    "duration_ns",
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
    "sm_count",
    "waves_per_sm",
    "theoretical_occupancy_pct",
    "achieved_occupancy_pct",
    "block_limit_registers",
    "block_limit_shared_mem",
    "block_limit_warps",
    "block_limit_blocks",
    "branch_efficiency_pct",
    "warp_execution_efficiency_pct",
    "warp_nonpred_execution_efficiency_pct",
    "divergent_branches",
    "global_load_requests",
    "global_load_sectors",
    "global_load_sectors_per_request",
    "global_store_requests",
    "global_store_sectors",
    "global_store_sectors_per_request",
    "shared_load_requests",
    "shared_load_wavefronts",
    "shared_load_bank_conflicts",
    "shared_store_requests",
    "shared_store_wavefronts",
    "shared_store_bank_conflicts",
    "sm_throughput_pct",
    "memory_throughput_pct",
    "dram_throughput_pct",
    "issue_slot_utilization_pct",
]


def test_required_ids_present_and_unique():
    assert len(BY_ID) == len(CATALOG)
    assert [i for i in REQUIRED if i not in BY_ID] == []
    assert (
        BY_ID["warp_execution_efficiency_pct"].ncu[0].name
        == "smsp__thread_inst_executed_per_inst_executed.ratio"
    )


def test_metrics_command_json_and_text():
    rows = json.loads(run_cli("metrics", "--format", "json").stdout)
    assert [r["id"] for r in rows] == [m.id for m in CATALOG]
    assert set(rows[0]) == {
        "id",
        "unit",
        "definition",
        "formula",
        "ncu",
        "ncu_labels",
        "nvprof",
        "derived_from",
    }
    text = run_cli("metrics").stdout
    assert all(i in text for i in REQUIRED)


@pytest.mark.parametrize(
    "unit,factor,base",
    [
        ("us", 1e3, "ns"),
        ("usecond", 1e3, "ns"),
        ("msecond", 1e6, "ns"),
        ("nsecond", 1, "ns"),
        ("second", 1e9, "ns"),
        ("Kbyte", 1e3, "byte"),
        ("Mbyte", 1e6, "byte"),
        ("Kbyte/block", 1e3, "byte/block"),
        ("Gbyte/s", 1e9, "byte/second"),
        ("Tbyte/s", 1e12, "byte/second"),
        ("byte/second", 1, "byte/second"),
        ("Ghz", 1e9, "hz"),
        ("hz", 1, "hz"),
        ("cycle/second", 1, "hz"),
        ("cycle/nsecond", 1e9, "hz"),
        ("%", 1, "%"),
        ("", 1, ""),
        ("register/thread", 1, "register/thread"),
        ("inst/cycle", 1, "inst/cycle"),
        ("Kbyte/cycle", 1e3, "byte/cycle"),
        ("sector/s", 1, "sector/second"),
    ],
)
def test_units(unit, factor, base):
    f, b = to_base(unit)
    assert f == pytest.approx(factor) and b == base


def test_every_catalog_id_is_filled_where_the_raw_page_has_its_counter():
    """A counter the H100's raw page exports reaches its canonical id (2025.3 renamed some:
    global efficiency is now bytes per sector, `.ratio`)."""
    import polars as pl

    import warpscope
    from tests.conftest import H100

    for name in ("seed_full_raw.csv", "seed_raw_base.csv"):
        header = pl.read_csv(H100 / name, n_rows=0).columns
        present = set(warpscope.load(H100 / name).metrics["metric"].cast(pl.String).unique())
        missing = [(m.id, a.name) for m in CATALOG for a in m.ncu if a.name in header and m.id not in present]
        assert missing == [], name
    efficiency = BY_ID["global_load_efficiency_pct"]
    assert "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio" in [
        a.name for a in efficiency.ncu
    ]
