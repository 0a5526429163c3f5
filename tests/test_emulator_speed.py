"""Issue 40 (the emulator at interactive speed): what the speed work must keep and add —
``WARPSCOPE_TIMING=0``, the summary line of ``warpscope emulate``, and the trace's per-warp
sectors computed for all warps at once exactly as ``np.unique`` per warp gave them."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli
from warpscope.emulator import EmulatorError, arrays, cuda, fma
from warpscope.emulator.kernel import Settings, using
from warpscope.emulator.simt import Mask
from warpscope.emulator.trace import FEW_POSITIONS, LINE_SECTORS, _per_warp

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


def test_warpscope_timing_0_turns_the_timing_model_off_by_default(monkeypatch):
    monkeypatch.delenv("WARPSCOPE_TIMING", raising=False)
    assert Settings().timing
    for off in ("0", "false", "off", "no"):
        monkeypatch.setenv("WARPSCOPE_TIMING", off)
        assert not Settings().timing
    monkeypatch.setenv("WARPSCOPE_TIMING", "1")
    assert Settings().timing
    monkeypatch.setenv("WARPSCOPE_TIMING", "0")
    assert Settings(timing=True).timing  # said in code: kept


def test_a_script_launching_kernels_itself_runs_without_timing_under_warpscope_timing_0(tmp_path):
    script = tmp_path / "launches.py"
    script.write_text(
        "import numpy as np\n"
        "from warpscope.emulator import cuda\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    i = cuda.grid(1)\n"
        "    if i < a.size:\n"
        "        a[i] += 1\n"
        "a = np.zeros(64, np.float32)\n"
        "print(k[2, 32](a).timing is None, a.sum())\n"
    )
    for value, expected in (("0", "True 64.0"), ("1", "False 64.0")):
        out = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "WARPSCOPE_TIMING": value},
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == expected


def test_emulate_says_instructions_wall_time_and_rate(tmp_path):
    out = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "-o", str(tmp_path / "r.md"))
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if x.startswith("warpscope: emulated")]
    assert line.startswith("warpscope: emulated 2 launches, ")
    assert " warp instructions in " in line and " M warp instructions/s, timing model " in line
    off = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "--no-timing", "-o", str(tmp_path / "r.md"))
    assert off.returncode == 0 and "timing model" not in off.stderr


def test_per_warp_sectors_and_lines_equal_np_unique_per_warp():
    rng = np.random.default_rng(40)
    for trial in range(500):
        warps, lanes = int(rng.integers(1, 6)), int(rng.choice([32, 33, 40]))
        rows = rng.integers(-1, int(rng.integers(1, 300)), size=(warps, lanes))
        if trial % 3 == 0:
            rows[int(rng.integers(0, warps))] = -1  # a warp with no active lane
        for keep in (True, False):
            for row, got in zip(rows, _per_warp(rows, keep).per_warp()):
                ids = np.unique(row[row >= 0])
                assert got.units == np.unique(ids // LINE_SECTORS).size
                if keep:
                    assert got.sectors is not None and np.array_equal(got.sectors, ids)
                else:
                    assert got.sectors is None


def test_seeding_by_doubling_gives_the_states_of_the_chain_of_jumps():
    from warpscope.emulator import random as r

    def chain(n: int, seed: int, start: int) -> np.ndarray:
        s0 = s1 = r._splitmix64(seed & r._MASK64)
        for _ in range(start):
            s0, s1 = r._jump(s0, s1)
        out = []
        for i in range(n):
            if i:
                s0, s1 = r._jump(s0, s1)
            out.append((s0, s1))
        return np.array(out, dtype=np.uint64)

    for n, seed, start in ((1, 1, 0), (2, 7, 0), (3, 12345, 5), (67, 2**63 + 5, 0), (130, 42, 3)):
        states = np.zeros(n, dtype=r.xoroshiro128p_dtype)
        r.init_xoroshiro128p_states(states, seed, start)
        want = chain(n, seed, start)
        assert (states["s0"] == want[:, 0]).all() and (states["s1"] == want[:, 1]).all(), (n, seed, start)


def test_a_repeated_small_launch_reuses_its_timing_and_a_different_one_does_not(monkeypatch):
    from warpscope.emulator import cuda, timing
    from warpscope.emulator.kernel import using

    @cuda.jit
    def bump(a, k):
        i = cuda.grid(1)
        if i < k:
            a[i] += 1

    simulated = []
    real = timing._simulate
    monkeypatch.setattr(timing, "_simulate", lambda *a: simulated.append(a) or real(*a))
    a = np.zeros(64, np.float32)
    with using(Settings(timing=True)):
        unhashed, first, again = bump[2, 32](a, 40), bump[2, 32](a, 40), bump[2, 32](a, 40)
        other = bump[2, 32](a, 20)
    # a kernel's first timed launch is simulated without a hash (none of it came before); the
    # third launch's trace equals the second's
    assert len(simulated) == 3
    assert first.timing is not None and again.timing is not None and other.timing is not None
    assert unhashed.timing is not None and unhashed.timing.cycles == first.timing.cycles
    assert again.timing is not first.timing  # a copy: its wall time is its own
    assert dataclasses.replace(again.timing, wall_s=0.0) == dataclasses.replace(first.timing, wall_s=0.0)
    assert other.timing.cycles != first.timing.cycles or other.timing.simulated != first.timing.simulated


def _timing_fields(result):
    """Every field of a timing result but the host's wall time, the timelines as lists."""
    fields = {k: v for k, v in vars(result).items() if k not in ("wall_s", "simulated")}
    return fields | {"simulated": [vars(r) | {"timeline": r.timeline.tolist()} for r in result.simulated]}


