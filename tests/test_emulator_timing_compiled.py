"""The compiled timing model (``timing/compiled.py``, ``timing/jit_sm.py``) measures what the
reference (``timing/sm.py``, plain Python) measures: the same cycles, counters, stall
cycles and timeline rows, launch for launch, on the seed workload under every scheduler
policy and on every file of the numba corpus; and without numba the reference runs. Launches
timed on the timing thread (``timing/overlap.py``) measure what launches timed inline do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from warpscope.emulator import cuda
from warpscope.emulator.kernel import Launch, Settings, recording, using
from warpscope.emulator.timing import POLICIES, compiled, overlap
from warpscope.emulator.workloads import seed

pytest.importorskip("numba", reason="the compiled model needs numba (the test extras install it)")

CORPUS = Path(__file__).parent / "numba_corpus"
sys.path.insert(0, str(CORPUS))
import harness  # noqa: E402  (the corpus's own runner, beside its files)

#: the corpus files the emulator stops in (test_numba_corpus.KNOWN_DIFFERENCES says why)
STOPS = {"c75_numba_ex_laplace2d_smem"}


def _timed(monkeypatch: pytest.MonkeyPatch, jit: str, run) -> list[Launch]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("WARPSCOPE_JIT", jit)
    with recording() as launches:
        run()
    return launches


def _assert_same(reference: list[Launch], fast: list[Launch]) -> None:
    assert len(reference) == len(fast) > 0
    for a, b in zip(reference, fast):
        ta, tb = a.timing, b.timing
        assert ta is not None and tb is not None
        assert (ta.cycles, ta.duration_ns, len(ta.simulated)) == (
            tb.cycles,
            tb.duration_ns,
            len(tb.simulated),
        )
        for x, y in zip(ta.simulated, tb.simulated):
            for name, value in vars(x).items():
                other = getattr(y, name)
                if name == "timeline":
                    assert np.array_equal(value, other), (a.kernel, name)
                else:
                    assert value == other, (a.kernel, name, value, other)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_seed_workload_times_the_same_compiled(monkeypatch, policy):
    with using(Settings(timing=True, policy=policy)):
        reference = _timed(monkeypatch, "0", lambda: seed.main(64))
        fast = _timed(monkeypatch, "1", lambda: seed.main(64))
    assert sum(l.timing.issued for l in fast) > 500_000  # type: ignore[union-attr]
    _assert_same(reference, fast)


@pytest.mark.parametrize(
    "path", [pytest.param(p, id=p.stem) for p in harness.corpus_files() if p.stem not in STOPS]
)
def test_every_corpus_file_times_the_same_compiled(monkeypatch, path):
    with using(Settings(timing=True)):
        reference = _timed(monkeypatch, "0", lambda: harness.run_warpscope(path))
        fast = _timed(monkeypatch, "1", lambda: harness.run_warpscope(path))
    _assert_same(reference, fast)


@pytest.mark.parametrize("overlap_min", [0, 20_000])
def test_launches_timed_on_the_timing_thread_measure_what_inline_timing_does(monkeypatch, overlap_min):
    """Launches timed on the timing thread while the next launches run (every launch, or
    those of 20,000 traced instructions and more and those made while the thread is busy, the
    others timed where they are made) get the very result of timing each launch where it is
    made, in launch order."""
    monkeypatch.setenv("WARPSCOPE_JIT", "1")
    with using(Settings(timing=True)):
        monkeypatch.setattr(overlap, "OVERLAP_MIN", 1 << 62)
        inline = _timed(monkeypatch, "1", lambda: seed.main(64))
        monkeypatch.setattr(overlap, "OVERLAP_MIN", overlap_min)
        overlapped = _timed(monkeypatch, "1", lambda: seed.main(64))
    handed = [l for l in overlapped if l._timing_job is not None]
    assert all(l._timing_job is None for l in inline)
    if overlap_min == 0:
        assert len(handed) == len(overlapped)
    else:  # some of each: the seed at 1/64 has launches of both sizes
        assert 0 < len(handed) < len(overlapped)
    _assert_same(inline, overlapped)
    assert all(l._timing_job is None for l in overlapped)  # read once, kept


def test_a_launchs_sms_timed_two_at_a_time_measure_what_one_at_a_time_does(monkeypatch):
    """``compiled.run_all``: a launch's simulated SMs on the pool's threads (every launch of
    several SMs, however small) give the very results of timing them in turn, in SM order."""
    monkeypatch.setattr(overlap, "OVERLAP_MIN", 1 << 62)  # every launch timed where it is made
    with using(Settings(timing=True)):
        monkeypatch.setattr(compiled, "PARALLEL_MIN", 1 << 40)
        one_by_one = _timed(monkeypatch, "1", lambda: seed.main(64))
        threads: set[str] = set()
        run = compiled.run

        def noting(*args, **kwargs):  # type: ignore[no-untyped-def]
            threads.add(threading.current_thread().name)
            return run(*args, **kwargs)

        monkeypatch.setattr(compiled, "run", noting)
        monkeypatch.setattr(compiled, "PARALLEL_MIN", 0)
        together = _timed(monkeypatch, "1", lambda: seed.main(64))
    if (os.cpu_count() or 1) > 1:
        assert any(name.startswith("warpscope-sm") for name in threads)
    _assert_same(one_by_one, together)


@pytest.mark.parametrize(
    "settle",
    [
        pytest.param(lambda: cuda.synchronize(), id="synchronize"),
        pytest.param(lambda: cuda.stream().synchronize(), id="stream"),
        pytest.param(lambda: cuda.event().record(), id="event-record"),
    ],
)
def test_synchronize_and_events_wait_for_the_timing_thread(monkeypatch, settle):
    """``cuda.synchronize()`` (a stream's too) returns, and an event records its time, once
    every launch handed to the timing thread is timed: a script timing its launches up to
    there counts their timing."""
    monkeypatch.setenv("WARPSCOPE_JIT", "1")
    monkeypatch.setattr(overlap, "OVERLAP_MIN", 0)
    with using(Settings(timing=True)), recording() as launches:
        seed.main(256)
        settle()
        jobs = [l._timing_job for l in launches]
    assert jobs and all(job is not None and job.done() for job in jobs)


def test_a_timing_that_fails_on_the_thread_fails_where_it_is_read(monkeypatch):
    """An exception in a job on the timing thread is its future's, raised where that launch's
    timing is read; the thread goes on with the next job, and once idle a small launch is
    timed where it is made again."""
    monkeypatch.setenv("WARPSCOPE_JIT", "1")

    def fails() -> None:
        raise RuntimeError("no warp can ever issue again")

    failed = overlap.run(fails, overlap.OVERLAP_MIN)
    after = overlap.run(lambda: "timed", overlap.OVERLAP_MIN)
    overlap.wait()  # waits, raises nothing
    assert isinstance(failed, Future) and isinstance(failed.exception(), RuntimeError)
    assert isinstance(after, Future) and after.result() == "timed"
    assert overlap.run(lambda: "inline", 1) == "inline"


FORKED = """
import os, sys
os.environ["WARPSCOPE_JIT"] = "1"
from warpscope.emulator.timing import overlap
overlap.run(lambda: 1, overlap.OVERLAP_MIN).result()  # the parent's timing thread started
pid = os.fork()
if pid == 0:  # the child has no timing thread: a new one times its launch
    os._exit(0 if overlap.run(lambda: 2, overlap.OVERLAP_MIN).result() == 2 else 1)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
def test_a_forked_child_times_its_launches_on_a_thread_of_its_own():
    """After a fork the child starts its own timing thread (the parent's is not in it): its
    big launches are timed, never left waiting."""
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_small_launches_stay_in_python_until_the_model_is_loaded(monkeypatch):
    """Auto mode: loading numba (~0.3 s) only pays for a large launch."""
    monkeypatch.delenv("WARPSCOPE_JIT", raising=False)
    monkeypatch.setattr(compiled, "_run_sm", None)
    monkeypatch.setattr(compiled, "_reference_s", 0.0)  # nor has the reference spent its load time
    small = seed.seed_input(256)
    with recording() as launches:
        seed.withDivergence[1, 256](small.copy(), small.size)
    assert not compiled.worth_it(sum(s.issued for s in launches[0].timing.simulated))  # type: ignore[union-attr]
    assert compiled.worth_it(compiled.JIT_MIN)
    monkeypatch.setenv("WARPSCOPE_JIT", "0")
    assert not compiled.worth_it(10 * compiled.JIT_MIN)


def test_many_small_launches_load_the_model_once_the_reference_spent_as_long(monkeypatch):
    """Rent or buy: the reference's time over small launches, once it reaches the model's
    load time, pays for loading it."""
    monkeypatch.delenv("WARPSCOPE_JIT", raising=False)
    monkeypatch.setattr(compiled, "_run_sm", None)
    monkeypatch.setattr(compiled, "_reference_s", 0.0)
    assert not compiled.repaid()
    cost = compiled.load_cost()
    compiled.spent_in_reference(cost, compiled.RENT_MIN - 1)  # tiny: the model would not help
    assert not compiled.repaid()
    compiled.spent_in_reference(cost * 0.9, compiled.RENT_MIN)
    assert not compiled.repaid()
    compiled.spent_in_reference(cost * 0.1, compiled.RENT_MIN)
    assert compiled.repaid()
    # loaded at the first launch the model times faster, not at a tiny one
    assert not compiled.use_compiled(compiled.RENT_MIN - 1) and compiled.use_compiled(compiled.RENT_MIN)


def test_a_launch_whose_foreseen_reference_time_would_reach_the_price_loads_the_model(monkeypatch):
    """Rent or buy in its classic form: the launch to come counts at ``REFERENCE_S`` a traced
    instruction, so one that would take the reference past the load's price loads the model
    instead (the corpus's c28: 53 ms spent, a 28,416-instruction launch of 99 ms to come)."""
    monkeypatch.delenv("WARPSCOPE_JIT", raising=False)
    monkeypatch.setattr(compiled, "_run_sm", None)
    half = compiled.load_cost() / 2
    monkeypatch.setattr(compiled, "_reference_s", half)
    crossing = int(half / compiled.REFERENCE_S)
    assert not compiled.repaid(crossing - 10) and compiled.repaid(crossing + 10)
    assert not compiled.use_compiled(crossing - 10) and compiled.use_compiled(crossing + 10)


def test_the_load_costs_less_once_numba_is_imported(monkeypatch):
    """Rent or buy counts numba's import in the price only while nothing has imported numba (a
    numba.cuda file naming numba's types imports it before any kernel is timed)."""
    import numba

    monkeypatch.setitem(sys.modules, "numba", numba)
    assert compiled.load_cost() == compiled.LOAD_S
    monkeypatch.delitem(sys.modules, "numba")
    assert compiled.load_cost() == compiled.LOAD_S + compiled.IMPORT_S


#: what two processes compare of their launches' timing: every field of every simulated SM,
#: the timeline as its shape and a hash of its bytes (tens of MB as JSON otherwise)
TIMINGS = """
import hashlib


def timings(launches):
    def plain(r):
        tl = r.timeline
        return vars(r) | {"timeline": [list(tl.shape), str(tl.dtype), hashlib.sha1(tl.tobytes()).hexdigest()]}

    return [[l.timing.cycles, [plain(r) for r in l.timing.simulated]] for l in launches]
"""


def _timings(launches: list[Launch]) -> list[object]:
    space: dict[str, object] = {}
    exec(TIMINGS, space)
    return json.loads(json.dumps(space["timings"](launches)))  # type: ignore[operator]


LIGHT = (
    TIMINGS
    + """
import json, sys
import numba  # before the load: what rent or buy prices as ``LOAD_S``
from warpscope.emulator.kernel import recording
from warpscope.emulator.timing import compiled
from warpscope.emulator.workloads import seed
with recording() as launches:
    seed.main(256)
print(json.dumps({
    "registries": "numba.np.linalg" in sys.modules,  # what numba's full refresh imports
    "loaded": compiled._run_sm is not None,
    "timings": timings(launches),
}))
"""
)


def test_a_later_process_loads_the_model_from_the_cache_without_numbas_full_refresh(monkeypatch):
    """Loading the cached model skips numba's target refresh (its typing and lowering registries,
    half the load's time): a process that loads it never imports them, and times the same."""
    fast = _timed(monkeypatch, "1", lambda: seed.main(256))  # this process compiled or loaded it: cached
    env = {**os.environ, "WARPSCOPE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, check=True, env=env)
    child = json.loads(out.stdout)
    assert child["loaded"] and not child["registries"]
    assert child["timings"] == _timings(fast)


def test_a_cache_miss_loads_as_numba_does(monkeypatch):
    """Where the light load finds nothing (a cache miss, or a numba whose cache works otherwise),
    numba's own load decides: the dispatcher is called as it always is."""
    calls = []

    class Cache:
        def load_overload(self, sig, ctx):
            calls.append(("full", sig))
            return "compiled"

        def _load_overload(self, sig, ctx):
            calls.append(("light", sig))
            return None

        def _guard_against_spurious_io_errors(self):
            import contextlib

            return contextlib.nullcontext()

    class Dispatcher:
        _cache = Cache()

    d = compiled._loading_lightly(Dispatcher())
    import numba  # noqa: F401  (the light load initialises numba's runtime)

    monkeypatch.setattr("numba.core.runtime.nrt.rtsys.initialize", lambda ctx: calls.append(("nrt", ctx)))
    assert d._cache.load_overload("sig", "ctx") == "compiled"
    assert calls == [("nrt", "ctx"), ("light", "sig"), ("full", "sig")]


SCRIPT = (
    TIMINGS
    + """
import json, sys
sys.modules["numba"] = None  # numba absent: importing it raises ImportError
from warpscope.emulator.kernel import recording
from warpscope.emulator.timing import compiled
from warpscope.emulator.workloads import seed
with recording() as launches:
    seed.main(256)
assert not compiled.numba_available() and compiled._run_sm is None
print(json.dumps(timings(launches)))
"""
)


def test_without_numba_the_reference_gives_the_same_results(monkeypatch):
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    plain = json.loads(out)
    fast = _timed(monkeypatch, "1", lambda: seed.main(256))  # every kernel, a quarter of the quick size
    assert _timings(fast) == plain


def test_first_touch_fractions_are_the_same_where_sector_ids_are_too_wide_to_pack(monkeypatch):
    """``timing._flat_fractions`` counts each SM's distinct loaded and stored sectors by one
    sort of (SM, direction, sector) packed into a word; sector ids too wide for that are
    sorted as pairs instead. Both give the reference's fractions on a grid of several SMs."""
    import warpscope.emulator.timing as timing_model
    from warpscope.emulator import cuda

    @cuda.jit
    def gather_scatter(out, a):
        i = cuda.grid(1)
        if i < a.size:
            out[(i * 7) % out.size] = a[i] + a[(i * 3) % a.size]

    def run() -> None:
        a = np.arange(1000, dtype=np.float32)
        gather_scatter[8, 128](np.zeros(1000, np.float32), a)

    with using(Settings(timing=True)):
        reference = _timed(monkeypatch, "0", run)
        packed = _timed(monkeypatch, "1", run)
        monkeypatch.setattr(timing_model, "_GROUP_SHIFT", 4)  # every sector id is wider than 4 bits
        pairs = _timed(monkeypatch, "1", run)
    assert len(reference[0].timing.simulated) == 8  # one SM per block
    _assert_same(reference, packed)
    _assert_same(reference, pairs)


@pytest.mark.parametrize("grid,block", [(1, 32), (3, 32), (2, 64)])
def test_a_small_launchs_fractions_on_sets_are_the_numpy_ones(monkeypatch, grid, block):
    """A launch of up to ``FEW_FRACTION_POSITIONS`` traced positions counts each SM's distinct
    loaded and stored sectors in Python sets (``timing._few_fractions``): the timing equals
    the sort's and the reference's, on one SM and on several, loads, stores and atomics."""
    import warpscope.emulator.timing as timing_model
    from warpscope.emulator import cuda

    @cuda.jit
    def touch(out, a, hits):
        i = cuda.grid(1)
        if i < a.size:
            out[(i * 7) % out.size] = a[i] + a[(i * 3) % a.size]
            cuda.atomic.add(hits, i % 4, 1)

    def run() -> None:
        touch[grid, block](np.zeros(100, np.float32), np.arange(100, dtype=np.float32), np.zeros(4, np.int32))

    with using(Settings(timing=True)):
        reference = _timed(monkeypatch, "0", run)
        few = _timed(monkeypatch, "1", run)
        monkeypatch.setattr(timing_model, "FEW_FRACTION_POSITIONS", 0)
        sorted_ = _timed(monkeypatch, "1", run)
    traced = sum(len(r.timeline) for r in few[0].timing.simulated)
    assert len(few[0].timing.simulated) == grid and traced
    _assert_same(reference, few)
    _assert_same(sorted_, few)
