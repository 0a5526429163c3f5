"""The columnar engine (``analysis.columnar``) gives the per-launch engine's findings, launch for
launch, on the launches it takes, and leaves to the views the launches it cannot read exactly.

The comparison on every shipped export, the seed emulation and profiles whose launches all
differ is ``tests/test_candidacy.py``'s (its prefiltered engine is the columnar one wherever a
launch's candidate rules all have a columnar form); here: that it takes most launches of real
profiles (so those comparisons test it), what it leaves out, its forked slices, and its texts.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import warpscope
from tests.conftest import CNN_FILES
from tests.test_candidacy import _distinct_step
from tools.fleet_runs import jittered
from warpscope.analysis import analyze
from warpscope.analysis import columnar as engine
from warpscope.analysis.candidacy import launch_rows
from warpscope.analysis.columnar import Launches, from_rows
from warpscope.analysis.columnar import engine as columnar_engine
from warpscope.analysis.columnar.rules import COLUMNAR, READS
from warpscope.analysis.text import num, nums, pct, pcts
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile
from warpscope.occupancy.profile_check import launch_occupancies


def _taken(profile: Profile, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many launches of ``profile`` the columnar engine evaluates (its findings checked equal
    to the per-launch engine's on the way)."""
    taken = []
    evaluate = columnar_engine.evaluate

    def counting(L: Launches, *args):
        taken.append(L.n)
        return evaluate(L, *args)

    monkeypatch.setattr(columnar_engine, "evaluate", counting)
    found = analyze(profile, grouped=False, workers=1).findings
    assert found.equals(analyze(profile, grouped=False, workers=1, columnar=False).findings)
    return sum(taken)


def test_it_takes_the_launches_of_a_real_training_step(monkeypatch):
    """A PyTorch step (cuDNN, CUTLASS, PyTorch's own kernels) with every section, stall reasons
    and Nsight Compute's rule rows, noise on every value so no two launches are alike."""
    cnn = warpscope.load(CNN_FILES)
    noisy = Profile.concat([jittered(cnn, np.random.default_rng(i), 0.05) for i in range(3)])
    assert _taken(noisy, monkeypatch) >= 0.9 * noisy.launches.height


def test_it_takes_almost_every_launch_of_the_benchmarks_distinct_pages(monkeypatch):
    profile = _distinct_step(2, seed=1)
    assert _taken(profile, monkeypatch) >= 0.9 * profile.launches.height


def _rows(profile: Profile) -> pl.DataFrame:
    libraries = {
        i: library_of(s) for i, s in profile.launches.select("launch_id", "kernel_short").iter_rows()
    }
    return launch_rows(profile, launch_occupancies(profile.launches, profile.metrics), libraries)


def test_launches_it_cannot_read_as_a_view_does_go_through_the_views(emulated_seed):
    """The emulator's modelled values grade differently, a fractional block size rounds as the
    view rounds it, and a CPI summed from stall reasons depends on their order: those launches
    are the per-launch engine's."""
    _, emulated = emulated_seed
    assert not engine.routable(_rows(emulated)).any()
    cnn = warpscope.load(CNN_FILES)
    rows = _rows(cnn)
    assert engine.routable(rows).sum() > 0.9 * rows.height
    odd = rows.with_columns(pl.col("block_size") + 0.5)
    assert not engine.routable(odd).any()
    stalls = [c for c in rows.columns if c.startswith("stalls.")]
    assert stalls
    without_cpi = rows.with_columns(pl.lit(None, pl.Float64).alias("warp_cycles_per_issued_instruction"))
    stalled = without_cpi.select(pl.any_horizontal(pl.col(stalls).is_not_null())).to_series()
    assert (engine.routable(without_cpi) & stalled).sum() == 0


def test_forked_slices_give_the_one_process_findings(monkeypatch):
    profile = _distinct_step(1, seed=2)
    one = analyze(profile, workers=1).findings
    monkeypatch.setattr(columnar_engine, "MIN_SLICE", 50)
    monkeypatch.setattr("warpscope.analysis.workers.PARALLEL_FROM", 1)
    assert analyze(profile, workers=2).findings.equals(one)


class _Recording(Launches):
    """Launches that note every value a rule asks for."""

    asked: set[str]

    def get(self, name: str) -> np.ndarray:
        self.asked.add(name)
        return super().get(name)


def test_reads_names_every_value_the_rules_read():
    """``launch_rows`` pivots only ``READS`` (and the predicates' values) for the columnar rules:
    a value a rule reads that is not there would read as missing."""
    cnn = warpscope.load(CNN_FILES)
    rows = _rows(cnn)
    names = sorted({c for c in rows.columns if not c.startswith(("_", "occ."))})
    launches = from_rows(rows, launch_occupancies(cnn.launches, cnn.metrics), names)
    recording = _Recording(**{f: getattr(launches, f) for f in launches.__dataclass_fields__})
    recording.asked = set()
    for rule in COLUMNAR.values():
        rule(recording)
    assert recording.asked <= READS
    assert "sm_throughput_pct" in recording.asked


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(
    st.lists(finite | st.integers(-(10**12), 10**12).map(float) | st.sampled_from([0.05, 0.15, 1.25, -0.04]))
)
def test_nums_format_as_num_does(values):
    for digits in (0, 1, 2, 3):
        assert nums(values, digits) == [num(v, digits) for v in values]
    assert pcts(values) == [pct(v) for v in values]


def test_absurd_values_give_the_per_launch_engines_findings_without_warnings():
    """A damaged file's values (1e300 times too large, zero, negative) overflow and divide as
    Python's floats do in the per-launch rules: the same findings, and no numpy warning printed."""
    import warnings
    from dataclasses import replace

    from tests.test_candidacy import TRAINLOOP

    profile = warpscope.load(TRAINLOOP)
    lid, value = pl.col("launch_id"), pl.col("value")
    metrics = profile.metrics.with_columns(
        pl.when(lid % 5 == 0)
        .then(value * 1e300)
        .when(lid % 5 == 1)
        .then(pl.lit(0.0))
        .when(lid % 5 == 2)
        .then(-value)
        .otherwise(value)
        .alias("value")
    )
    hostile = replace(profile, metrics=metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = analyze(hostile, grouped=False, workers=1).findings
    assert found.equals(analyze(hostile, grouped=False, workers=1, columnar=False).findings)
    assert found.height > 0
