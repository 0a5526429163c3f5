"""Estimated gains are predictions of time a fix saves, so they keep to what no fix can change:
on every launch of the shipped H100 exports (the seed kernels, a PyTorch step, a program on
Thrust, CUB, cuFFT and cuBLAS, the calibration suite and its held-out pairs) no estimate takes a launch below the launch
floor, a launch's combined estimate stays at most 95%, and symptoms (stall reasons) carry no
estimate of their own."""

from __future__ import annotations

import polars as pl
import pytest

import warpscope
from tests.conftest import CNN_STEP, H100
from warpscope.analysis import analyze
from warpscope.analysis.views import LAUNCH_FLOOR_NS

EXPORTS = {
    "seed": [H100 / "seed_full_raw.csv", H100 / "seed_full_details.csv"],
    "cnn_step": [CNN_STEP / "cnn_full_raw_base.csv.gz", CNN_STEP / "cnn_full_details.csv.gz"],
    "libmix": [H100 / "libmix" / "libmix_raw_base.csv.gz", H100 / "libmix" / "libmix_details.csv.gz"],
    **{
        suite: [
            H100 / "calibration" / folder / f"{suite}_raw_base.csv.gz",
            H100 / "calibration" / folder / f"{suite}_details.csv.gz",
        ]
        for suite, folder in (
            ("calibration", ""),
            ("validation", "validation"),
            ("validation2", "validation2"),
        )
    },
}


@pytest.fixture(scope="module", params=sorted(EXPORTS))
def ours(request) -> pl.DataFrame:
    profile = analyze(warpscope.load(EXPORTS[request.param]))
    launches = profile.launches.select("launch_id", "duration_ns")
    return profile.findings.filter(pl.col("origin") == "warpscope").join(launches, on="launch_id")


def test_no_estimate_takes_a_launch_below_the_launch_floor(ours):
    ceiling = 100 * (1 - LAUNCH_FLOOR_NS / pl.col("duration_ns"))
    estimated = ours.filter(pl.col("estimated_speedup_pct").is_not_null())
    assert estimated.height > 10
    # estimates are stored to 0.01 points
    assert estimated.filter(pl.col("estimated_speedup_pct") > ceiling + 0.01).height == 0
    saved = ours.group_by("launch_id", "duration_ns").agg(pl.col("est_saved_ns").sum())
    assert saved.filter(pl.col("est_saved_ns") > pl.col("duration_ns") - LAUNCH_FLOOR_NS + 0.5).height == 0


def test_a_launchs_combined_estimate_stays_under_95_percent(ours):
    combined = ours.group_by("launch_id", "duration_ns").agg(pl.col("est_saved_ns").sum())
    assert (combined["est_saved_ns"] / combined["duration_ns"]).max() <= 0.95 + 1e-9


def test_stall_reasons_are_symptoms_without_an_estimate(ours):
    stalls = ours.filter(pl.col("category") == "stalls")
    assert stalls["estimated_speedup_pct"].null_count() == stalls.height
