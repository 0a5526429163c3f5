"""Launches the rules cannot tell apart are analysed once (``analysis.groups``): the findings
are those of the per-launch engine, launch for launch, on every shipped export."""

from __future__ import annotations

import polars as pl
import pytest

import warpscope
from tests.conftest import CNN_FILES
from tests.test_bounds import _exports
from tests.test_estimates import EXPORTS
from warpscope.analysis import analyze
from warpscope.analysis.groups import launch_groups
from warpscope.model.profile import Profile
from warpscope.report.kernels import kernels

CASES = {p.name: [p] for p in _exports()} | {
    f"{name} (pages merged)": paths for name, paths in EXPORTS.items()
}


@pytest.mark.parametrize("paths", list(CASES.values()), ids=list(CASES))
def test_grouped_findings_equal_the_per_launch_engine(paths):
    profile = warpscope.load(paths)
    grouped = analyze(profile).findings
    assert grouped.equals(analyze(profile, grouped=False).findings)


def test_a_repeated_step_is_analysed_once_and_every_copy_gets_the_same_findings():
    step = warpscope.load(CNN_FILES)
    three = Profile.concat([step, step, step])
    groups = launch_groups(three)
    assert groups["rep"].n_unique() == groups["rep"].filter(groups["launch_id"] < 90).n_unique() <= 90
    found = analyze(three, groups=groups).findings
    assert found.equals(analyze(three, grouped=False).findings)
    ours = found.filter((pl.col("origin") == "warpscope") & pl.col("launch_id").is_not_null())
    first = ours.filter(pl.col("launch_id") < 90).drop("launch_id", "program_share_pct", "est_saved_ns")
    third = ours.filter(pl.col("launch_id") >= 180).drop("launch_id", "program_share_pct", "est_saved_ns")
    assert first.equals(third)
    # the report counts every launch a finding fired on, and averages over all of them
    once = {(k.kernel, k.grid, k.block): k for k in kernels(analyze(step))}
    for k in kernels(analyze(three, groups=groups), groups=groups):
        alone = once[(k.kernel, k.grid, k.block)]
        assert len(k.launch_ids) == 3 * len(alone.launch_ids) and sum(k.weights) == len(k.launch_ids)
        assert [f["launches"] for f in k.findings] == [3 * f["launches"] for f in alone.findings]
        assert k.metrics == pytest.approx(alone.metrics)
