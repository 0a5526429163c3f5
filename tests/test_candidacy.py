"""The rules' candidacy predicates (``analysis.candidacy``) are supersets of the rules: every
launch a rule fires on is one its predicate keeps, and the engine that runs each rule only on its
candidates gives the full engine's findings table, launch for launch, on every shipped export,
the seed emulation and profiles whose launches all differ."""

from __future__ import annotations

import gzip
import io
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import warpscope
from tests.conftest import CNN_FILES, ROOT
from tests.test_bounds import _exports
from tools.fleet_runs import jittered
from warpscope.analysis import RULES, analyze
from warpscope.analysis.candidacy import PREDICATES, candidates, launch_rows
from warpscope.analysis.views import launch_views
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile
from warpscope.occupancy.profile_check import launch_occupancies

EXPORTS = {p.name: p for p in _exports()}
TRAINLOOP = ROOT / "sample_traces" / "h100" / "trainloop" / "trainloop_loop_raw_base.csv.gz"
LAUNCH_RULES = [r.id for r in RULES.values() if r.scope == "launch"]


def _missed(profile: Profile) -> list[tuple[int, str]]:
    """(launch, rule) pairs where the rule fires but its predicate dropped the launch."""
    libraries = {
        i: library_of(s) for i, s in profile.launches.select("launch_id", "kernel_short").iter_rows()
    }
    rows = launch_rows(profile, launch_occupancies(profile.launches, profile.metrics), libraries)
    kept = candidates(rows, LAUNCH_RULES)
    return [
        (v.launch_id, rule)
        for v in launch_views(profile)
        for rule in LAUNCH_RULES
        if RULES[rule].run(v) and rule not in kept.get(v.launch_id, ())
    ]


def _same_findings(profile: Profile) -> None:
    full = analyze(profile, grouped=False, workers=1, prefilter=False).findings
    assert analyze(profile, grouped=False, workers=1).findings.equals(full)
    assert analyze(profile, workers=1).findings.equals(full)  # grouped, then prefiltered


def _distinct_step(copies: int, seed: int) -> Profile:
    """The training loop's raw page, each copy with its own noise on every counter (as
    ``benchmarks/scale_bench.py --distinct`` makes it): no two launches alike."""
    from benchmarks.scale_bench import _jittered

    header, units, body = gzip.decompress(TRAINLOOP.read_bytes()).split(b"\n", 2)
    step = pl.read_csv(io.BytesIO(header + b"\n" + body), infer_schema=False)
    unit = dict(zip(step.columns, pl.read_csv(io.BytesIO(header + b"\n" + units), infer_schema=False).row(0)))
    rng = np.random.default_rng(seed)
    text = header + b"\n" + units + b"\n"
    for copy in range(copies):
        text += (
            _jittered(step, unit, copy * step.height, rng)
            .write_csv(include_header=False, quote_style="always")
            .encode()
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trainloop_distinct.csv"
        path.write_bytes(text)
        return warpscope.load(path)


def test_every_launch_rule_has_a_predicate():
    """A rule without one runs on every launch (safe, but the per-launch Python comes back)."""
    missing = set(LAUNCH_RULES) - set(PREDICATES) - {"few_resident_warps"}
    assert missing == set()


@pytest.mark.parametrize("path", list(EXPORTS.values()), ids=list(EXPORTS))
def test_predicates_keep_every_launch_their_rule_fires_on(path):
    profile = warpscope.load(path)
    assert _missed(profile) == []
    _same_findings(profile)


def test_on_the_seed_emulation(emulated_seed):
    _, profile = emulated_seed
    assert _missed(profile) == []
    _same_findings(profile)


@pytest.mark.parametrize("sigma", [0.01, 0.05, 0.2])
def test_on_launches_that_all_differ(sigma):
    """Real steps with noise on every value (the larger noise crosses more thresholds)."""
    rng = np.random.default_rng(38)
    cnn = warpscope.load(CNN_FILES)
    noisy = Profile.concat([jittered(cnn, rng, sigma) for _ in range(3)])
    assert _missed(noisy) == []
    _same_findings(noisy)


def test_on_the_benchmarks_distinct_pages():
    profile = _distinct_step(4, seed=0)
    assert profile.launches.height > 2000
    assert _missed(profile) == []
    _same_findings(profile)


def test_launches_no_rule_may_fire_on_are_never_evaluated():
    """The point of it: most rules are candidates on few launches of a real profile."""
    profile = warpscope.load(CNN_FILES)
    libraries = {
        i: library_of(s) for i, s in profile.launches.select("launch_id", "kernel_short").iter_rows()
    }
    rows = launch_rows(profile, launch_occupancies(profile.launches, profile.metrics), libraries)
    kept = candidates(rows, LAUNCH_RULES)
    pairs = sum(len(v) for v in kept.values())
    assert pairs < 0.5 * len(LAUNCH_RULES) * profile.launches.height