@pytest.mark.parametrize("sectors", [2, 8])  # a trace hashed as recorded, and as laid out flat
def test_a_repeated_launch_gets_a_remembered_timing_only_for_the_same_trace(monkeypatch, sectors):
    """A small launch's timing is remembered by its trace's digest (a loop launching one
    kernel): a launch whose one thread gathers the same sectors in another order hashes
    apart, and what a launch is given, remembered or not, is what simulating its trace
    afresh gives."""
    from warpscope.emulator import kernel, timing
    from warpscope.emulator.timing import compiled

    captured = []
    timed = kernel._timed
    monkeypatch.setattr(
        kernel,
        "_timed",
        lambda trace, table, *args: captured.append((trace, table, args)) or timed(trace, table, *args),
    )

    @cuda.jit
    def gather(out, x, idx):
        for k in range(idx.size):
            out[k] = x[idx[k]] + 1

    simulated = []
    simulate = timing._simulate
    monkeypatch.setattr(timing, "_simulate", lambda *args: simulated.append(1) or simulate(*args))
    x = np.arange(4096, dtype=np.float32)
    # the same sectors, each read twice: at once, or after the others
    twice, cycled = np.repeat(np.arange(sectors) * 64, 2), np.tile(np.arange(sectors) * 64, 2)
    results = []
    for idx in (twice, twice, cycled, cycled):
        out = np.zeros(idx.size, np.float32)
        with using(Settings(timing=True)):
            results.append(gather[1, 1](out, x, idx).timing)
        assert np.array_equal(out, x[idx] + 1)
    # simulated: the first launch (never hashed), the second and the third; the fourth remembered
    assert len(simulated) == 3
    monkeypatch.setattr(timing, "_simulate", simulate)
    digests = [trace.digest() for trace, _, _ in captured]
    assert digests[0] == digests[1] != digests[2] == digests[3]
    assert (captured[0][0].traced > FEW_POSITIONS) == (sectors == 8)
    for (trace, table, args), got in zip(captured, results):
        fresh = timing._simulate(trace, table, *args, compiled.use_compiled(trace.traced))
        assert _timing_fields(got) == _timing_fields(fresh)


def test_small_chunks_are_shared_between_launches_and_read_only():
    from warpscope.emulator.simt import chunk_for

    a, b = chunk_for((2, 1, 1), (64, 1, 1), 0, 2), chunk_for((2, 1, 1), (64, 1, 1), 0, 2)
    assert a is b and not a.tid[0].flags.writeable and not a.entry.arr.flags.writeable
    big = chunk_for((64, 1, 1), (1024, 1, 1), 0, 64)
    assert big is not chunk_for((64, 1, 1), (1024, 1, 1), 0, 64)


