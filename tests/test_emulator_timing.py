"""The timing model: its accounting follows Nsight Compute's definitions, and it reproduces the
seed lessons' comparisons (small launches here; the full-size comparison with the H100 is
tools/emulator_validation.py -> docs/emulator-validation.md)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpscope.emulator.kernel import SETTINGS, Settings, recording
from warpscope.emulator.profile import to_profile
from warpscope.emulator.timing import POLICIES, STATES, TIMINGS, timing_for
from warpscope.emulator.timing.perfetto import trace_events
from warpscope.emulator.trace import SMALL_GRID_SAMPLES, sampled_blocks
from warpscope.emulator.workloads import seed

f32 = np.float32


@pytest.fixture(autouse=True)
def _settings():
    saved = Settings(**vars(SETTINGS))
    yield
    vars(SETTINGS).update(vars(saved))


def _launch(kernel, grid, block, *args):
    with recording() as launches:
        kernel[grid, block](*args)
    return launches[0]


def _profile(launch):
    return to_profile([launch], "test")


def test_every_resident_warp_cycle_is_in_exactly_one_state():
    a = seed.seed_input(64 * 256)
    launch = _launch(seed.withDivergence, 64, 256, a.copy(), a.size)
    r = launch.timing
    for sm in r.simulated:
        # states add up to the warps' resident time (timeline complete at this size)
        assert sm.timeline_complete
        assert sum(sm.state_cycles) == sm.resident_warp_cycles
        assert sm.state_cycles[STATES.index("selected")] == sm.issued
        spans = {}
        for slot, block, warp, smsp, start, end, _state in sm.timeline:
            assert end > start and smsp == slot % 4
            spans.setdefault((block, warp), []).append((start, end))
        for runs in spans.values():  # one warp's runs never overlap and leave no gaps
            runs.sort()
            assert all(a[1] == b[0] for a, b in itertools.pairwise(runs))


def test_issue_is_one_per_cycle_per_scheduler():
    a = seed.seed_input(132 * 4 * 256)
    r = _launch(seed.noDivergence, 132 * 4, 256, a.copy(), a.size).timing
    sm = r.simulated[0]
    assert sm.issued <= 4 * sm.cycles
    per_cycle = {}
    for _slot, _block, _warp, smsp, start, end, state in sm.timeline:
        if state == STATES.index("selected"):
            for c in range(start, end):
                per_cycle[(smsp, c)] = per_cycle.get((smsp, c), 0) + 1
    assert per_cycle and max(per_cycle.values()) == 1


def test_stalls_table_is_cycles_per_issued_instruction():
    n = 132 * 8 * 256
    src = seed.seed_input(n)
    p = _profile(_launch(seed.saxpyCoalesced, n // 256, 256, src, src.copy(), np.zeros_like(src), f32(2), n))
    stalls = dict(zip(p.stalls["reason"], p.stalls["cycles_per_issue"]))
    metrics = dict(zip(p.metrics["metric"], p.metrics["value"]))
    assert stalls["selected"] == pytest.approx(1.0)
    assert sum(stalls.values()) == pytest.approx(metrics["warp_cycles_per_issued_instruction"])
    assert max(stalls, key=stalls.get) == "long_scoreboard"  # a memory-bound copy
    assert math.isclose(p.stalls["share_pct"].sum(), 100.0)
    for key in (
        "duration_ns",
        "elapsed_cycles",
        "ipc_active",
        "issue_slot_utilization_pct",
        "achieved_occupancy_pct",
        "eligible_warps_per_scheduler",
        "sm_frequency_hz",
    ):
        assert key in metrics
    assert 0 < metrics["issue_slot_utilization_pct"] <= 100
    assert p.launches["duration_ns"][0] == pytest.approx(metrics["duration_ns"])


def test_compute_bound_loop_is_issue_bound_and_divergence_costs_nothing_on_random_data():
    n = 132 * 8 * 256  # a full SM: 8 blocks of 8 warps, 16 warps per scheduler
    data = seed.seed_input(n)
    div = _launch(seed.withDivergence, n // 256, 256, data.copy(), n).timing
    nodiv = _launch(seed.noDivergence, n // 256, 256, data.copy(), n).timing
    sorted_ = _launch(seed.withDivergenceSorted, n // 256, 256, np.sort(data), n).timing
    assert abs(div.duration_ns / nodiv.duration_ns - 1) < 0.10
    assert sorted_.duration_ns < 0.8 * div.duration_ns
    states = nodiv.state_cycles()
    # with every warp slot full, latency is hidden: warps wait for the issue slot
    assert max((v, k) for k, v in states.items() if k != "selected")[1] == "not_selected"


def test_bank_conflicts_and_padding():
    t = 256
    src = seed.seed_input(t * t)
    out = np.zeros_like(src)
    naive = _launch(seed.transposeNaive, (t // 32, t // 32), (32, 32), out, src, t, t).timing
    conflicted = _launch(seed.transposeShared0, (t // 32, t // 32), (32, 32), out, src, t, t).timing
    padded = _launch(seed.transposeShared1, (t // 32, t // 32), (32, 32), out, src, t, t).timing
    assert padded.duration_ns < conflicted.duration_ns
    c, p = conflicted.state_cycles(), padded.state_cycles()
    assert c["short_scoreboard"] > 2 * p["short_scoreboard"]  # waiting on the 32-way LDS
    assert naive.state_cycles()["barrier"] == 0 and c["barrier"] > 0


def test_achieved_occupancy_respects_the_register_limit():
    n = 132 * 12 * 256
    src = seed.seed_input(n)
    p = _profile(_launch(seed.heavyRegisters, n // 256, 256, src, np.zeros_like(src), n))
    metrics = dict(zip(p.metrics["metric"], p.metrics["value"]))
    assert metrics["theoretical_occupancy_pct"] == 75.0
    assert 40.0 < metrics["achieved_occupancy_pct"] <= 75.0


def test_small_grid_is_timed_per_block_and_launch_overhead_dominates():
    c = np.arange(40 * 32, dtype=np.float32)
    r = _launch(seed.tinyBlocks, 40, 32, c, c.size).timing
    assert r.active_sms == 40 and 1 < len(r.simulated) <= 8
    t = TIMINGS["sm_90"]
    assert r.duration_ns > t.launch_overhead_ns
    p = _profile(_launch(seed.tinyBlocks, 40, 32, c, c.size))
    occ = p.metrics.filter(pl.col("metric") == "achieved_occupancy_pct")["value"][0]
    assert occ == pytest.approx(100 / 64)  # one warp on a 64-warp SM, as ncu measures


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_runs_and_issues_the_same_instructions(policy):
    SETTINGS.policy = policy
    n = 132 * 2 * 256
    src = seed.seed_input(n)
    r = _launch(seed.reduceSequential, n // 256, 256, src, np.zeros(n // 256, np.float32)).timing
    SETTINGS.policy = "gty"
    base = _launch(seed.reduceSequential, n // 256, 256, src, np.zeros(n // 256, np.float32)).timing
    assert r.policy == policy and r.issued == base.issued
    assert r.state_cycles()["barrier"] > 0


def test_timing_can_be_turned_off_and_counters_do_not_depend_on_it():
    n = 132 * 256
    src = seed.seed_input(n)
    timed = _launch(seed.copyStrided, n // 256, 256, src, np.zeros_like(src), n, 32)
    SETTINGS.timing = False
    untimed = _launch(seed.copyStrided, n // 256, 256, src, np.zeros_like(src), n, 32)
    assert untimed.timing is None and timed.timing is not None
    assert timed.counters.total() == untimed.counters.total()
    p = _profile(untimed)
    assert p.stalls.is_empty() and p.timeline.is_empty()


def test_timeline_table_and_perfetto_trace():
    a = seed.seed_input(8 * 256)
    p = _profile(_launch(seed.reduceShuffle, 8, 256, a, np.zeros(64, np.float32)))
    tl = p.timeline
    assert tl.height > 0 and set(tl["state"].unique()) <= set(STATES)
    assert (tl["end_cycle"] > tl["start_cycle"]).all()
    data = json.loads(json.dumps(trace_events(p)))
    complete = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == tl.height
    assert {e["name"] for e in complete} == set(tl["state"].unique())
    assert all(e["dur"] > 0 and isinstance(e["ts"], int) for e in complete)


def test_every_architecture_has_parameters():
    for arch in ("sm_70", "sm_80", "sm_86", "sm_89", "sm_90"):
        t = timing_for(arch)
        assert t.arch == arch and t.clock_hz > 0 and t.dram_sectors_per_cycle > 0
    assert timing_for("sm_120").arch == "sm_120"  # nearest older parameters
    SETTINGS.arch = "sm_80"
    a = seed.seed_input(256 * 256)
    r = _launch(seed.saxpyCoalesced, 256, 256, a, a.copy(), np.zeros_like(a), f32(2), a.size).timing
    assert r.arch == "sm_80" and r.sms == 108


def test_two_emulations_at_once_keep_their_own_settings_and_launches():
    """Settings and recorders are per thread (context): two emulations running at the same time
    with different architectures and schedulers each get their own, as the TUI's worker and a
    second emulation would. Run one after the other first, for the reference."""
    import threading

    from warpscope.emulator.runner import emulate_file

    path = Path(__file__).parent / "data" / "emulate_saxpy.py"
    configs = {"a": Settings(arch="sm_75", policy="lrr"), "b": Settings(arch="sm_90", policy="gto")}
    alone = {k: emulate_file(path, s) for k, s in configs.items()}
    together: dict[str, object] = {}
    start = threading.Barrier(2)

    def run(key: str) -> None:
        start.wait()
        together[key] = emulate_file(path, configs[key])

    threads = [threading.Thread(target=run, args=(k,)) for k in configs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key, settings in configs.items():
        profile = together[key]
        assert isinstance(profile, type(alone[key]))
        launches = profile.launches
        assert launches.height == 2  # its own two launches, not the other thread's
        assert set(launches["compute_capability"]) == {
            settings.arch.removeprefix("sm_")[0] + "." + settings.arch[-1]
        }
        assert launches.drop("launch_id").equals(alone[key].launches.drop("launch_id"))
        assert profile.metrics.sort("launch_id", "metric").equals(
            alone[key].metrics.sort("launch_id", "metric")
        )
    assert SETTINGS.arch == "sm_90" and SETTINGS.policy == "gty"  # the defaults were never touched


def test_the_timing_model_is_told_the_element_a_negative_index_reads(monkeypatch):
    """``a[i - 1]`` on thread 0 reads ``a[-1]``, the last element (numba wraps negative
    indices): the trace gets that element's address, as for the stores and loads of every
    other lane, not an address before the array."""
    from warpscope.emulator import cuda
    from warpscope.emulator.runtime import Run

    told = []
    cost = Run.memory_cost
    monkeypatch.setattr(
        Run,
        "memory_cost",
        lambda self, a, index, *r, **k: told.append(index) or cost(self, a, index, *r, **k),
    )

    @cuda.jit
    def previous(out, a):
        i = cuda.grid(1)
        out[i - 1] = a[i - 1] + 1

    a = np.arange(64, dtype=f32)
    out = np.zeros(64, f32)
    SETTINGS.timing = True
    _launch(previous, 1, 64, out, a)
    assert np.array_equal(out, a + 1)  # thread 0 wrote out[-1] = a[-1] + 1
    assert len(told) == 2 and all(
        np.array_equal(np.asarray(index[0]) % 64, np.roll(np.arange(64), 1)) for index in told
    )
    assert all(int(np.min(index[0])) == 0 and int(np.max(index[0])) == 63 for index in told)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_wide_shared_accesses_made_only_by_unsampled_warps_are_timed(dtype):
    """8- and 16-byte shared accesses made only by a block the timing model does not sample
    (block 1 of 40: blocks 0, 6, 11, ... are sampled) are timed, not an internal error: the
    sampled warps in its chunk have no lane active, so their wavefronts are none."""
    from warpscope.emulator import cuda

    @cuda.jit
    def only_block_one(out):
        sh = cuda.shared.array(128, dtype)
        t = cuda.threadIdx.x
        if cuda.blockIdx.x == 1:
            sh[t] = t
            out[t] = sh[127 - t]

    out = np.zeros(128, dtype)
    SETTINGS.timing = True
    launch = _launch(only_block_one, 40, 128, out)
    assert np.array_equal(out, np.arange(127, -1, -1).astype(dtype))
    site = launch.counters.total()
    assert site.shared_store_requests == 4 and site.shared_load_requests == 4  # block 1's 4 warps
    assert launch.timing is not None and launch.timing.cycles > 0


@given(st.integers(1, 400))
def test_a_grid_no_larger_than_the_gpu_is_sampled_from_its_first_block_to_its_last(n_blocks):
    """Up to eight single-block SMs: every block of a grid of up to eight, else the first, the
    last and six evenly between (a grid of 2-7 blocks once left its last block unsampled)."""
    sms = 132
    picked = [b for (b,) in sampled_blocks(n_blocks, sms)] if n_blocks <= sms else None
    if picked is None:
        assert sampled_blocks(n_blocks, sms) == [list(range(0, n_blocks, sms))]
        return
    assert picked == sorted(set(picked))
    assert len(picked) == min(n_blocks, SMALL_GRID_SAMPLES)
    assert picked[0] == 0 and picked[-1] == n_blocks - 1
