"""Races between barriers, as compute-sanitizer's racecheck reports them: the emulator runs a
block in lockstep, so a missing barrier gives the right answer here and a wrong one on a GPU;
racecheck says so, with both lines, the kind, a thread pair and how many accesses raced."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpscope.emulator import cuda
from warpscope.emulator.kernel import Settings, using

N = 128  # threads per block of the stencils


def _line(fn, text: str) -> int:
    """The file line of the kernel's first source line containing ``text``."""
    import inspect

    lines, first = inspect.getsourcelines(fn.py_func)
    return first + next(i for i, line in enumerate(lines) if text in line)


@cuda.jit
def stencil_no_barrier(out, x):
    s = cuda.shared.array(N, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    if t > 0 and t < N - 1:
        out[i] = s[t - 1] + s[t] + s[t + 1]


@cuda.jit
def stencil_barrier(out, x):
    s = cuda.shared.array(N, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncthreads()
    if t > 0 and t < N - 1:
        out[i] = s[t - 1] + s[t] + s[t + 1]


def _stencil(kernel, blocks: int = 3):
    x = np.arange(blocks * N, dtype=np.float32)
    out = np.zeros_like(x)
    return kernel[blocks, N](out, x), out


def test_stencil_without_its_barrier_is_a_read_after_write_race_on_both_lines():
    launch, out = _stencil(stencil_no_barrier)
    # the lockstep emulator still computes the right sums: only racecheck tells
    assert out[1] == 0 + 1 + 2
    (h,) = launch.hazards
    assert (h.kind, h.space, h.array) == ("RAW", "shared", "s")
    assert h.first_line == _line(stencil_no_barrier, "s[t] = x[i]")
    assert h.second_line == _line(stencil_no_barrier, "out[i] = s[t - 1]")
    # threads 1..N-2 read two neighbours each, written by other threads, in every block
    assert h.count == 3 * 2 * (N - 2)
    assert h.block == (0, 0, 0)
    t1, t2 = h.first_thread[0], h.second_thread[0]
    assert abs(t1 - t2) == 1 and 1 <= t2 <= N - 2
    text = h.describe("k.py")
    assert f"k.py:{h.first_line}" in text and f"k.py:{h.second_line}" in text and "RAW" in text


def test_stencil_with_its_barrier_has_no_race():
    launch, out = _stencil(stencil_barrier)
    assert launch.hazards == [] and launch.racecheck
    assert out[1] == 3


def test_racecheck_off_looks_for_nothing():
    with using(Settings(timing=False, racecheck=False)):
        launch, _ = _stencil(stencil_no_barrier)
    assert launch.hazards == [] and not launch.racecheck


@cuda.jit
def shift_left(a):
    s = cuda.shared.array(N, np.int64)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    if t < N - 1:
        v = s[t + 1]
        s[t] = v  # thread t overwrites what thread t - 1 read: needs a barrier before it
    cuda.syncthreads()
    a[t] = s[t]


@cuda.jit
def everyone_writes(a):
    flag = cuda.shared.array(1, np.int64)
    flag[0] = cuda.threadIdx.x
    cuda.syncthreads()
    a[cuda.threadIdx.x] = flag[0]


def test_write_after_read_and_write_after_write():
    a = np.arange(N, dtype=np.int64)
    (h,) = shift_left[1, N](a).hazards
    assert h.kind == "WAR"
    assert (h.first_line, h.second_line) == (_line(shift_left, "v = s[t + 1]"), _line(shift_left, "s[t] = v"))
    assert h.count == N - 2  # threads 1..N-2 overwrite a value their left neighbour read
    assert h.second_thread[0] == h.first_thread[0] + 1
    (h,) = everyone_writes[2, 64](np.zeros(64, dtype=np.int64)).hazards
    assert h.kind == "WAW" and h.first_line == h.second_line == _line(everyone_writes, "flag[0] =")
    assert h.count == 2 * 63  # every thread but one per block


@cuda.jit
def global_in_place(a, n):
    i = cuda.grid(1)
    if i < n - 1:
        a[i] = a[i + 1]  # reads a neighbour's element that the neighbour overwrites


def test_global_races_are_judged_within_a_block_only():
    a = np.arange(64, dtype=np.float32)
    (h,) = global_in_place[2, 32](a, 64).hazards
    assert (h.kind, h.space, h.array) == ("WAR", "global", "a")
    # block 0: threads 1..31 overwrite what their left neighbour read (thread 31 reads block
    # 1's first element: another block, not a hazard racecheck reports); block 1: 1..30
    # (its last thread, i = 63, does nothing)
    assert h.count == 31 + 30


@cuda.jit
def warp_sum(out, x, synced):
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    s[t + 32] = 0
    if synced:
        cuda.syncwarp()
    v = s[t]
    k = 16
    while k > 0:
        v += s[t + k]
        if synced:
            cuda.syncwarp()
        s[t] = v
        if synced:
            cuda.syncwarp()
        k //= 2
    out[t] = v


@pytest.mark.parametrize(
    "arch,synced,raced",
    [
        ("sm_90", False, True),  # independent thread scheduling: lanes of a warp race
        ("sm_90", True, False),  # syncwarp orders them
        ("sm_70", False, True),
        ("sm_61", False, False),  # Pascal: a warp runs in lockstep, warp-synchronous code was legal
        ("sm_61", True, False),
    ],
)
def test_warp_synchronous_code_is_judged_by_the_architecture(arch, synced, raced):
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, dtype=np.float32)
    with using(Settings(arch=arch, timing=False)):
        launch = warp_sum[1, 32](out, x, synced)
    assert out[0] == x.sum()
    kinds = {h.kind for h in launch.hazards}
    assert bool(launch.hazards) is raced
    if raced:
        assert {"RAW", "WAR"} <= kinds
        raw = next(h for h in launch.hazards if h.kind == "RAW")
        assert raw.second_line == _line(warp_sum, "v += s[t + k]")
        assert raw.first_line in (_line(warp_sum, "s[t] = v"), _line(warp_sum, "s[t] = x[t]"))


@cuda.jit
def two_warps_no_barrier(out):
    s = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    s[t] = t
    cuda.syncwarp()  # orders a warp's own lanes, not the other warp
    out[t] = s[63 - t]


@pytest.mark.parametrize("arch", ["sm_61", "sm_90"])
def test_syncwarp_does_not_order_other_warps(arch):
    with using(Settings(arch=arch, timing=False)):
        (h,) = two_warps_no_barrier[1, 64](np.zeros(64, dtype=np.int64)).hazards
    assert h.kind == "RAW" and h.count == 64


def test_the_count_does_not_depend_on_how_blocks_are_chunked():
    a = np.arange(64, dtype=np.float32)
    with using(Settings(timing=False, chunk_lanes=32)):  # one block per chunk
        (h,) = global_in_place[2, 32](a, 64).hazards
    assert h.count == 31 + 30
    with using(Settings(timing=False, chunk_lanes=N)):
        (h,) = _stencil(stencil_no_barrier)[0].hazards
    assert h.count == 3 * 2 * (N - 2)


@cuda.jit
def reduce_early_return(src, out):
    s = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    s[t] = src[t]
    cuda.syncthreads()
    n = 128
    while n > 0:
        if t >= n:
            return  # after its last barrier: exited threads do not hold the others up
        s[t] += s[t + n]
        cuda.syncthreads()
        n //= 2
    if t == 0:
        out[0] = s[0]


@cuda.jit
def exchange_in_branches(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:
        s[t] = 1
        cuda.syncthreads()
    else:
        s[t] = 2
        cuda.syncthreads()
    out[t] = s[63 - t]  # after both branches' barriers: ordered


@cuda.jit
def race_before_branch_barrier(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:
        s[t] = 1
        cuda.syncthreads()
    else:
        v = s[t - 32]  # warp 1 reads, before its barrier, what warp 0 wrote before its own
        cuda.syncthreads()
        out[t] = v


def test_divergent_barriers_order_accesses_by_the_barriers_each_thread_passed():
    src = np.arange(256, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    launch = reduce_early_return[1, 256](src, out)
    assert out[0] == src.sum() and launch.hazards == [] and launch.barrier_warnings == []
    launch = exchange_in_branches[1, 64](np.zeros(64, dtype=np.int32))
    assert launch.hazards == [] and len(launch.barrier_warnings) == 2
    (h,) = race_before_branch_barrier[1, 64](np.zeros(64, dtype=np.int32)).hazards
    assert h.kind == "RAW" and h.count == 32
    assert (h.first_line, h.second_line) == (
        _line(race_before_branch_barrier, "s[t] = 1"),
        _line(race_before_branch_barrier, "v = s[t - 32]"),
    )


@cuda.jit
def exchange_inside_branches(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:
        s[t] = 1
        cuda.syncthreads()
        out[t] = s[t + 32]  # written by warp 1 before its barrier: the emulator runs that later
    else:
        s[t] = 2
        cuda.syncthreads()
        out[t] = s[t - 32]


def test_a_read_the_emulator_served_before_its_writer_wrote_is_warned_about():
    # the H100 gives 2s then 1s (tools/gpu/measured/issue39_barriers.txt); the emulator runs
    # the first branch to its end before the second, so its reads come too early: it says so
    out = np.zeros(64, dtype=np.int32)
    launch = exchange_inside_branches[1, 64](out)
    assert out[:32].tolist() == [0] * 32 and out[32:].tolist() == [1] * 32
    assert launch.hazards == []
    stale = [w for w in launch.barrier_warnings if "the emulator ran that write later" in w.what]
    (w,) = stale
    assert w.line == _line(exchange_inside_branches, "out[t] = s[t + 32]")
    assert w.thread == (0, 0, 0)
    assert (
        f"thread (32, 0, 0), reaches at another syncthreads after writing it at line {w.line + 2}" in w.what
    )
    assert "the 32 value(s) read here differ from a GPU's" in w.what


@cuda.jit
def first_block_writes_again(out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t] = t
    if cuda.blockIdx.x == 0:
        s[t] += 1
    cuda.syncthreads()
    out[cuda.grid(1)] = s[t]


def test_a_later_access_by_lower_blocks_only_is_judged_without_error():
    """The accesses between two barriers come record by record, the last one may be by the
    first block alone (fast_matmul's guarded tile loads on a non-square grid did this): the
    shared-address table must still cover every block's lanes."""
    out = np.zeros(64, dtype=np.float32)
    launch = first_block_writes_again[2, 32](out)
    assert launch.hazards == []
    assert out[:32].tolist() == [t + 1 for t in range(32)] and out[32:].tolist() == list(range(32))


@cuda.jit
def atomic_then_plain_read(out):
    s = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 0
    cuda.syncthreads()
    if t >= 32:
        cuda.atomic.add(s, 0, 1)
    if t == 0:
        out[0] = s[0]


@cuda.jit
def plain_write_then_atomics(out):
    s = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 5
    if t >= 32:
        cuda.atomic.add(s, 0, 1)
    cuda.syncthreads()
    if t == 0:
        out[1] = s[0]


@cuda.jit
def atomics_only(out, hist):
    s = cuda.shared.array(4, np.int32)
    t = cuda.threadIdx.x
    if t < 4:
        s[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(s, t % 4, 1)
    cuda.atomic.max(s, 0, t)
    cuda.atomic.add(hist, t % 2, 1)
    cuda.syncthreads()
    if t < 4:
        out[t] = s[t]


def test_an_atomic_and_a_plain_access_without_a_barrier_race():
    """An atomic is a read-modify-write: a plain read of its address by another thread with no
    barrier between is a RAW hazard, a plain write a WAW one. (On the H100 the plain write of
    ``plain_write_then_atomics`` landed after the 32 atomic adds and wiped them: the kernel
    gave 5, where the emulator's order gives 37; compute-sanitizer's racecheck reported
    neither pair: ``tools/gpu/issue39_more/atomics_race.py``, ``tools/gpu/measured/issue39_more/``.)"""
    out = np.zeros(2, np.int32)
    with using(Settings(timing=False)):
        read = atomic_then_plain_read[1, 64](out)
        write = plain_write_then_atomics[1, 64](out)
    (h,) = read.hazards
    assert (h.kind, h.space, h.array) == ("RAW", "shared", "s")
    assert h.first_line == _line(atomic_then_plain_read, "cuda.atomic.add")
    assert h.second_line == _line(atomic_then_plain_read, "out[0] = s[0]")
    assert h.atomic == (True, False) and "updated atomically" in h.describe("k.py")
    (w,) = write.hazards
    assert w.kind == "WAW" and w.atomic == (False, True)
    assert w.first_line == _line(plain_write_then_atomics, "s[0] = 5")
    assert w.count == 32  # each atomic thread's update raced the write once


def test_atomics_on_one_address_do_not_race_each_other():
    out = np.zeros(4, np.int32)
    hist = np.zeros(2, np.int32)
    with using(Settings(timing=False)):
        launch = atomics_only[2, 64](out, hist)
    assert launch.hazards == [] and launch.racecheck
    assert hist.tolist() == [64, 64] and out.tolist() == [63, 16, 16, 16]


@cuda.jit
def few_lanes_race(src, out):
    s = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    s[t] = src[cuda.blockIdx.x * 256 + t]
    cuda.syncthreads()
    if t % 128 == 0:  # two lanes a block: a sparse mask
        s[t + 1] = s[t] * 2  # thread 0 writes s[1] ...
    if t % 128 == 1:
        out[cuda.blockIdx.x * 2 + t // 128] = s[t]  # ... that thread 1 reads: no barrier between


def test_sparse_masks_find_the_races_and_values_dense_ones_do(monkeypatch):
    """Masks of few lanes keep only their lanes' values and accesses (``Mask.sparse``): the
    hazards and the results are those of the chunk-wide path."""
    from warpscope.emulator import simt

    src = np.arange(64 * 256, dtype=np.float32)
    runs = []
    for sparse in (simt.SPARSE, 10**9):  # the sparse path, then none sparse
        monkeypatch.setattr(simt, "SPARSE", sparse)
        out = np.zeros(128, dtype=np.float32)
        with using(Settings(timing=False)):
            launch = few_lanes_race[64, 256](src, out)
        runs.append((out, launch.hazards))
    (out, hazards), (dense_out, dense_hazards) = runs
    np.testing.assert_array_equal(out, dense_out)
    np.testing.assert_array_equal(out, src[::128] * 2)  # thread 1 read what thread 0 wrote
    assert hazards == dense_hazards and len(hazards) == 1
    (h,) = hazards
    assert (h.kind, h.count, h.first_thread, h.second_thread) == ("RAW", 128, (0, 0, 0), (1, 0, 0))


@cuda.jit
def reads_then_writes(a, b, out):
    t = cuda.threadIdx.x
    v = a[t + 1]  # every lane, its neighbour's element (a remembered sum past 256 lanes)
    w = a[0]  # one element for every lane
    if t < 3:
        w += a[t + 5]  # a sparse mask
    if t % 2 == 1:
        w += a[(t * 7) % 64]  # half the lanes, an address table
    cuda.syncwarp()
    c = b[t]  # b is only read: never a hazard
    if t > 40:
        cuda.syncthreads()  # a barrier in divergent code: the reads above it stay
        v += a[t - 1]
    a[t] = v + w + c  # the first write of a: every read above is judged against it
    out[t] = a[(t + 3) % 64]


@pytest.mark.parametrize("blocks,threads", [(1, 64), (3, 64), (2, 512)])
def test_reads_of_an_unwritten_allocation_kept_until_it_is_written_are_judged_alike(
    monkeypatch, blocks, threads
):
    """Reads of a global array nobody has written yet are kept as heard and made records
    only at its first write (``race.DEFER_UNWRITTEN``; most such arrays are inputs, never
    written): the hazards, the stale-read warnings and the values are those of recording
    each read at once — whole-lane, one-address, sparse and gathered reads, across syncwarps
    and a barrier in divergent code."""
    from warpscope.emulator import race

    runs = []
    for deferred in (True, False):
        monkeypatch.setattr(race, "DEFER_UNWRITTEN", deferred)
        a = np.arange(blocks * threads + 64, dtype=np.float32)
        b = np.ones(blocks * threads, dtype=np.float32)
        out = np.zeros(blocks * threads, dtype=np.float32)
        with using(Settings(timing=False)):
            launch = reads_then_writes[blocks, threads](a, b, out)
        runs.append((a, out, launch.hazards, launch.barrier_warnings))
    (a, out, hazards, warnings), (eager_a, eager_out, eager_hazards, eager_warnings) = runs
    np.testing.assert_array_equal(a, eager_a)
    np.testing.assert_array_equal(out, eager_out)
    assert hazards == eager_hazards and warnings == eager_warnings
    assert {h.kind for h in hazards} == {"WAR", "RAW"} and all(h.array == "a" for h in hazards)


@cuda.jit
def strided_stores(out, step):
    t = cuda.grid(1)
    for k in range(4):
        out[t + k * step] = k


@pytest.mark.parametrize("lanes", [64, 256, 512])
def test_stores_whose_ranges_overlap_race_and_those_that_do_not_do_not(lanes):
    """Each pass's stores name ascending addresses, one per thread: where a later pass's range
    overlaps an earlier one's (a step shorter than the threads), another thread writes the
    same element (WAW); one step apart by the whole grid, no address is shared. Below and
    above the lanes from which accesses are remembered (``arrays.PATTERN_LANES``)."""
    out = np.zeros(4 * lanes, dtype=np.int64)
    apart = strided_stores[1, lanes](out, lanes)
    assert apart.hazards == [] and out.tolist() == [k for k in range(4) for _ in range(lanes)]
    overlapping = strided_stores[1, lanes](np.zeros(4 * lanes, dtype=np.int64), lanes // 2)
    (h,) = overlapping.hazards
    assert (h.kind, h.space, h.array) == ("WAW", "global", "out")
    assert h.count > 0  # passes k and k + 2 write half the threads' elements of each other


@cuda.jit
def few_stores(out, same):
    t = cuda.threadIdx.x
    if t < 2:  # two lanes of a block of 64: a sparse mask
        if same:
            out[0] = t  # one address for both lanes: they race (WAW)
        else:
            out[t] = t
    if t == 5:
        out[3] = 7  # alone on its word


@pytest.mark.parametrize("same", [True, False])
def test_a_few_stores_are_judged_alike_by_words_in_a_set_sorted_and_by_the_table(monkeypatch, same):
    """An interval of a few lanes' accesses is told race-free by their words in a set
    (``race.FEW_WORDS``), a few more by their words sorted (``race.SORTED_WORDS``), a store
    of one address by several lanes included; the hazards are those of the table every
    larger interval goes through."""
    from warpscope.emulator import race

    runs = []
    # the set, the sorted words, then the table
    for few, sorted_ in ((race.FEW_WORDS, race.SORTED_WORDS), (0, race.SORTED_WORDS), (0, 0)):
        monkeypatch.setattr(race, "FEW_WORDS", few)
        monkeypatch.setattr(race, "SORTED_WORDS", sorted_)
        out = np.zeros(4, dtype=np.int64)
        with using(Settings(timing=False)):
            launch = few_stores[1, 64](out, same)
        runs.append((out.tolist(), launch.hazards))
    assert runs[0] == runs[1] == runs[2]
    out, hazards = runs[0]
    assert out == ([1, 0, 0, 7] if same else [0, 1, 0, 7])
    if same:
        (h,) = hazards
        assert (h.kind, h.space, h.array, h.first_thread, h.second_thread) == (
            "WAW",
            "global",
            "out",
            (0, 0, 0),
            (1, 0, 0),
        )
    else:
        assert hazards == []


@cuda.jit
def update_own(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@cuda.jit
def add_next(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += a[(i + 1) % a.size]


@pytest.mark.parametrize("threads", [16, 256, 1024])
@pytest.mark.parametrize("kernel", [update_own, add_next], ids=["own", "next"])
def test_a_thread_updating_its_own_element_races_with_no_one(monkeypatch, threads, kernel):
    """``a[i] += 1`` reads and writes each thread's own word: told race-free without the table
    (``race._no_word_twice``: a few lanes' words by lane, remembered lane terms by their
    ranges); ``a[i] += a[(i + 1) % n]`` reads a word another thread writes. The hazards and
    values are the table's (every interval judged in full) either way."""
    from warpscope.emulator import race

    runs = []
    for told in (race._no_word_twice, lambda records, sort=True: False):
        monkeypatch.setattr(race, "_no_word_twice", told)
        a = np.arange(threads, dtype=np.float32)
        with using(Settings(timing=False)):
            launch = kernel[max(1, threads // 256), min(threads, 256)](a)
        runs.append((a.tolist(), launch.hazards))
    assert runs[0] == runs[1]
    out, hazards = runs[0]
    if kernel is add_next:
        assert hazards and all((h.array, h.space) == ("a", "global") for h in hazards)
    else:
        assert out == list(range(1, threads + 1)) and hazards == []


@cuda.jit
def fill_volume(vol, halve):
    x, y, z = cuda.grid(3)
    if x < vol.shape[2] and y < vol.shape[1] and z < vol.shape[0]:
        vol[z, y, x // 2 if halve else x] = x + 10 * y + 100 * z


@pytest.mark.parametrize("halve", [False, True])
def test_a_volume_written_by_blocks_of_three_dimensions_races_only_where_two_threads_share_an_element(halve):
    """A grid of 3-D blocks writing a volume names its elements out of lane order (a block's
    lanes run along x, then y, then z; the next block starts elsewhere): one element a thread
    is no race however the lanes are ordered; two threads on one element (``x // 2``) race."""
    vol = np.zeros((5, 6, 16), dtype=np.int32)
    with using(Settings(timing=False)):
        launch = fill_volume[(4, 2, 3), (4, 4, 2)](vol, halve)
    if not halve:
        assert launch.hazards == []
        z, y, x = np.indices(vol.shape)
        np.testing.assert_array_equal(vol, x + 10 * y + 100 * z)
    else:
        (h,) = launch.hazards
        assert (h.kind, h.space, h.array) == ("WAW", "global", "vol") and h.count > 0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 255), st.integers(0, 600)), min_size=1, max_size=40),
        min_size=1,
        max_size=4,
    )
)
def test_sorted_words_tell_what_a_set_of_words_tells(accesses):
    """``race._words_sorted_apart`` (more lanes than a set serves) says what the set says:
    whether any 4-byte word is named by two different lanes, over accesses of lanes (each
    lane once an access) at byte offsets anywhere (unaligned, the same word twice)."""
    from warpscope.emulator import race

    records = []
    for k, pairs in enumerate(accesses):
        by_lane = dict(pairs)  # a lane accesses once
        lanes = np.array(sorted(by_lane), dtype=np.int64)
        offsets = np.array([by_lane[lane] for lane in lanes.tolist()], dtype=np.int32)
        records.append(race._Record(offsets, 1 << 40, k, None, lanes.size, pooled=False, lanes=lanes))
    owner: dict[int, int] = {}
    expected = True
    for r in records:
        lanes, named = r.picked()
        for lane, address in zip(lanes.tolist(), named.tolist()):
            if owner.setdefault(address >> 2, lane) != lane:
                expected = False
    assert race._words_sorted_apart(records) is expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),  # address
            st.integers(0, 1),  # barrier interval
            st.integers(0, 5),  # program order (access id)
            st.booleans(),  # a write
            st.integers(0, 3),  # thread (or lane)
            st.booleans(),  # may be flagged
            st.booleans(),  # may be the earlier one
        ),
        min_size=1,
        max_size=40,
    ),
    st.booleans(),
)
def test_a_few_accesses_walked_in_python_flag_what_numpy_flags(accesses, restricted):
    """``race._few_pass`` (a few accesses, on lists) flags the same accesses with the same
    witnesses as ``_pass``'s numpy steps, with and without the atomics' restrictions."""
    from warpscope.emulator import race

    key, gen, ids, write, ident, second, sources = (np.array(column) for column in zip(*accesses))
    order = np.lexsort((ids, gen, key))
    got = []
    kept = race.FEW_PASS
    try:
        for few in (kept, 0):  # on lists, then numpy's
            race.FEW_PASS = few
            flags = np.zeros((3, key.size), bool)
            witness = np.zeros((3, key.size), np.int64)
            race._pass(
                order,
                (key, gen),
                write,
                ident,
                flags,
                witness,
                second if restricted else None,
                sources if restricted else None,
            )
            got.append((flags.tolist(), witness.tolist()))
    finally:
        race.FEW_PASS = kept
    assert got[0] == got[1]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 8), st.booleans()),
        min_size=1,
        max_size=40,
    )
)
def test_a_few_stale_reads_walked_in_python_are_numpys(accesses):
    """``race._stale_pairs`` of a few accesses (on lists) gives numpy's (read, write) pairs in
    numpy's order: each read that a write of its address in a lower barrier interval follows
    in program order, with the write of the lowest interval (the latest of those)."""
    from warpscope.emulator import race

    key, gen, ids, write = (np.array(column) for column in zip(*accesses))
    got = []
    kept = race.FEW_PASS
    try:
        for few in (kept, 0):  # on lists, then numpy's
            race.FEW_PASS = few
            got.append(race._stale_pairs(key, gen, ids, write))
    finally:
        race.FEW_PASS = kept
    assert got[0] == got[1]