def test_the_emulator_imports_without_numba_and_gives_numba_type_names_when_asked():
    code = (
        "import sys\n"
        "from warpscope.emulator import cuda\n"
        "assert 'numba' not in sys.modules and 'importlib.metadata' not in sys.modules\n"
        "assert 'numpy.ma' not in sys.modules\n"
        "import numba\n"
        "assert cuda.float32 is numba.float32 and cuda.types is numba.types\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_global_access_repeated_by_whole_sectors_counts_what_counting_it_again_gives(monkeypatch):
    """A loop's global accesses reuse their site's earlier counts where the addresses moved by
    whole sectors under the same mask (``arrays._repeated``): every counter equals a run that
    counts each access afresh, on patterns that repeat, move by part of a sector, or change."""
    from warpscope.emulator import arrays, cuda
    from warpscope.emulator.kernel import using

    @cuda.jit
    def walk(a, out, n, stride):
        i = cuda.grid(1)
        if i < n:
            s = a[0] * 0
            for k in range(20):
                s += a[i * stride + k]  # moves by one element: 8 phases of a sector
                s += a[i * stride + 8 * k]  # by a whole sector: the same counts each time
                s += a[(i * (k % 3 + 1)) % n]  # another pattern every iteration, repeating
                s += a[(i * stride + 8 * k) % n]  # by a whole sector but where it wraps
            out[i] = s

    reused = []
    repeated = arrays._repeated
    monkeypatch.setattr(arrays, "_repeated", lambda *a: reused.append(repeated(*a)) or reused[-1])

    def counters(lanes: int) -> list[object]:
        monkeypatch.setattr(arrays, "PATTERN_LANES", lanes)
        got = []
        for stride, n in ((1, 8192), (3, 8192), (1, 8000)):
            a = np.arange(n * stride + 160, dtype=np.float32)
            out = np.zeros(n, np.float32)
            with using(Settings(timing=False)):
                launch = walk[n // 256 + 1, 256](a, out, n, stride)
            got.append((sorted((k, dataclasses.asdict(v)) for k, v in launch.counters.sites.items()), out))
        return got

    remembered = counters(4096)
    assert sum(r is not None for r in reused) > 60  # most of the loop reused its counts
    afresh = counters(1 << 40)
    for (sites, out), (want_sites, want_out) in zip(remembered, afresh):
        assert sites == want_sites and np.array_equal(out, want_out)
    assert not arrays._PATTERNS  # forgotten at the launch's end


def test_a_grid_stride_loop_counts_from_its_thread_index_moved(monkeypatch):
    """``for i in range(cuda.grid(1), n, stride)``: the counter is the chunk's thread index
    (read-only, ``Chunk.grid_index``; written out as ``threadIdx.x + blockIdx.x * blockDim.x``,
    remembered by ``affine``) moved by a scalar (``affine.moved``), so its accesses reuse their
    counts; every counter, the timing and the results equal a run that remembers nothing,
    including a last iteration that only some lanes run and a stride that moves by part of a
    sector."""
    from warpscope.emulator import affine, arrays, cuda
    from warpscope.emulator.kernel import using

    @cuda.jit
    def scale(out, src, factor):
        start = cuda.grid(1)
        for i in range(start, src.shape[0], cuda.gridsize(1)):
            out[i] = src[i] * factor - i

    @cuda.jit
    def scale_by_hand(out, src, factor):  # the index and stride written out (affine's memo)
        start = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        for i in range(start, src.shape[0], cuda.blockDim.x * cuda.gridDim.x):
            out[i] = src[i] * factor - i

    noted, reused = [], []
    moved, repeated = affine.moved, arrays._repeated
    monkeypatch.setattr(affine, "moved", lambda *a: noted.append(affine.offset_of(v := moved(*a))) or v)
    monkeypatch.setattr(arrays, "_repeated", lambda *a: reused.append(repeated(*a)) or reused[-1])

    def run(kernel, lanes: int, grid: int, block: int, dtype: type, n: int) -> tuple[object, ...]:
        monkeypatch.setattr(arrays, "PATTERN_LANES", lanes)
        monkeypatch.setattr(affine, "MIN_LANES", lanes)
        noted.clear()
        reused.clear()
        src = np.linspace(-1, 1, n).astype(dtype)
        out = np.zeros_like(src)
        with using(Settings(timing=True)):
            launch = kernel[grid, block](out, src, dtype(3.0))
        sites = sorted((k, dataclasses.asdict(v)) for k, v in launch.counters.sites.items())
        return sites, launch.timing.cycles, out

    # whole sectors a step; 252 float32 lanes a step (31.5 sectors); fewer lanes than remembered
    for kernel, (grid, block, dtype, n) in itertools.product(
        (scale, scale_by_hand),
        ((4, 64, np.float64, 5000), (7, 36, np.float32, 3001), (3, 64, np.float64, 1001)),
    ):
        remembered = run(kernel, 256, grid, block, dtype, n)
        if grid * 64 >= 256:  # each counter known as its start moved; most accesses reused
            assert noted and all(o is not None for o in noted)
            assert sum(r is not None for r in reused) >= len(noted)
        afresh = run(kernel, 1 << 40, grid, block, dtype, n)
        assert remembered[:2] == afresh[:2] and np.array_equal(remembered[2], afresh[2])
        assert np.allclose(remembered[2], np.linspace(-1, 1, n) * 3.0 - np.arange(n), rtol=1e-5)


def test_a_few_warps_accesses_are_traced_as_for_many(monkeypatch):
    """``Trace.accesses`` on lists for a chunk of a few warps, or for a few active lanes of a
    larger chunk (one lane, one warp's, scattered over several warps), gives what its numpy
    path gives: global (aligned or straddling sectors), local and shared, some lanes inactive,
    some warps not sampled, every lane at one address now and then (a serial loop's)."""
    from warpscope.emulator import memory
    from warpscope.emulator.arrays import Allocation
    from warpscope.emulator.simt import Mask, chunk_for
    from warpscope.emulator.trace import Trace

    few_warps = memory.FEW_WARPS  # read once: the loop below sets it
    rng = np.random.default_rng(7)
    sampled = (0, 6, 11, 17, 22, 28, 33, 39)  # of 40 blocks on 132 SMs (``sampled_blocks``)
    for trial in range(400):
        per_block = int(rng.integers(1, 5))
        blocks = int(rng.integers(1, 4))  # a chunk of blocks: some sampled, some not
        first = (
            int(rng.choice(sampled)) - int(rng.integers(0, blocks)) if trial % 3 else int(rng.integers(0, 40))
        )
        first = min(max(first, 0), 40 - blocks)
        warps = per_block * blocks
        kind = str(rng.choice(["global", "local", "shared"]))
        itemsize = int(rng.choice([1, 2, 4, 8, 16] + ([12, 64] if kind != "shared" else [])))
        step = itemsize if trial % 4 else 1  # misaligned now and then
        addresses = (1 << 20) + rng.integers(0, 64, size=warps * 32) * step
        if trial % 3 == 0:
            addresses = np.int64(addresses[0])
        active = rng.random(warps * 32) < (0.7, 0.7, 0.15, 0.0)[trial % 4]
        if not active.any() or trial % 8 == 3:  # one lane, or one warp's lanes
            w = int(rng.integers(0, warps))
            lanes = (
                [int(rng.integers(32 * w, 32 * w + 32))] if trial % 16 == 3 else range(32 * w, 32 * w + 29)
            )
            active[:] = False
            active[list(lanes)] = True
        mask = Mask(active)
        array = type("A", (), {"alloc": Allocation(1, 1 << 20, 64 * 64)})()
        got = []
        for few in (few_warps, 0):
            monkeypatch.setattr(memory, "FEW_WARPS", few)
            trace = Trace(40, per_block, 132)
            trace.start_chunk(chunk_for((40, 1, 1), (per_block * 32, 1, 1), first, blocks))
            a = trace.accesses(kind, array, addresses, itemsize, mask, bool(trial % 2))
            got.append((a, {k: (v[1].copy(), v[2].copy()) for k, v in trace.touched.items()}))
        (few_access, few_touched), (many_access, many_touched) = got
        assert (few_access is None) == (many_access is None)
        if few_access is not None:
            for name in ("units", "counts", "sectors"):
                x, y = getattr(few_access, name), getattr(many_access, name)
                assert (x is None) == (y is None) and (
                    x is None or (x.dtype == y.dtype and np.array_equal(x, y))
                )
        assert few_touched.keys() == many_touched.keys()
        for k in few_touched:
            assert all(np.array_equal(x, y) for x, y in zip(few_touched[k], many_touched[k]))


@given(
    per_block=st.integers(1, 4),
    blocks=st.integers(1, 3),
    first=st.integers(0, 37),
    element=st.integers(0, 40),
    itemsize=st.sampled_from([1, 2, 4, 8, 16, 32]),
    seed=st.integers(0, 2**32 - 1),
    density=st.sampled_from([0.0, 0.05, 0.5, 0.95, 1.0]),
)
def test_a_uniform_local_access_under_any_mask_is_traced_as_its_lanes_addresses_are(
    per_block, blocks, first, element, itemsize, seed, density
):
    """``Trace.uniform_local`` (every lane at one element of its own copy) gives what
    ``Trace.accesses`` gives for those lanes' interleaved addresses, whatever lanes are active
    (divergent code: a branch some lanes take) and whichever of the chunk's warps are sampled."""
    from warpscope.emulator.simt import Mask, chunk_for
    from warpscope.emulator.trace import Trace

    active = np.random.default_rng(seed).random(per_block * blocks * 32) < density
    mask = Mask(active)
    chunk = chunk_for((40, 1, 1), (per_block * 32, 1, 1), first, blocks)
    got, want = Trace(40, per_block, 132), Trace(40, per_block, 132)
    got.start_chunk(chunk)
    want.start_chunk(chunk)
    fast = got.uniform_local(element, itemsize, mask)
    addresses = element * (32 * itemsize) + chunk.lane_id * itemsize
    general = want.accesses("local", None, addresses, itemsize, mask, False)
    assert (fast is None) == (general is None)
    if fast is not None:
        assert fast.counts is None and fast.sectors is None
        assert fast.units.dtype == general.units.dtype and np.array_equal(fast.units, general.units)


def test_a_global_access_moved_by_whole_lines_is_traced_as_counted_afresh():
    """``Trace.accesses`` remembers a global access's sampled warps by its read-only lane
    terms, mask and phase in a 128-byte line; the same terms moved by any scalar (whole
    lines, part of one, backwards), under the same or another mask, of elements that straddle
    sectors or not, give what a trace that never saw them gives."""
    from warpscope.emulator.arrays import Allocation
    from warpscope.emulator.simt import Mask, chunk_for
    from warpscope.emulator.trace import Trace

    rng = np.random.default_rng(11)
    array = type("A", (), {"alloc": Allocation(1, 1 << 20, 1 << 16)})()
    for trial in range(40):
        warps = int(rng.integers(3, 9))  # more than a few: the numpy path
        itemsize = int(rng.choice([1, 4, 8, 12, 16, 64]))
        terms = rng.integers(0, 512, size=warps * 32) * int(rng.choice([1, itemsize]))
        terms.flags.writeable = False  # remembered lane terms, as arrays hands them over
        masks = [Mask(np.ones(warps * 32, bool)), Mask(rng.random(warps * 32) < 0.6)]
        chunk = chunk_for((4, 1, 1), (warps * 32, 1, 1), 0, 1)
        remembering = Trace(4, warps, 132)
        remembering.start_chunk(chunk)
        for step in range(12):
            scalar = np.int64((1 << 20) + int(rng.choice([0, 128, -256, 8, 32, 1024])) * step)
            mask = masks[int(rng.integers(0, 2))]
            got = remembering.accesses("global", array, terms, itemsize, mask, False, scalar=scalar)
            fresh = Trace(4, warps, 132)
            fresh.start_chunk(chunk)
            want = fresh.accesses("global", array, terms + scalar, itemsize, mask, False)
            for name in ("units", "counts", "sectors"):
                assert np.array_equal(getattr(got, name), getattr(want, name)), (trial, step, name)
        assert remembering._global_seen  # it remembered them


def test_freed_memory_is_kept_only_where_the_environment_does_not_say(tmp_path):
    """``heap.keep_freed_memory`` raises glibc's thresholds once, and leaves a process whose
    environment sets them as it is."""
    import ctypes.util

    libc = ctypes.util.find_library("c") or ""
    if not sys.platform.startswith("linux") or "musl" in libc:
        pytest.skip("needs glibc")
    code = "from warpscope.emulator import heap; print(heap.keep_freed_memory(), heap.keep_freed_memory())"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert plain.stdout.split() == ["True", "True"]
    env["MALLOC_MMAP_THRESHOLD_"] = str(1 << 20)
    told = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert told.stdout.split() == ["False", "False"]


def test_a_top_level_function_parsed_alone_is_the_whole_files_tree_of_it():
    """``source`` parses a top-level kernel's own lines: the same tree, positions included, as
    the whole file's; a cut that would split a string or bracket falls back to the file."""
    import ast

    from warpscope.emulator import source

    raw = [
        "import numpy as np\n",
        "@cuda.jit(\n",
        "    'void(f4[:])')\n",
        "def k(a):\n",
        "    s = '''\n",
        "x'''\n",  # a string whose line starts in the first column: not the end of k
        "    a[0] = 1\n",
        "# a comment in the first column\n",
        "\n",
        "    # and one indented\n",
        "def main():\n",
        "    def inner(x):\n",
        "        return x\n",
        "    return inner\n",
    ]
    whole = source._all_definitions(raw)
    assert source._top_level_definition(raw, "k", 2) is None  # the string cut: the file decides
    main = source._top_level_definition(raw, "main", 11)
    assert main is not None
    assert ast.dump(main, include_attributes=True) == ast.dump(whole[("main", 11)], include_attributes=True)
    assert source._top_level_definition(raw, "inner", 12) is None  # nested: the file decides
    plain = raw[:4] + ["    s = 1\n", "    a[1] = 2\n"] + raw[6:]
    k = source._top_level_definition(plain, "k", 2)
    assert k is not None and k.end_lineno == 7
    assert ast.dump(k, include_attributes=True) == ast.dump(
        source._all_definitions(plain)[("k", 2)], include_attributes=True
    )


def test_a_kernel_a_factory_defines_is_parsed_from_the_factory_alone():
    """A nested kernel (a factory's) is found in its top-level statement, parsed alone: the
    same tree, positions included, as the whole file's, without parsing the file; where that
    statement's cut does not parse (a string at the first column), nothing is found there and
    the caller parses the file."""
    import ast

    from warpscope.emulator import source

    raw = [
        "import numpy as np\n",
        "@factory_decorator\n",
        "def make(n):\n",
        "    # a comment\n",
        "\n",
        "    @cuda.jit\n",
        "    def k(a):\n",
        "        a[0] = n\n",
        "    return k\n",
        "def other():\n",
        "    s = '''\n",
        "x'''\n",  # a string whose line starts in the first column: the cut splits it
        "    @cuda.jit\n",
        "    def j(a):\n",
        "        a[0] = 1\n",
        "    return j\n",
    ]
    whole = source._all_definitions(raw)
    for line in (6, 7, 8):  # the kernel's decorator, its def, its body
        found = source._enclosing_definitions(raw, line)
        assert set(found) == {("make", 2), ("k", 6)}
        for key, tree in found.items():
            assert ast.dump(tree, include_attributes=True) == ast.dump(whole[key], include_attributes=True)
    assert source._enclosing_definitions(raw, 13) == {}  # other's string cuts it: the file decides
    assert ("j", 13) in whole


def test_a_launch_that_compiles_leaves_no_young_objects_and_keeps_a_users_freeze():
    """The collector's young generations are emptied without a pass after a launch that
    compiled (not after one that did not); where the program froze objects, nothing moves."""
    import gc

    from warpscope.emulator import cuda

    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    a = np.zeros(64, np.float32)
    fill[2, 32](a)
    assert gc.get_count()[0] < 700 and a[63] == 63
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()

        @cuda.jit
        def again(a):
            a[cuda.grid(1)] = 1

        again[2, 32](a)
        assert gc.get_freeze_count() <= frozen  # none added (frozen objects may die)
    finally:
        gc.unfreeze()


def test_objects_moved_past_the_collector_are_collected_once_enough_have_moved(monkeypatch):
    """A program compiling kernels in a loop: the cycles it drops are collected by a full
    collection once ``PROMOTED_MAX`` objects have been moved without a pass."""
    import gc
    import weakref

    from warpscope.emulator import cuda
    from warpscope.emulator.kernel import _CollectorPaused

    class Node:
        pass

    monkeypatch.setattr(_CollectorPaused, "PROMOTED_MAX", 10**9)
    monkeypatch.setattr(_CollectorPaused, "promoted", 0)
    a = np.zeros(32, np.float32)

    def launch_new_kernel() -> None:
        @cuda.jit
        def k(a):
            a[cuda.grid(1)] += 1

        k[1, 32](a)

    gc.collect()  # young counts at zero: no collection before the launch
    cycle = Node()
    cycle.self = cycle  # garbage only a collection frees
    alive = weakref.ref(cycle)
    del cycle
    launch_new_kernel()  # moved to the oldest generation, not collected
    assert alive() is not None and _CollectorPaused.promoted > 0
    monkeypatch.setattr(_CollectorPaused, "PROMOTED_MAX", 0)
    launch_new_kernel()  # past the bound: a full collection
    assert alive() is None and _CollectorPaused.promoted == 0 and a[0] == 2
    gc.collect()


_DOUBLES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e308, -1e308, 1 / 3]),
)


