"""Launches the rules cannot tell apart are analysed once (``analysis.groups``), and a long
profile's launches are evaluated in forked workers (``analysis.workers``): the findings are those
of the per-launch engine in one process, launch for launch, on every shipped export and on a
profile whose launches all differ."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import warpscope
from tests.conftest import CNN_FILES
from tests.test_bounds import _exports
from tests.test_estimates import EXPORTS
from tools.fleet_runs import jittered
from warpscope.analysis import analyze, workers
from warpscope.analysis.columnar import engine as columnar_engine
from warpscope.analysis.finding import Finding, findings_frame
from warpscope.analysis.groups import launch_groups
from warpscope.model.profile import Profile
from warpscope.report.kernels import kernels

CASES = {p.name: [p] for p in _exports()} | {
    f"{name} (pages merged)": paths for name, paths in EXPORTS.items()
}


@pytest.fixture
def forked(monkeypatch):
    """Workers for any profile, several chunks each: every shipped export goes through them."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 1)
    monkeypatch.setattr(workers, "MIN_CHUNK", 30)


@pytest.mark.parametrize("paths", list(CASES.values()), ids=list(CASES))
def test_grouped_and_forked_findings_equal_the_per_launch_engine(paths, forked):
    profile = warpscope.load(paths)
    reference = analyze(profile, grouped=False, workers=1).findings
    assert analyze(profile, workers=1).findings.equals(reference)
    assert analyze(profile, grouped=False, workers=3).findings.equals(reference)


def test_launches_that_all_differ_get_the_per_launch_engines_findings(forked):
    """The real PyTorch step, each copy with 2% noise on every counter and the duration: no two
    launches group, and the workers' findings are the one-process engine's, launch for launch."""
    step = warpscope.load(CNN_FILES)
    rng = np.random.default_rng(38)
    noisy = Profile.concat([jittered(step, rng) for _ in range(4)])
    groups = launch_groups(noisy)
    assert groups["rep"].n_unique() == noisy.launches.height
    reference = analyze(noisy, grouped=False, workers=1).findings
    ours = reference.filter(pl.col("origin") == "warpscope")
    assert ours["launch_id"].n_unique() > 300 and ours["message"].n_unique() > 300  # real, varied findings
    assert analyze(noisy, groups=groups, workers=2).findings.equals(reference)


def test_a_failing_worker_leaves_the_launches_to_this_process(forked, monkeypatch):
    """A worker that dies (killed, out of memory) costs time, never findings."""
    profile = warpscope.load(CNN_FILES)
    reference = analyze(profile, workers=1).findings

    def dies(make, spool):
        pid, read = start(make, spool)
        import os
        import signal

        os.kill(pid, signal.SIGKILL)
        return pid, read

    start = workers._start
    monkeypatch.setattr(workers, "_start", dies)
    assert analyze(profile, workers=2).findings.equals(reference)


def test_a_worker_that_hangs_is_stopped_and_its_launches_evaluated_here(forked, monkeypatch):
    """A rule that waits forever in a fork (on a lock or a thread pool the fork does not have)
    stalls its worker: after ``STALL_S`` without a word it is stopped, and nothing is lost."""
    import os
    import time

    import warpscope.analysis as engine

    profile = warpscope.load(CNN_FILES)
    reference = analyze(profile, workers=1).findings
    parent, rules = os.getpid(), engine.findings_for

    def hangs_in_a_fork(view, *candidates):
        if os.getpid() != parent:
            time.sleep(3600)
        return rules(view, *candidates)

    monkeypatch.setattr(engine, "findings_for", hangs_in_a_fork)
    monkeypatch.setattr(workers, "STALL_S", 0.5)
    monkeypatch.setattr(workers, "MIN_CHUNK", 45)  # two chunks of the step's 90 launches
    start = time.monotonic()
    assert analyze(profile, workers=2).findings.equals(reference)
    assert time.monotonic() - start < 60


def test_the_findings_table_is_the_one_polars_builds_from_the_findings():
    """``findings_frame`` builds its columns as Arrow arrays for speed: the table is the one
    Polars builds from the findings row by row."""
    profile = analyze(warpscope.load(CNN_FILES), workers=1)
    ours = profile.findings.filter(pl.col("origin") == "warpscope")
    pairs = [(row["launch_id"], _as_finding(row)) for row in ours.iter_rows(named=True)]
    plain = [
        {
            **dict.fromkeys(ours.columns),
            "launch_id": launch_id,
            "origin": "warpscope",
            "rule_id": f.rule,
            "category": f.category,
            "severity": f.severity,
            "confidence": f.confidence,
            "title": f.title,
            "message": f.message,
            "why": f.why,
            "fix": f.fix,
            "threshold": f.threshold,
            "estimated_speedup_pct": f.estimated_speedup_pct,
            "speedup_type": None if f.estimated_speedup_pct is None else "global",
            "speedup_formula": None if f.estimated_speedup_pct is None else f.speedup_formula,
            "evidence": [{"metric": m, "value": v} for m, v in f.evidence.items()],
            "evidence_grade": list(f.grades) or None,
            "est_saved_ns": f.est_saved_ns,
            "program_share_pct": f.program_share_pct,
        }
        for launch_id, f in pairs
    ]
    expected = pl.DataFrame(plain, schema=ours.schema)
    assert findings_frame(pairs).equals(expected)
    assert findings_frame(pairs).drop("covered_by").equals(ours.drop("covered_by"))


def _as_finding(row: dict) -> Finding:
    return Finding(
        severity=row["severity"],
        title=row["title"],
        message=row["message"],
        why=row["why"],
        fix=row["fix"],
        threshold=row["threshold"],
        evidence={e["metric"]: e["value"] for e in row["evidence"]},
        estimated_speedup_pct=row["estimated_speedup_pct"],
        rule=row["rule_id"],
        category=row["category"],
        speedup_formula=row["speedup_formula"],
        confidence=row["confidence"],
        grades=tuple(row["evidence_grade"] or ()),
        est_saved_ns=row["est_saved_ns"],
        program_share_pct=row["program_share_pct"],
    )


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
        assert len(k.launch_ids) == 3 * len(alone.launch_ids)
        assert [f["launches"] for f in k.findings] == [3 * f["launches"] for f in alone.findings]
        assert k.metrics == pytest.approx(alone.metrics)


def test_workers_write_back_without_polars(monkeypatch):
    """A worker makes and writes its tables with pyarrow alone: Polars' thread pool does not
    survive a fork (its first parallel call in the child waits forever). Every chunk of a
    profile of launches that all differ comes back from its worker, none from the fallback."""
    from tests.test_candidacy import _distinct_step

    profile = _distinct_step(4, seed=1)
    reference = analyze(profile, workers=1).findings
    came_back: list[object] = []
    result = workers._result

    def recorded(pid, read):
        came_back.append(result(pid, read))
        return came_back[-1]

    monkeypatch.setattr(workers, "_result", recorded)
    monkeypatch.setattr(workers, "STALL_S", 20.0)
    monkeypatch.setattr(workers, "PARALLEL_FROM", 1)
    monkeypatch.setattr(workers, "MIN_CHUNK", 600)
    monkeypatch.setattr(columnar_engine, "MIN_SLICE", 600)  # the columnar engine's slices too
    assert analyze(profile, workers=2).findings.equals(reference)
    assert len(came_back) >= 2 and all(r is not None for r in came_back)
