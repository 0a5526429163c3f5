"""Public ncu exports of other versions and GPUs: the MIT-licensed ones shipped in
sample_traces/public, the others read from ../shared (never copied here)."""

from __future__ import annotations

import polars as pl
import pytest

import warpscope
from tests.conftest import needs_shared, public_params, public_sample
from tests.reference import details_expectations
from tests.test_ncu_values import _assert_match, _stored
from warpscope.errors import InputError
from warpscope.model.values import canonical_values

EXPECTED = {  # file -> (launches, metric+rule rows)
    "llmperfopt_rtx50_cublasgemv_details_2025.1.csv": (1, 48),
    "llmperfopt_rtx50_cublasgemv_metrics_2025.1.csv": (1, 15),
    "superbench_b200_cublaslt_details_base_units.log": (1, 58),
    "xplacer_v100_cfd_details_thousands_sep.log": (100, 2600),
    "xplacer_v100_hotspot_details_2019.log": (1, 52),
}


@pytest.mark.parametrize("name", public_params("ncu", sorted(EXPECTED)))
def test_imports_every_row(name):
    profile = warpscope.load(public_sample("ncu", name))
    launches, rows = EXPECTED[name]
    src = profile.sources.row(0, named=True)
    assert (src["launches"], src["rows_in"], src["rows_rejected"]) == (launches, rows, 0)
    _assert_match(details_expectations(public_sample("ncu", name)), _stored(profile))


@needs_shared
def test_thousands_separators_and_old_labels():
    profile = warpscope.load(public_sample("ncu", "xplacer_v100_cfd_details_thousands_sep.log"))
    grouped = profile.metrics.filter(
        pl.col("text").str.contains(r"^\d{1,3}(,\d{3})+(\.\d+)?$"),
        pl.col("unit").cast(pl.String).is_in(["", "cycle", "inst", "nsecond"]),
    )
    assert grouped.height > 100  # "795,373,665.48", "97,152": 1,000s separators, units of factor 1
    assert (grouped["value"] == grouped["text"].str.replace_all(",", "").cast(pl.Float64)).all()
    assert profile.launches["kernel_short"].unique().sort().to_list() == [
        "cuda_compute_flux",
        "cuda_compute_step_factor",
        "cuda_time_step",
    ]
    old = canonical_values(warpscope.load(public_sample("ncu", "xplacer_v100_hotspot_details_2019.log")))[0]
    assert old["duration_ns"] == 6624  # "Duration","nsecond","6624" (2019 spelling)
    assert {
        "dram_throughput_pct",
        "sm_throughput_pct",
        "memory_throughput_pct",
        "theoretical_occupancy_pct",
        "sm_frequency_hz",
    } <= old.keys()  # SOL FB, SM [%], cycle/second


def test_na_and_text_values_are_kept_not_invented():
    profile = warpscope.load(public_sample("ncu", "llmperfopt_rtx50_cublasgemv_metrics_2025.1.csv"))
    na = profile.metrics.filter(pl.col("text") == "n/a")
    assert na.height > 0 and na["value"].null_count() == na.height
    b200 = warpscope.load(public_sample("ncu", "superbench_b200_cublaslt_details_base_units.log"))
    policy = b200.metrics.filter(pl.col("name") == "Cluster Scheduling Policy")
    assert policy["text"].to_list() == ["PolicySpread"] and policy["value"].to_list() == [None]
    assert canonical_values(b200)[0]["sm_count"] == 152
    assert b200.launches.row(0, named=True)["grid_x"] == 9


def test_rules_become_ncu_findings():
    profile = warpscope.load(public_sample("ncu", "llmperfopt_rtx50_cublasgemv_details_2025.1.csv"))
    f = profile.findings
    assert f.height == 4 and set(f["origin"]) == {"ncu"}
    occ = f.filter(pl.col("rule_id") == "TheoreticalOccupancy").row(0, named=True)
    assert occ["category"] == "occupancy" and occ["estimated_speedup_pct"] > 0


def test_error_only_file_is_a_clear_error():
    with pytest.raises(InputError, match="no profile table found"):
        warpscope.load(public_sample("ncu", "llmperfopt_error_only_raw.csv"))


def test_pages_of_one_report_are_one_set_of_launches():
    """The raw and details pages of one report (same process, launch IDs, kernels, durations):
    22 launches with both pages' metrics and the details page's rule results; two runs of the
    program (another process) stay apart."""
    import polars as pl

    import warpscope
    from tests.conftest import H100
    from warpscope.analysis.views import launch_views

    both = warpscope.load([H100 / "seed_full_raw.csv", H100 / "seed_full_details.csv"])
    assert both.launches.height == 22 and both.sources.height == 2
    assert both.findings.filter(pl.col("origin") != "warpscope").height > 200  # the details page's rules
    canonical = both.metrics.filter(pl.col("metric").is_not_null())
    assert canonical.group_by("launch_id", "metric", "stat").len()["len"].max() == 1
    strided = next(v for v in launch_views(both) if v.kernel_short == "copyStrided")
    assert strided.get("global_excess_sectors") == 917504  # from the raw page
    runs = warpscope.load([H100 / "seed_full_raw.csv", H100 / "seed_raw_base.csv"])
    assert runs.launches.height == 44  # process 880 and process 505: two runs