@settings(max_examples=3000, deadline=None)
@given(_DOUBLES, _DOUBLES, _DOUBLES)
def test_a_scalar_float64_fma_is_the_vector_ones_bit_for_bit(a, b, c):
    """One thread's (uniform) float64 fused multiply-add on Python floats gives the very bits
    numpy's lane-vector steps give, NaNs and overflow included."""
    f64 = np.dtype(np.float64)
    with np.errstate(all="ignore"):  # as a launch runs it
        one = fma.fused(np.float64(a), np.float64(b), np.float64(c), f64)
        lanes = fma.fused(np.array([a, 1.0]), np.array([b, 1.0]), np.array([c, 1.0]), f64)
    assert type(one) is np.float64
    assert one.tobytes() == lanes[0].tobytes()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_DOUBLES, _DOUBLES, _DOUBLES), min_size=1, max_size=40),
    st.sampled_from(["lanes", "square", "one value", "an integer array"]),
    st.booleans(),
)
def test_lanes_float64_fmas_are_each_lanes_scalar_one_bit_for_bit(triples, factor, scalar_addend):
    """numpy's lane steps (a factor of the lanes', the same array twice, one value split on
    Python floats, or integers; an addend of one value broadcast) give each lane the bits of
    its own scalar fused multiply-add."""
    f64 = np.dtype(np.float64)
    a, b, c = (np.array(v, dtype=np.float64) for v in zip(*triples))
    if factor == "square":
        b = a
    elif factor == "an integer array":
        b = np.nan_to_num(b, posinf=0.0, neginf=0.0).clip(-(2**53), 2**53).astype(np.int64)
    per_lane = (lambda k: b[0]) if factor == "one value" else (lambda k: b[k])
    addend = np.float64(c[0]) if scalar_addend else c
    with np.errstate(all="ignore"):  # as a launch runs it
        lanes = fma.fused(a, np.float64(b[0]) if factor == "one value" else b, addend, f64)
        for k in range(a.size):
            one = fma.fused(a[k], np.float64(per_lane(k)), c[0] if scalar_addend else c[k], f64)
            assert one.tobytes() == lanes[k].tobytes()


def test_a_uniform_index_is_checked_wrapped_and_faulted_as_a_lanes_index():
    """A serial (one-element) index is taken as it is where it lies inside the array, and
    wraps or faults where it does not, as the same index held by every lane does."""
    array = arrays.ArrayRef(np.arange(12.0).reshape(3, 4), "a")
    mask = Mask(np.ones(32, bool))
    for i, j in itertools.product(range(-4, 5), range(-5, 6)):
        scalar = (np.int64(i), np.int64(j))
        lanes = (np.full(32, i, np.int64), np.full(32, j, np.int64))
        try:
            expected = [
                np.broadcast_to(x, 32).tolist() for x in arrays.checked_index(array, lanes, mask, write=False)
            ]
        except arrays.OutOfBounds:
            with pytest.raises(arrays.OutOfBounds):
                arrays.checked_index(array, scalar, mask, write=False)
            continue
        got = arrays.checked_index(array, scalar, mask, write=False)
        assert [np.broadcast_to(x, 32).tolist() for x in got] == expected
        if 0 <= i < 3 and 0 <= j < 4:
            assert got == scalar and all(type(x) is np.int64 for x in got)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
def test_merge_is_np_where_bit_for_bit_below_and_above_the_blend_size(dtype):
    """``runtime.merge`` takes ``np.where`` on small chunks and a bit blend on large ones, and
    copies each lane's bits either way: NaNs with payloads and -0.0 too, under dense, sparse,
    empty and full masks."""
    from warpscope.emulator.runtime import BLEND_MIN, merge

    rng = np.random.default_rng(11)
    for lanes in (32, 128, BLEND_MIN - 32, BLEND_MIN, 2 * BLEND_MIN):
        raw = rng.integers(0, 256, size=(2, lanes * np.dtype(dtype).itemsize), dtype=np.uint8)
        new, old = (r.view(dtype) if dtype is not np.bool_ else r.astype(bool) for r in raw)
        for density in (0.0, 0.01, 0.5, 1.0):
            active = rng.random(lanes) < density
            got = merge(Mask(active), new, old)
            want = np.where(active, new, old)
            assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))


@cuda.jit
def _row_reductions(A, A3, o, n):
    i = cuda.grid(1)
    if i < n:
        row = A[i]
        o[i, 0] = row.sum()
        o[i, 1] = A[i, 1:].max()  # a slice of the row
        o[i, 2] = np.mean(A[i, ::2])  # a stepped one
        o[i, 3] = A.sum()  # every thread the whole array: one element for every lane
        o[i, 4] = A3[i].prod()  # a row of two axes
        o[i, 5] = A[i - n].sum()  # a negative row: wrapped, as numba does


@cuda.jit
def _sum_past_the_end(A, o, step):
    i = cuda.grid(1)
    o[i] = A[i * step + 1].sum()  # the last thread's row is past the end


@cuda.jit
def _sum_a_row_another_writes(A, o, n):
    i = cuda.grid(1)
    if i < n:
        A[i, 0] = i
        o[i] = A[(i + 1) % n].sum()  # thread i + 1 wrote its first element: a race


def _launch_both_ways(monkeypatch, kernel, grid, block, make, one_by_one=None, **settings):  # type: ignore[no-untyped-def]
    """``kernel`` launched with whole arrays read at once (``arrays.load_all``) and element by
    element (``one_by_one`` sets that up): (the arrays after, the launch or its fault) each way."""
    runs = []
    for at_once in (True, False):
        if not at_once:
            if one_by_one is None:
                monkeypatch.setattr(arrays, "load_all", lambda *args, **kw: None)
            else:
                one_by_one()
        data = make()
        with using(Settings(timing=True, **settings)):
            try:
                launch = kernel[grid, block](*data)
                timing = launch.timing
                assert timing is not None
                did: object = (
                    sorted((line, dataclasses.asdict(s)) for line, s in launch.counters.sites.items()),
                    [dataclasses.asdict(h) for h in launch.hazards],
                    [dataclasses.asdict(w) for w in launch.barrier_warnings],
                    (
                        timing.cycles,
                        [(r.issued, r.state_cycles, r.l1_lookups, r.l2_lookups) for r in timing.simulated],
                    ),
                )
            except EmulatorError as e:
                did = str(e)
        runs.append(([np.asarray(d).copy() for d in data if isinstance(d, np.ndarray)], did))
    return runs


@pytest.mark.parametrize("threads", [5, 40, 300])  # a partial warp, warps, past the remembered lanes
def test_a_thread_reading_whole_rows_counts_and_times_as_element_by_element(monkeypatch, threads):
    """A reduction reads its array in one gather (``arrays.load_all``): the values, per-line
    counters, timing and hazards are those of reading it one element at a time, for rows,
    slices, stepped slices, rows of several axes and the whole array; a negative row is left
    to the element-by-element path (it wraps)."""

    def make():  # type: ignore[no-untyped-def]
        A = (np.arange(threads * 7, dtype=np.float64).reshape(threads, 7) % 5) + 1
        A3 = (np.arange(threads * 6, dtype=np.float32).reshape(threads, 2, 3) % 3) + 1
        return A, A3, np.zeros((threads, 6)), threads

    (at_once, did), (one_by_one, did_one_by_one) = _launch_both_ways(
        monkeypatch, _row_reductions, -(-threads // 32), 32, make
    )
    assert did == did_one_by_one
    for a, b in zip(at_once, one_by_one):
        np.testing.assert_array_equal(a, b)
    A, A3, o = at_once
    np.testing.assert_array_equal(o[:, 0], A.sum(axis=1))
    np.testing.assert_array_equal(o[:, 1], A[:, 1:].max(axis=1))
    np.testing.assert_allclose(o[:, 2], A[:, ::2].mean(axis=1))
    np.testing.assert_array_equal(o[:, 3], A.sum())
    np.testing.assert_allclose(o[:, 4], A3.reshape(threads, -1).prod(axis=1))
    np.testing.assert_array_equal(o[:, 5], A.sum(axis=1))


@cuda.jit
def _serial_copies(out32, a32, out64, a64, m, n_out, rec, k):
    """One thread's loops of one element at a time: float32 and float64, a matrix (and its
    rows), an int array, a value cast on its way in, negative indices, a record's field, a read
    past the end."""
    for i in range(a32.size):
        out32[i] = a32[i] * 2.0  # float32 on both sides
        out64[i] = a64[i] + a64[a64.size - 1 - i]
    for i in range(m.shape[0]):
        row = m[i]  # a row: nothing read yet, no line counted
        for j in range(row.size):
            m[i, j] = m[i, j] + i * j
    for i in range(n_out.size):
        n_out[i] = a64[i]  # float64 into int64: a cast
        n_out[-1 - i] += 1
    rec[0]["x"] = a32[0] + rec[0]["y"]
    out64[0] = a64[k]


@pytest.mark.parametrize("k", [3, 17, 500])  # inside, just past the end (reads 0), far past (a fault)
def test_one_element_every_lane_names_loads_and_stores_as_the_general_path(monkeypatch, k):
    """A load or store of one global element every active lane names, where no racecheck listens
    (``arrays.load_one``, ``store_one``: a one-thread loop's), gives the values, per-line
    counters, timing and faults of ``load`` and ``store``; what they leave to those (a cast,
    a negative index, a record, a read past the end) is unchanged."""
    rec_type = np.dtype([("x", np.float32), ("y", np.float32)])

    def make():  # type: ignore[no-untyped-def]
        rec = np.zeros(2, rec_type)
        rec["y"] = 3
        a64 = np.arange(16, dtype=np.float64) * 1.5
        m = np.arange(12, dtype=np.int32).reshape(3, 4)
        return (
            np.zeros(16, np.float32),
            np.arange(16, dtype=np.float32),
            np.zeros(16),
            a64,
            m,
            np.zeros(5, np.int64),
            rec,
            k,
        )

    def general() -> None:
        monkeypatch.setattr(arrays, "load_one", lambda *args: None)
        monkeypatch.setattr(arrays, "store_one", lambda *args: False)

    (fast, did), (slow, did_slow) = _launch_both_ways(monkeypatch, _serial_copies, 1, 1, make, general)
    assert did == did_slow
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
    if k == 500:
        assert isinstance(did, str) and "out-of-bounds" in did
        return
    out32, a32, out64, a64, m, n_out, rec = fast
    assert all(any(counts.values()) for _, counts in did[0])  # no line counted that ran nothing
    np.testing.assert_array_equal(out32, a32 * 2)
    assert out64.tolist() == [a64[k] if k < a64.size else 0.0] + [22.5] * 15
    np.testing.assert_array_equal(m, np.arange(12).reshape(3, 4) + np.outer(np.arange(3), np.arange(4)))
    assert n_out.tolist() == [1, 2, 4, 4, 6] and rec["x"].tolist() == [3.0, 0.0]
    assert [w["kind"] for w in did[2]] == (["past_end"] if k >= a64.size else [])


@cuda.jit
def _one_element_by_many(out, w, flag):
    """Threads of two blocks naming one element each time: all read ``w[0]``, thread 0 alone
    writes ``flag[0]``, every thread writes ``w[2]`` (they race: WAW), thread 5 writes
    ``w[3]`` that every thread read before (WAR)."""
    i = cuda.grid(1)
    scale = w[0]
    if i < out.size:
        out[i] = scale * i
    if i == 0:
        flag[0] = scale
    w[2] = scale
    seen = w[3]
    if i == 5:
        w[3] = scale + 1.0
    if i < out.size:
        out[i] += seen


def test_one_element_many_threads_name_is_heard_by_racecheck_as_the_general_path(monkeypatch):
    """Under racecheck, a load or store of one element every active lane names
    (``arrays.load_one``, ``store_one``) is heard as ``load`` and ``store`` have it heard: the
    same hazards (the threads writing one element race), counters, timing and values."""

    def make():  # type: ignore[no-untyped-def]
        return np.zeros(100), np.array([1.5, 0.0, 0.0, 2.0]), np.zeros(1)

    def general() -> None:
        monkeypatch.setattr(arrays, "load_one", lambda *args: None)
        monkeypatch.setattr(arrays, "store_one", lambda *args: False)

    (fast, did), (slow, did_slow) = _launch_both_ways(
        monkeypatch, _one_element_by_many, 2, 64, make, general, racecheck=True
    )
    assert did == did_slow
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
    assert not isinstance(did, str)
    kinds = {(h["kind"], h["array"]) for h in did[1]}
    assert {("WAW", "w"), ("WAR", "w")} <= kinds
    out, w, flag = fast
    np.testing.assert_array_equal(out, 1.5 * np.arange(100) + 2.0)  # w[3] read before thread 5's write
    assert flag.tolist() == [1.5] and w.tolist() == [1.5, 0.0, 1.5, 2.5]


def test_a_row_past_the_end_faults_at_the_same_element_and_a_raced_row_races_alike(monkeypatch):
    """A row just past the array's end reads what a GPU reads there (0, and a warning), one far
    past faults: at the same element, with the same message; a race on a row is found alike."""
    (out, just_past), (out_one_by_one, just_past_one_by_one) = _launch_both_ways(
        monkeypatch, _sum_past_the_end, 1, 8, lambda: (np.ones((8, 4)), np.zeros(8), 1)
    )
    assert just_past == just_past_one_by_one and not isinstance(just_past, str)
    assert out[1].tolist() == out_one_by_one[1].tolist() == [4.0] * 7 + [0.0]
    assert [w["kind"] for w in just_past[2]] == ["past_end"]  # the warning, said alike
    monkeypatch.undo()
    (_, fault), (_, fault_one_by_one) = _launch_both_ways(
        monkeypatch, _sum_past_the_end, 1, 8, lambda: (np.ones((8, 4)), np.zeros(8), 100)
    )
    assert isinstance(fault, str) and fault == fault_one_by_one and "out-of-bounds" in fault
    monkeypatch.undo()
    (after, raced), (after_one_by_one, raced_one_by_one) = _launch_both_ways(
        monkeypatch, _sum_a_row_another_writes, 1, 64, lambda: (np.ones((40, 3)), np.zeros(40), 40)
    )
    assert raced == raced_one_by_one and raced[1]  # the hazards found either way
    for a, b in zip(after, after_one_by_one):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("stem", ["c65", "c84", "c11", "c08", "c41", "c06", "c29"])
def test_a_small_traces_flat_layout_on_lists_is_numpys(monkeypatch, stem):
    """``Trace.flat`` lays a trace of a few positions out on lists (``_flat_few``): the same
    arrays, C-ordered int64, as the numpy layout gives, on real kernels' traces (one stream
    and several, divergent ones, global and shared accesses)."""
    import contextlib
    import io
    import types

    from warpscope.emulator import kernel as kernel_module
    from warpscope.emulator import trace as trace_module

    traces = []
    timed = kernel_module._timed
    monkeypatch.setattr(kernel_module, "_timed", lambda t, *a: traces.append(t) or timed(t, *a))
    path = next((ROOT / "tests" / "numba_corpus").glob(f"{stem}_*.py"))
    module = types.ModuleType(f"_flat_{stem}")
    module.__file__ = str(path)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    with using(Settings(timing=True)), contextlib.redirect_stdout(io.StringIO()):
        module.main()
    assert traces
    for t in traces:
        layouts = []
        for few in (10**9, 0):  # on lists, then numpy's
            monkeypatch.setattr(trace_module, "FEW_POSITIONS", few)
            t._flat = None
            layouts.append(t.flat())
        for name in ("start", "insts", "ops", "units", "sec_off", "sectors"):
            a, b = (getattr(f, name) for f in layouts)
            assert a.dtype == b.dtype == np.int64 and a.flags.c_contiguous, name
            np.testing.assert_array_equal(a, b, err_msg=name)


def test_a_constant_is_one_closure_per_type_and_bits_and_a_variable_one_per_name():
    """A kernel's tree holds one closure per distinct constant and one per local name read
    (the compile cache loads fewer objects); constants equal in value but not in type or bits
    (0.0 and -0.0, 1 and 1.0, records of two layouts) stay apart."""
    from warpscope.emulator.ir import Const, run_expr

    def value(c):
        return run_expr(Const(c))(None, None, None)

    assert run_expr(Const(np.float64(0.5))) is run_expr(Const(np.float64(0.5)))
    pairs = [
        (np.float64(0.0), np.float64(-0.0)),
        (np.int64(1), np.float64(1.0)),
        (np.float32(1.0), np.float64(1.0)),
        (np.zeros((), "i4,i4")[()], np.zeros((), "i8")[()].view("f4,f4")[()]),
    ]
    for a, b in pairs:
        assert run_expr(Const(a)) is not run_expr(Const(b))
        for c in (a, b):
            got = value(c)
            assert type(got) is type(c) and got.dtype == c.dtype and got.tobytes() == c.tobytes()
    assert np.isnan(value(np.float32("nan"))) and value(np.float32("nan")).dtype == np.float32

    @cuda.jit
    def signs(out, x):
        t = x[0]
        out[0] = math.copysign(1.0, -0.0) + t - t
        out[1] = math.copysign(1.0, 0.0) + t * 0.0
        out[2] = t + t + t

    out = np.zeros(3)
    signs[1, 1](out, np.array([2.0]))
    assert out.tolist() == [-1.0, 1.0, 6.0]
    fn = next(iter(signs._compiled.values()))
    reads = [c for c in _closures(fn.body) if c.__name__ == "get"]
    assert len(reads) == len({c.__closure__[0].cell_contents for c in reads})  # one per name


def _closures(value, seen=None):
    """Every closure reachable from ``value`` through closure cells, lists and tuples."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    found = []
    if callable(value) and getattr(value, "__closure__", None):
        found.append(value)
        for cell in value.__closure__:
            with contextlib.suppress(ValueError):  # a cell never assigned
                found += _closures(cell.cell_contents, seen)
    elif isinstance(value, (list, tuple)):
        for v in value:
            found += _closures(v, seen)
    return found


def _ufuncs_both_ways(monkeypatch, kernel, threads, make, **settings):  # type: ignore[no-untyped-def]
    """``kernel`` launched on one block of ``threads`` with ufuncs over whole arrays at once
    and element by element (``_launch_both_ways``): whether each ufunc ran at once, and the
    arrays after, having checked that both ways gave the same arrays (dtype and bytes),
    counters, hazards, warnings and timing."""
    from warpscope.emulator.compiler import expressions

    ran: list[bool] = []
    fast = expressions._ufunc_at_once
    monkeypatch.setattr(expressions, "_ufunc_at_once", lambda *a: ran.append(fast(*a)) or ran[-1])
    (at_once, did), (one_by_one, did_one_by_one) = _launch_both_ways(
        monkeypatch,
        kernel,
        1,
        threads,
        make,
        lambda: monkeypatch.setattr(expressions, "_ufunc_at_once", lambda *a: False),
        **settings,
    )
    assert did == did_one_by_one
    for a, b in zip(at_once, one_by_one):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return ran, at_once


@cuda.jit
def _ufuncs_on_arrays(x, y, r, s, q, A, B, flags, i32, o32):
    np.sin(x, r)
    np.add(x, y, s)  # float32 and float64 arrays
    np.multiply(x, 2.5, q)  # an array and a number
    np.exp(A[1], B[0])  # rows of two-axis arrays
    np.sqrt(A, A)  # in place: each element read before it is written
    np.greater(x, 0.0, flags)
    np.add(i32, i32, o32)  # one operand twice; integers wrap
    np.negative(x[1:], x[:-1])  # overlapping views: each element as the loop goes


@pytest.mark.parametrize(("threads", "racecheck"), [(1, True), (2, False), (2, True)])
def test_a_ufunc_over_whole_arrays_runs_at_once_and_counts_and_times_as_element_by_element(
    monkeypatch, threads, racecheck
):
    """``np.sin(x, r)`` in a kernel (numba-cuda's "calling a NumPy ufunc") reads, computes and
    writes its arrays at once where they name the same elements on every lane: values bit for
    bit (NaN, infinities, -0.0, integer wrap), per-line counters, hazards, warnings and timing
    are those of the element-by-element loop; overlapping views and racecheck (on two
    threads) are left to the loop."""
    x = np.array([0.0, -0.0, 1.5, -3.0, np.inf, -np.inf, np.nan, 1e30, 1e-30, 7.0], np.float32)

    def make():  # type: ignore[no-untyped-def]
        A = np.linspace(0.5, 4.0, 30).reshape(3, 10)
        i32 = np.array([2**31 - 1, -(2**31), 5, -7, 0, 1, 2, 3, 4, 2**30], np.int32)
        return (
            x.copy(),
            np.linspace(-2, 2, 10),
            np.zeros(10, np.float32),
            np.zeros(10),
            np.zeros(10, np.float32),
            A,
            np.zeros((2, 10)),
            np.zeros(10, bool),
            i32,
            np.zeros(10, np.int32),
        )

    at_once_ran, at_once = _ufuncs_both_ways(
        monkeypatch, _ufuncs_on_arrays, threads, make, racecheck=racecheck
    )
    if threads == 2 and racecheck:
        assert at_once_ran == []  # racecheck hears each access in turn: the loop's
    else:
        assert at_once_ran == [True] * 7 + [False]  # all but the overlapping views
    r, s, q, A, B, flags, o32 = (at_once[k] for k in (2, 3, 4, 5, 6, 7, 9))
    with np.errstate(all="ignore"):
        assert r.tobytes() == np.sin(x).tobytes() and flags.tolist() == (x > 0).tolist()
        assert s.tobytes() == (x + np.linspace(-2, 2, 10)).tobytes()
        assert q.tobytes() == (x * 2.5).astype(np.float32).tobytes()
    np.testing.assert_array_equal(B[0], np.exp(np.linspace(0.5, 4.0, 30).reshape(3, 10)[1]))
    np.testing.assert_array_equal(A, np.sqrt(np.linspace(0.5, 4.0, 30).reshape(3, 10)))
    assert o32[0] == -2 and o32[1] == 0  # wrapped


@cuda.jit
def _ufuncs_on_slices(x, r, A, B):
    np.sin(x[2:7], r[0:5])  # slices of two arrays
    np.add(A[0, 2:], A[1, 2:], B[1, :3])  # slices of rows
    np.multiply(A[0, ::2], 3.0, B[0, 1:4])  # a stepped slice


def test_a_ufunc_over_slices_runs_at_once_as_element_by_element(monkeypatch):
    """Slices of arrays and of rows (stepped too) name the same elements on every lane: read,
    computed and written at once, as the element loop does them."""

    def make():  # type: ignore[no-untyped-def]
        return np.linspace(-3, 3, 9), np.zeros(6), np.arange(10.0).reshape(2, 5), np.zeros((2, 5))

    at_once_ran, at_once = _ufuncs_both_ways(monkeypatch, _ufuncs_on_slices, 1, make)
    assert at_once_ran == [True] * 3
    _, r, A, B = at_once
    assert r[:5].tolist() == np.sin(np.linspace(-3, 3, 9)[2:7]).tolist() and r[5] == 0
    assert B[1, :3].tolist() == (A[0, 2:] + A[1, 2:]).tolist()
    assert B[0, 1:4].tolist() == (A[0, ::2] * 3.0).tolist()
