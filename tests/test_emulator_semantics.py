"""The kernel language on the emulator: SIMT control flow, warp intrinsics, atomics,
arrays, device functions, and the errors a kernel stops with."""

from __future__ import annotations

import cmath
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from warpscope.emulator import KernelFault, UnsupportedError, cuda
from warpscope.emulator.kernel import SETTINGS, recording

FULL = 0xFFFFFFFF
SCALE = np.float32(3.0)


@cuda.jit(device=True)
def clamp_square(x, hi):
    if x > hi:
        return hi
    return x * x


@cuda.jit
def control_flow(out, n):
    i = cuda.grid(1)
    if i >= n:
        return
    total = 0
    for k in range(i % 7):  # lane-varying trip count
        if k == 3:
            continue
        total += k
    j = 0
    while True:  # break in a divergent loop
        j += 1
        if j * j > i:
            break
    out[i, 0] = total
    out[i, 1] = j
    out[i, 2] = clamp_square(i, 50)
    out[i, 3] = 1 if i % 3 == 0 and out[i, 0] >= 0 else -1


def test_control_flow_matches_python():
    n = 200
    out = np.zeros((n, 4), dtype=np.int64)
    control_flow[4, 64](out, n)
    for i in range(n):
        total = sum(k for k in range(i % 7) if k != 3)
        j = 1
        while j * j <= i:
            j += 1
        assert out[i].tolist() == [total, j, 50 if i > 50 else i * i, 1 if i % 3 == 0 else -1], i
    site_counts = control_flow.last_launch.counters
    assert site_counts.total().divergent_branches > 0


@cuda.jit
def warp_ops(src, out):
    i = cuda.grid(1)
    v = src[i]
    lane = cuda.laneid
    out[i, 0] = cuda.shfl_sync(FULL, v, 5)
    out[i, 1] = cuda.shfl_up_sync(FULL, v, 1)
    out[i, 2] = cuda.shfl_down_sync(FULL, v, 2)
    out[i, 3] = cuda.shfl_xor_sync(FULL, v, 1)
    out[i, 4] = cuda.ballot_sync(FULL, v % 2 == 0)
    out[i, 5] = cuda.any_sync(FULL, v == 3)
    out[i, 6] = cuda.all_sync(FULL, v >= 0)
    if lane < 8:
        out[i, 7] = cuda.activemask()


def test_warp_intrinsics():
    src = np.arange(64, dtype=np.int64)
    out = np.zeros((64, 8), dtype=np.int64)
    warp_ops[1, 64](src, out)
    for i in range(64):
        w, lane = divmod(i, 32)
        base = 32 * w
        evens = sum(1 << l for l in range(32) if (base + l) % 2 == 0)
        assert out[i, 0] == base + 5
        assert out[i, 1] == (i - 1 if lane >= 1 else i)
        assert out[i, 2] == (i + 2 if lane < 30 else i)
        assert out[i, 3] == i ^ 1
        assert out[i, 4] == evens
        assert out[i, 5] == (1 if w == 0 else 0)
        assert out[i, 6] == 1
        assert out[i, 7] == (0xFF if lane < 8 else 0)
    assert warp_ops.last_launch.counters.total().shuffles == 4 * 2


@cuda.jit
def atomics(counts, hist, best, lock, values):
    i = cuda.grid(1)
    old = cuda.atomic.add(counts, 0, 1)
    values[i] = old
    cuda.atomic.add(hist, i % 4, 1.5)
    cuda.atomic.max(best, 0, i * 7 % 101)
    cuda.atomic.cas(lock, 0, 0, i + 1)


def test_atomics_serialise_per_address():
    counts = np.zeros(1, dtype=np.int64)
    hist = np.zeros(4, dtype=np.float64)
    best = np.zeros(1, dtype=np.int64)
    lock = np.zeros(1, dtype=np.int64)
    values = np.zeros(256, dtype=np.int64)
    atomics[2, 128](counts, hist, best, lock, values)
    assert counts[0] == 256
    assert sorted(values.tolist()) == list(range(256))  # every lane saw a distinct old value
    assert hist.tolist() == [96.0] * 4
    assert best[0] == max(i * 7 % 101 for i in range(256))
    assert lock[0] == 1  # only the first CAS finds 0
    assert atomics.last_launch.counters.total().global_atomic_requests == 4 * 8


@cuda.jit
def shared_and_local(src, out):
    tile = cuda.shared.array((4, 32), np.float32)
    dyn = cuda.shared.array(0, np.float32)
    scratch = cuda.local.array(3, np.float32)
    t = cuda.threadIdx.x
    row = tile[cuda.threadIdx.y]
    row[t] = src[cuda.blockIdx.x, cuda.threadIdx.y * 32 + t]
    dyn[cuda.threadIdx.y * 32 + t] = SCALE
    for k in range(3):
        scratch[k] = k
    cuda.syncthreads()
    out[cuda.blockIdx.x, cuda.threadIdx.y * 32 + t] = tile[3 - cuda.threadIdx.y, 31 - t] * dyn[0] + scratch[2]


def test_shared_dynamic_and_local_arrays():
    src = np.arange(2 * 128, dtype=np.float32).reshape(2, 128)
    out = np.zeros_like(src)
    shared_and_local[2, (32, 4), 0, 512](src, out)
    np.testing.assert_array_equal(out, src[:, ::-1] * np.float32(3.0) + np.float32(2.0))
    launch = shared_and_local.last_launch
    assert launch.static_shared == 4 * 32 * 4 and launch.dynamic_shared == 512
    t = launch.counters.total()
    assert t.local_store_requests == 3 * 8 and t.local_load_requests == 8
    assert t.barriers == 8


@cuda.jit
def strided_shared(out, stride, width):
    buf = cuda.shared.array(2048, np.float64)
    small = cuda.shared.array(256, np.int8)
    t = cuda.threadIdx.x
    buf[t * stride % 2048] = t
    small[t] = t
    out[t] = buf[t * stride % 2048] + small[t]


@pytest.mark.parametrize("stride,wavefronts", [(1, 2), (2, 4), (16, 32), (32, 32)])
def test_eight_byte_shared_accesses_in_half_warp_phases(stride, wavefronts):
    out = np.zeros(32)
    strided_shared[1, 32](out, stride, 8)
    site = strided_shared.last_launch.counters.total()
    # stores: one 8-byte store and one 1-byte store; loads likewise
    assert site.shared_store_wavefronts == wavefronts + 1
    assert site.shared_store_ideal_wavefronts == 2 + 1


@cuda.jit
def oob(a, n):
    i = cuda.grid(1)
    if i <= n:  # off by one
        a[i] = 1.0


def test_out_of_bounds_names_line_block_thread_and_bounds():
    a = np.zeros(100, dtype=np.float32)
    with pytest.raises(KernelFault) as e:
        oob[1, 128](a, 100)
    msg = str(e.value)
    assert "test_emulator_semantics.py:" in msg and "kernel oob" in msg
    assert "block (0, 0, 0) thread (100, 0, 0)" in msg
    assert "out-of-bounds global write of a[100]" in msg and "shape (100)" in msg and "400 bytes" in msg
    # the address is one past the end: exactly the array's end bound
    address, end = re.search(r"address (0x[0-9a-f]+), outside a \[0x[0-9a-f]+, (0x[0-9a-f]+)\)", msg).groups()
    assert address == end
    assert e.value.line == oob.py_func.__code__.co_firstlineno + 4


@cuda.jit
def oob_tail(a, n):
    i = cuda.grid(1)
    if i < n + 40:  # 40 threads past the end, over two blocks
        a[i] = 1.0


@cuda.jit
def oob_column(m):
    m[cuda.threadIdx.x, 3] = 1.0  # column 3 of a 3-column matrix: every thread


def test_out_of_bounds_says_how_many_threads_faulted():
    with pytest.raises(KernelFault) as e:
        oob_tail[4, 32](np.zeros(70, dtype=np.float32), 70)
    msg = str(e.value)
    assert "block (2, 0, 0) thread (6, 0, 0)" in msg and "a[70]" in msg
    assert msg.endswith("; 40 threads of 2 blocks faulted at this access (of the 4 blocks run with it)")
    with pytest.raises(KernelFault) as e:
        oob_column[1, 50](np.zeros((40, 3)))
    msg = str(e.value)
    # m[t, 3] is m[t + 1, 0] for rows 0..38 (inside the array: no fault, as on a GPU and under
    # compute-sanitizer); row 39's element is just past the array, rows 40..49 further
    assert "thread (39, 0, 0)" in msg and "m[39, 3] (axis 1)" in msg
    assert msg.endswith("; 11 threads of 1 block faulted at this access (of the 1 block run with it)")
    with pytest.raises(KernelFault, match=r"; 1 thread of 1 block faulted at this access"):
        oob[1, 128](np.zeros(100, dtype=np.float32), 100)


@cuda.jit
def spin(a):
    i = cuda.grid(1)
    while a[i] >= 0:
        a[i] += 1


def test_runaway_loop_stops_at_the_budget():
    a = np.zeros(64, dtype=np.int64)
    old = SETTINGS.budget
    SETTINGS.budget = 100_000
    try:
        with pytest.raises(KernelFault) as e:
            spin[2, 32](a)
    finally:
        SETTINGS.budget = old
    assert "instruction budget of 100,000 warp instructions exceeded" in str(e.value)
    assert "block (0, 0, 0) thread (0, 0, 0)" in str(e.value)


@cuda.jit
def half_barrier(a):
    if cuda.threadIdx.x < 16:
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1


@cuda.jit
def barrier_in_both_branches(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:  # whole warps: each branch's syncthreads counts toward the same barrier
        s[t] = 1
        cuda.syncthreads()
        out[t] = 1
    else:
        s[t] = 2
        cuda.syncthreads()
        out[t] = 2


@cuda.jit
def split_warp_barriers(out):
    t = cuda.threadIdx.x
    if t % 2 == 0:  # one warp's threads at two different syncthreads
        cuda.syncthreads()
        out[t] = 1
    else:
        cuda.syncthreads()
        out[t] = 2


@cuda.jit
def uneven_barriers(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:
        cuda.syncthreads()
        cuda.syncthreads()
    s[t] = t
    cuda.syncthreads()
    out[t] = s[63 - t]


def _line_of(kernel, text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(kernel.py_func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_a_barrier_the_others_skip_by_exiting_is_a_warning_not_a_fault():
    # tools/gpu/measured/issue39_barriers.txt: the H100 completes it (the others exit)
    a = np.zeros(64)
    launch = half_barrier[2, 64](a)
    assert a.sum() == 64  # both blocks wrote every element
    (w,) = launch.barrier_warnings
    assert w.line == _line_of(half_barrier, "cuda.syncthreads()") and w.blocks == 2
    assert w.block == (0, 0, 0) and w.thread == (0, 0, 0)
    text = w.describe("k.py", "half_barrier")
    assert text.startswith(
        f"k.py:{w.line}: kernel half_barrier, block (0, 0, 0) thread (0, 0, 0) (in 2 blocks): "
    )
    assert "syncthreads reached by 16 of the block's 64 live threads (thread (16, 0, 0) is elsewhere)" in text


def test_whole_warps_at_different_barriers_meet_and_a_split_warp_hangs():
    out = np.zeros(64, dtype=np.int32)
    launch = barrier_in_both_branches[1, 64](out)
    assert out.tolist() == [1] * 32 + [2] * 32
    lines = [w.line for w in launch.barrier_warnings]
    assert lines == [_line_of(barrier_in_both_branches, "cuda.syncthreads()"), lines[0] + 4]
    # the H100 hangs on this one (tools/gpu/measured/issue39_barriers.txt)
    with pytest.raises(KernelFault) as e:
        split_warp_barriers[1, 64](np.zeros(64, dtype=np.int32))
    assert e.value.line == _line_of(split_warp_barriers, "cuda.syncthreads()") + 3
    assert e.value.thread == (1, 0, 0)
    assert f"warp-mates wait at the syncthreads of line {e.value.line - 3}" in str(e.value)
    assert "a GPU hangs here" in str(e.value)


def test_threads_that_passed_fewer_barriers_are_warned_about():
    out = np.zeros(64, dtype=np.int32)
    launch = uneven_barriers[1, 64](out)
    last = launch.barrier_warnings[-1]
    assert last.line == _line_of(uneven_barriers, "s[t] = t") + 1
    assert "some had passed 2 barrier(s) fewer than others" in last.what


@pytest.mark.parametrize("arch", ["sm_61", "sm_90"])
def test_divergent_barrier_warnings_name_the_architecture_rule(arch):
    from warpscope.emulator.kernel import Settings, using

    with using(Settings(arch=arch, timing=False)):
        (w,) = half_barrier[1, 64](np.zeros(64)).barrier_warnings
    assert ("from sm_70 a barrier counts threads" in w.what) is (arch == "sm_90")
    assert ("before sm_70 a barrier counts warps" in w.what) is (arch == "sm_61")


@cuda.jit
def early_exit_barrier(a, n):
    i = cuda.threadIdx.x
    if i >= n:
        return
    a[i] = i
    cuda.syncthreads()  # the exited threads do not count
    a[i] += a[(i + 1) % n]


def test_exited_threads_do_not_block_a_barrier():
    a = np.zeros(64, dtype=np.int64)
    early_exit_barrier[1, 64](a, 40)
    assert a[:40].tolist() == [i + (i + 1) % 40 for i in range(40)]


@cuda.jit
def divergent_shuffle(a):
    i = cuda.threadIdx.x
    if i < 16:
        a[i] = cuda.shfl_down_sync(FULL, i, 1)


def test_shuffle_with_absent_lanes_is_an_error():
    with pytest.raises(KernelFault, match="mask 0xffffffff but lanes 0xffff0000"):
        divergent_shuffle[1, 32](np.zeros(32, dtype=np.int64))


@cuda.jit
def python_error(a):
    a[0] = math.sqrt(a)


def test_python_error_reported_at_kernel_line():
    with pytest.raises(KernelFault) as e:
        python_error[1, 1](np.zeros(1))
    assert e.value.line == python_error.py_func.__code__.co_firstlineno + 2
    assert "TypeError" in str(e.value) or "cannot" in str(e.value)


def _unsupported(body: str) -> str:
    namespace = {"cuda": cuda, "np": np}
    import linecache
    import textwrap

    source = "@cuda.jit\ndef bad(a):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    name = f"<kernel-{abs(hash(source))}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)
    with pytest.raises(UnsupportedError) as e:
        namespace["bad"][1, 1](np.zeros(4))
    return str(e.value)


@pytest.mark.parametrize(
    "body,expected",
    [
        ("a[0] = [1, 2][0]\n", "lists are not supported"),
        ("with cuda.stream():\n    a[0] = 1\n", "'With' statements are not supported"),
        ("for x in zip(a, b=a):\n    a[0] = 1\n", "zip() with these arguments is not supported"),
        ("try:\n    a[0] = 1\nexcept Exception:\n    pass\n", "'Try' statements are not supported"),
        ("a[0] = len('abc')\n", "strings are not supported"),
        ("a[0:2] = 1\n", "slices are not supported"),
        ("print(a)\n", "print() of an array is not supported"),
        ("sorted(a)\n", "sorted() is not supported"),
        ("a[0] = cuda.libdevice.j0(1.0)\n", "cuda.libdevice.j0 is not emulated by warpscope"),
        ("cuda.cg.this_thread_block().sync()\n", "cuda.cg.this_thread_block is not emulated"),
        ("return 1\n", "cannot return a value"),
        ("a[0] = undefined_name\n", "name 'undefined_name' is not defined"),
    ],
)
def test_outside_the_subset_is_rejected_with_its_line(body, expected):
    msg = _unsupported(body)
    assert expected in msg and ":3:" in msg, msg


def test_grid_strided_2d_and_uniform_loads():
    @cuda.jit
    def scale2d(m, factor):
        x, y = cuda.grid(2)
        w, h = cuda.gridsize(2)
        if x < m.shape[1] and y < m.shape[0]:
            m[y, x] = m[y, x] * factor[0] + w * 0 + h * 0

    m = np.arange(12 * 20, dtype=np.float64).reshape(12, 20)
    ref = m * 2.5
    scale2d[(2, 2), (16, 8)](m, np.array([2.5]))
    np.testing.assert_array_equal(m, ref)
    t = scale2d.last_launch.counters.total()
    # factor[0]: every lane reads one element, one sector per warp instruction
    assert t.global_load_requests == 2 * t.global_store_requests


# -- patterns that once raised numpy's errors as faults of the user's kernel -----------------


@cuda.jit
def _local_under_divergence(out):
    i = cuda.grid(1)
    r = cuda.local.array(4, np.int32)
    for k in range(4):
        r[k] = i * 10 + k  # every lane at the index all name alike
    if i % 3 == 0:
        r[2] = -i  # some lanes only: the others keep what they wrote
    out[i] = r[2] * 100 + r[3]


def test_local_array_elements_all_lanes_name_alike_stay_each_lanes_own():
    out = np.zeros(512, np.int32)
    _local_under_divergence[2, 256](out)
    i = np.arange(512)
    np.testing.assert_array_equal(out, np.where(i % 3 == 0, -i, i * 10 + 2) * 100 + i * 10 + 3)
    t = _local_under_divergence.last_launch.counters.total()
    assert t.local_store_requests == 4 * 16 + 16 and t.local_load_requests == 2 * 16  # every warp stores


@cuda.jit
def _fixed_index_stores(out, src, codes, idx32):
    sm = cuda.shared.array(32, np.float32)
    loc = cuda.local.array(2, np.int64)
    t = cuda.threadIdx.x
    sm[t] = src[t]
    loc[0] = t
    cuda.syncthreads()
    if t == 0:
        out[0] = sm[0] + sm[31]  # one element, a value read per lane
        out[1] = loc[0]
    if t < 4:
        out[2] = t  # several lanes on one element: the last lane's value lands
    out[3 + t] = src[codes[t]] + src[idx32[t] * np.int32(65536) % 32]


@pytest.mark.parametrize("timing", [False, True])
def test_internal_errors_never_surface_as_faults_of_the_kernel(timing):
    from warpscope.emulator.kernel import Settings, using

    src = np.arange(32, dtype=np.float32)
    codes = (np.arange(32) * 7 % 32).astype(np.uint8)
    idx32 = np.full(32, 40000, dtype=np.int32)  # idx32 * 65536 passes int32's range
    out = np.zeros(35, dtype=np.float32)
    with using(Settings(timing=timing)):
        _fixed_index_stores[1, 32](out, src, codes, idx32)
    assert out[:3].tolist() == [31.0, 0.0, 3.0]
    expected = src[codes] + src[(idx32.astype(np.int64) * 65536) % 32]
    assert out[3:].tolist() == expected.tolist()


@cuda.jit
def nan_atomics(r, v, old):
    i = cuda.grid(1)
    old[i, 0] = cuda.atomic.max(r, 0, v[i])
    old[i, 1] = cuda.atomic.min(r, 1, v[i])
    cuda.atomic.nanmax(r, 2, v[i])
    cuda.atomic.nanmin(r, 3, v[i])
    cuda.atomic.max(r, 4, v[i])  # r[4] starts as NaN
    cuda.atomic.nanmax(r, 5, v[i])  # so does r[5]


def test_atomic_max_min_ignore_a_nan_operand_as_the_h100_does():
    # tools/gpu/measured/issue39_probe.txt: max(63.0, nan) is 63.0; a NaN in memory stays
    r = np.array([63.0, 100.0, 0.0, 100.0, np.nan, np.nan])
    v = np.array([1.0, np.nan, 5.0, 3.0])
    old = np.zeros((4, 2))
    nan_atomics[1, 4](r, v, old)
    assert r[:4].tolist() == [63.0, 1.0, 5.0, 1.0]
    assert np.isnan(r[4]) and r[5] == 5.0
    # lane order: each lane saw the value left by the lanes before it
    assert old[:, 0].tolist() == [63.0] * 4
    assert old[:, 1].tolist() == [100.0, 1.0, 1.0, 1.0]


@cuda.jit
def swaps(a, old):
    i = cuda.grid(1)
    old[i] = cuda.atomic.compare_and_swap(a, 0, i + 10)
    old[i + 4] = cuda.atomic.cas(a, 1, 0, i + 20)


def test_compare_and_swap_and_cas_return_the_old_value_lane_by_lane():
    a = np.zeros(2, dtype=np.int32)
    old = np.zeros(8, dtype=np.int32)
    swaps[1, 4](a, old)
    # the emulator serialises in lane order, so lane 0 swaps first; on the H100 the winner
    # varies (lane 0 in one run, lane 1 in another: tests/numba_corpus/c57_issue39_semantics.py)
    assert a.tolist() == [10, 20]
    assert old.tolist() == [0, 10, 10, 10, 0, 20, 20, 20]
    assert swaps.last_launch.counters.total().global_atomic_requests == 2


@cuda.jit
def iterate(out, a, b, m):
    i = cuda.grid(1)
    dot = 0.0
    for x, y in zip(a, b):  # arrays, element by element
        dot += x * y
    weighted = 0.0
    for j, x in enumerate(a, 1):
        weighted += j * x
    total = 0
    for s in (16, 8, 4):  # a tuple, unrolled as numba unrolls it
        total += s * i
    rows = 0.0
    for row in m:  # a 2-D array: its rows
        rows += row[i % 2]
    shifted = 0
    for k, r in zip(range(2, 5), (i, i + 1, i + 2)):
        shifted += k * r
    out[i, 0] = dot
    out[i, 1] = weighted
    out[i, 2] = total
    out[i, 3] = rows
    out[i, 4] = shifted


def test_for_loops_over_tuples_arrays_zip_and_enumerate():
    # tools/gpu/measured/issue39_probe.txt: numba-cuda on the H100 gives 40, 30 and 0/28/56/84
    a = np.arange(5.0)
    b = a + 1
    m = np.arange(6.0).reshape(3, 2)
    out = np.zeros((4, 5))
    iterate[1, 4](out, a, b, m)
    assert out[:, 0].tolist() == [40.0] * 4
    assert out[:, 1].tolist() == [sum((j + 1) * x for j, x in enumerate(a))] * 4
    assert out[:, 2].tolist() == [0, 28, 56, 84]
    assert out[:, 3].tolist() == [6.0, 9.0, 6.0, 9.0]
    assert out[:, 4].tolist() == [2 * i + 3 * (i + 1) + 4 * (i + 2) for i in range(4)]
    # the arrays' elements are read from global memory: one load per element per warp
    assert iterate.last_launch.counters.total().global_load_requests == 5 + 5 + 5 + 3


@cuda.jit
def tuple_indexed(a):
    gid = cuda.grid(2)
    if gid[0] < a.shape[0] and gid[1] < a.shape[1]:
        a[gid] = a[gid] + gid[0] * 10 + gid[1]


def test_a_tuple_variable_indexes_an_array():
    a = np.ones((3, 4))
    tuple_indexed[(1, 1), (4, 4)](a)
    assert a.tolist() == [[1 + 10 * r + c for c in range(4)] for r in range(3)]


@cuda.jit
def iterate_scalar(out):
    for x in out[0]:
        out[0] = x


def test_iterating_over_a_number_is_one_line():
    with pytest.raises(KernelFault, match=r"cannot iterate over a float64"):
        iterate_scalar[1, 1](np.zeros(1))


@cuda.jit
def add_one(x):
    return x + 1


def _njit_square():
    import numba  # a test dependency (pyproject: the corpus uses numba's type names)

    @numba.njit
    def square(x):
        return x * x

    return square


@cuda.jit
def bits_and_calls(a, out):
    i = cuda.grid(1)
    out[i, 0] = int(a[i]).bit_count()
    out[i, 1] = add_one(a[i])  # a @cuda.jit function called from a kernel: a device function


def test_bit_count_and_a_jit_function_called_as_a_device_function():
    a = np.array([0, 1, 7, 255, -3], dtype=np.int64)
    out = np.zeros((5, 2), dtype=np.int64)
    bits_and_calls[1, 5](a, out)
    assert out[:, 0].tolist() == [0, 1, 3, 8, 2]  # as on the H100; -3: its magnitude's bits
    assert out[:, 1].tolist() == [1, 2, 8, 256, -2]


def test_an_njit_function_is_a_device_function_in_a_kernel():
    square = _njit_square()

    @cuda.jit
    def squares(a):
        i = cuda.grid(1)
        a[i] = square(a[i])

    a = np.arange(4.0)
    squares[1, 4](a)
    assert a.tolist() == [0.0, 1.0, 4.0, 9.0]


def test_get_current_device_describes_the_emulated_gpu():
    from warpscope.emulator.kernel import Settings, using

    d = cuda.get_current_device()
    assert (d.MAX_THREADS_PER_BLOCK, d.WARP_SIZE, d.MULTIPROCESSOR_COUNT) == (1024, 32, 132)
    assert d.compute_capability == (9, 0) and b"sm_90" in d.name
    with using(Settings(arch="sm_80")):
        assert cuda.get_current_device().compute_capability == (8, 0)


def test_libdevice_functions_by_either_name():
    from numba.cuda import libdevice  # numba (a test dependency) has the module without a GPU

    @cuda.jit
    def libm(a, out):
        i = cuda.grid(1)
        out[i, 0] = libdevice.sqrt(a[i]) + libdevice.fmax(a[i], 2.0)
        out[i, 1] = cuda.libdevice.exp(a[i])
        out[i, 2] = cuda.libdevice.sqrtf(np.float32(a[i]))
        out[i, 3] = cuda.libdevice.popc(np.int32(i) - 1)
        out[i, 4] = cuda.libdevice.round(a[i] + 0.5)

    a = np.arange(4.0)
    out = np.zeros((4, 5))
    libm[1, 4](a, out)
    # tools/gpu/measured/issue39_probe.txt: the H100's values for the first two
    assert out[:, 0].tolist() == [2.0, 3.0, 3.414213562373095, 4.732050807568877]
    assert out[:, 1].tolist() == [1.0, 2.718281828459045, 7.38905609893065, 20.085536923187668]
    assert out[:, 2].tolist() == [float(np.sqrt(np.float32(x))) for x in a]
    assert out[:, 3].tolist() == [32, 0, 1, 1]  # popc of an int32: -1 has 32 bits set
    assert out[:, 4].tolist() == [1.0, 2.0, 3.0, 4.0]  # halves away from zero


@cuda.jit
def ufunc_into(x, y, r, s):
    np.sin(x, r)  # numba: the whole array, by every thread that runs it
    np.add(x, y, s)


def test_numpy_ufuncs_with_an_out_array():
    x = np.arange(4.0)
    y = np.full(4, 10.0)
    r, s = np.zeros(4), np.zeros(4)
    launch = ufunc_into[1, 1](x, y, r, s)
    # tools/gpu/measured/issue39_probe.txt: what the H100 gave for np.sin(x, r)
    assert r.tolist() == [0.0, 0.8414709848078965, 0.9092974268256817, 0.1411200080598672]
    assert s.tolist() == [10.0, 11.0, 12.0, 13.0]
    total = launch.counters.total()
    assert (total.global_load_requests, total.global_store_requests) == (4 + 8, 8)
    assert launch.hazards == []  # one thread: nobody to race with
    # two warps of one block both writing every element of out: WAW
    launch = ufunc_into[1, 64](x, y, r, s)
    assert {h.kind for h in launch.hazards} == {"WAW"}


SCALE_BY = cuda.to_device(np.array([2.0, 3.0]))  # a device array: captured by reference
FROZEN = np.array([2.0, 3.0])  # a host array: frozen when the kernel is compiled


@cuda.jit
def captured_globals(out):
    i = cuda.grid(1)
    out[i, 0] = SCALE_BY[i] * 10
    out[i, 1] = FROZEN[i] * 10


def test_a_captured_device_array_is_read_by_reference_a_host_array_is_frozen():
    out = np.zeros((2, 2))
    captured_globals[1, 2](out)
    assert out.tolist() == [[20.0, 20.0], [30.0, 30.0]]
    SCALE_BY.copy_to_device(np.array([5.0, 7.0]))
    FROZEN[:] = [5.0, 7.0]
    captured_globals[1, 2](out)
    assert out.tolist() == [[50.0, 20.0], [70.0, 30.0]]
    assert captured_globals.last_launch.counters.total().global_load_requests == 1


@cuda.jit(device=True)
def scaled(x, by=3.0):
    return x * by


@cuda.jit
def with_defaults(a, s=2.0):
    i = cuda.grid(1)
    a[i] = scaled(a[i]) + scaled(a[i], s)


def test_parameter_defaults_fill_a_device_call_but_a_launch_passes_every_argument():
    a = np.arange(4.0)
    with_defaults[1, 4](a, 2.0)
    assert a.tolist() == [5.0 * x for x in range(4)]
    # numba-cuda on the H100 refuses a launch that leaves a default out ("Signature
    # mismatch: 1 argument types given, but function takes 2 arguments")
    from warpscope.emulator import EmulatorError

    with pytest.raises(EmulatorError, match=r"takes 2 arguments \(a, s\), given 1"):
        with_defaults[1, 4](a)


@cuda.jit
def grid_sync_by_some(out):
    i = cuda.grid(1)
    if i % 3 == 0:
        out[i] = i
        cuda.cg.this_grid().sync()
        if i + 1 < out.size:
            out[i + 1] = out[i] + 1


@cuda.jit
def grid_sync_by_block_zero(out):
    i = cuda.grid(1)
    if cuda.blockIdx.x == 0:
        cuda.cg.this_grid().sync()
    out[i] = i


def test_a_grid_sync_the_others_skip_by_exiting_completes_as_numba_cuda_s_sessionize_example():
    out = np.zeros(64, dtype=np.int64)
    launch = grid_sync_by_some[2, 32](out)
    want = np.zeros(64, dtype=np.int64)
    want[::3] = np.arange(0, 64, 3)
    want[1::3] = np.arange(0, 63, 3) + 1
    assert out.tolist() == want.tolist()
    (w,) = launch.barrier_warnings
    assert w.line == _line_of(grid_sync_by_some, "sync()")


def test_a_grid_sync_no_thread_of_a_block_reaches_is_a_fault():
    with pytest.raises(KernelFault, match=r"none of block \(1, 0, 0\)'s .*a GPU hangs"):
        grid_sync_by_block_zero[2, 32](np.zeros(64, dtype=np.int64))


def test_cuda_reduce_as_numba_cuda_documents_it():
    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    def bigger(a, b):
        return a if a > b else b  # not array-safe: combined pair by pair

    a = np.arange(1, 1001, dtype=np.int64)
    assert sum_reduce(a) == 500500 and sum_reduce(cuda.to_device(a), size=10) == 55
    assert sum_reduce(a, init=5) == 500505 and sum_reduce(a[:0], init=7) == 7
    x = np.linspace(0.0, 1.0, 4097, dtype=np.float32)
    got = sum_reduce(x)
    assert got.dtype == np.float32 and got == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-6)
    res = cuda.to_device(np.zeros(2, dtype=np.float32))
    assert cuda.reduce(bigger)(x[::-1].copy(), res=res) is None and res[0] == 1.0
    with pytest.raises(TypeError, match="1D array"):
        sum_reduce(np.zeros((2, 2)))


@cuda.jit
def prints(a):
    i = cuda.grid(1)
    if i < 3:
        print("thread", i, "has", a[i], i < 1)


def test_print_in_a_kernel_prints_a_line_per_thread_as_numba_cuda_s_printf(capsys):
    prints[1, 32](np.array([0.5, -1.0, 2.25]))
    assert capsys.readouterr().out.splitlines() == [
        "thread 0 has 0.500000 1",
        "thread 1 has -1.000000 0",
        "thread 2 has 2.250000 0",
    ]


@cuda.jit
def random_by_module(out, states):
    tile = cuda.shared.array(32, dtype=cuda.float32)
    i = cuda.grid(1)
    tile[cuda.threadIdx.x] = cuda.random.xoroshiro128p_uniform_float32(states, i)
    out[i] = tile[cuda.threadIdx.x]


def test_numba_cuda_host_names_learners_use():
    """Events time what the emulator took; the one device answers cuda.gpus, select_device,
    current_context and detect; cuda.random and numba's type names hang off cuda as in numba-cuda."""
    start, end = cuda.event(), cuda.event(timing=True)
    start.record()
    states = cuda.random.create_xoroshiro128p_states(64, seed=3)
    out = cuda.device_array(64, dtype=np.float32)
    random_by_module[2, 32](out, states)
    end.record()
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0 and start.elapsed_time(end) >= 0
    assert out.copy_to_host().min() > 0 and out.copy_to_host().max() < 1
    with pytest.raises(RuntimeError, match="recorded"):
        cuda.event_elapsed_time(cuda.event(), end)
    assert len(cuda.gpus) == 1 and cuda.gpus[0].name == cuda.select_device(0).name
    with cuda.gpus[0]:
        free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total and cuda.detect() and cuda.list_devices()[0].id == 0
    host = np.arange(4.0)
    view = cuda.as_cuda_array(host)
    view[0] = 9.0
    assert host[0] == 9.0 and cuda.is_cuda_array(view) and not cuda.is_cuda_array(host)
    assert cuda.mapped_array(3).shape == (3,) and cuda.types.float64 is cuda.float64
    cuda.profile_start()
    cuda.profile_stop()
    cuda.close()


@cuda.jit
def complex_forms(out, x):
    i = cuda.grid(1)
    z = complex(x[i], 1.0)
    w = z * z.conjugate() + cmath.exp(z) + cmath.sqrt(z) + cmath.log(z, 10.0) + cmath.rect(2.0, x[i])
    out[i] = w + cmath.phase(z) + z.conj().imag


def test_complex_builtin_conjugate_and_cmath_as_numba_types_them():
    import cmath as cm

    x = np.array([0.5, -1.5, 2.0])
    out = np.zeros(3, dtype=np.complex128)
    complex_forms[1, 3](out, x)
    for i, v in enumerate(x):
        z = complex(v, 1.0)
        w = z * z.conjugate() + cm.exp(z) + cm.sqrt(z) + cm.log(z, 10.0) + cm.rect(2.0, v)
        assert out[i] == pytest.approx(w + cm.phase(z) - 1.0)


@cuda.jit
def row_overrun(m, out):
    t = cuda.threadIdx.x
    m[t, 3] = t + 1.0  # past row t's end: row t + 1's first element, in memory
    out[t] = m[t, -1] + m[t, 4]


def test_an_index_past_one_axis_but_inside_the_array_is_the_element_there_as_numba_has_no_bounds_check():
    m = np.zeros((4, 3))
    out = np.zeros(3)
    row_overrun[1, 3](m, out)
    assert m[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0] and m[:, 1:].sum() == 0
    assert out.tolist() == [0.0, 0.0, 0.0]


@cuda.jit
def local_read_then_overwritten(out):
    i = cuda.grid(1)
    w = cuda.local.array(4, np.float32)
    for k in range(4):
        w[k] = i + k
    first = w[0]  # read, then its element written: the value read stays
    w[0] = -1.0
    out[i, 0] = first
    out[i, 1] = w[0] + w[3]


def test_a_local_element_read_keeps_its_value_after_the_element_is_written():
    out = np.zeros((4096, 2), dtype=np.float32)
    local_read_then_overwritten[16, 256](out)
    i = np.arange(4096, dtype=np.float32)
    np.testing.assert_array_equal(out[:, 0], i)
    np.testing.assert_array_equal(out[:, 1], i + 2)


_INT_TYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


@given(
    st.sampled_from(_INT_TYPES).flatmap(
        lambda t: st.tuples(
            st.just(t),
            st.lists(st.integers(int(np.iinfo(t).min), int(np.iinfo(t).max)), min_size=1, max_size=40),
        )
    )
)
def test_bit_intrinsics_match_pythons_integers_at_the_operands_width(case):
    """``cuda.clz``, ``cuda.ffs`` and ``cuda.brev`` on every integer width, arrays of lanes and
    one value alike, against Python's integers: leading zeros within the width, the lowest set
    bit's position (1-based, 0 for 0), the width's bits reversed in the operand's type."""
    from warpscope.emulator.intrinsics.bits import brev_bits, clz_bits, ffs_bits

    t, values = case
    n = np.dtype(t).itemsize * 8
    lanes = np.array(values, dtype=t)
    with np.errstate(all="ignore"):
        for x, u in zip([*lanes, lanes], [*(v % (1 << n) for v in values), None]):
            words = [v % (1 << n) for v in values] if u is None else [u]
            clz = [n - w.bit_length() for w in words]
            ffs = [(w & -w).bit_length() for w in words]
            brev = np.array([int(format(w, f"0{n}b")[::-1], 2) for w in words], dtype=np.uint64).astype(t)
            got = (clz_bits(x), ffs_bits(x), brev_bits(x))
            assert [np.asarray(g).ravel().tolist() for g in got] == [clz, ffs, brev.tolist()]
            if u is not None:  # one value: numpy scalars of int64 and the operand's own type
                assert type(got[0]) is np.int64 and type(got[1]) is np.int64 and type(got[2]) is t


def test_register_names_are_the_names_set_once():
    """``compiler.core.register_names``: parameters never reassigned, counters of range loops
    (of several loops too), names assigned once from those; not a name a loop moves, a
    reassigned parameter, nor a name assigned from one of them."""
    import ast
    import textwrap

    from warpscope.emulator.compiler.core import register_names

    source = textwrap.dedent(
        """
        def kernel(out, n, m):
            m = m + 1
            for k in range(48):
                out[k] = k
            for k in range(n):
                j = (k * 7) % 48
                out[j] = k
            for a in range(1, 5):
                b = a - 1
                while b >= 0:
                    b -= 1
                c = b + 1
            d = m * 2
        """
    )
    tree = ast.parse(source).body[0]
    got = register_names(tree, ["out", "n", "m"])
    assert got == {"out", "n", "k", "j", "a"}


_FLAG = True


@cuda.jit
def _tests_known_or_not(out, n):
    i = cuda.grid(1)
    a = 1 if _FLAG else 2  # known when compiling: no instruction
    b = 1 if n > 0 else 2  # one value for every lane: the compare, one select per warp
    c = _FLAG and n > 0  # the known operand is not tested; the compare is
    d = n > 0 and n < 9  # both compares, and the first one's test
    out[i] = a + b + c + d


def test_tests_known_when_compiling_count_nothing_and_one_value_for_all_lanes_counts_per_warp():
    """A ternary or ``and`` whose test is known when compiling is folded, as nvcc folds it; one
    whose test holds one value for every lane still costs its compare and one select (or
    test) per warp, as when the values differ per lane."""
    out = np.zeros(64, np.int64)
    with recording() as launches:
        _tests_known_or_not[1, 64](out, 5)
    assert out.tolist() == [4] * 64
    first = _tests_known_or_not.py_func.__code__.co_firstlineno
    counted = {line - first: s.warp_instructions for line, s in launches[0].counters.sites.items()}
    warps = 2
    assert 3 not in counted  # a = 1 if _FLAG else 2
    assert counted[4] == 2 * warps  # n > 0, select
    assert counted[5] == 1 * warps  # n > 0
    assert counted[6] == 3 * warps  # n > 0, its test, n < 9


def _tiled_matmul_factory(module, tile):
    """GPU-Puzzles' form: a factory takes the ``cuda`` module and returns the plain function the
    caller hands to ``cuda.jit``; ``cuda`` is then a closure cell of the kernel, not a global."""
    import numba

    def call(out, a, b, size) -> None:
        a_tile = module.shared.array((tile, tile), numba.float32)
        b_tile = module.shared.array((tile, tile), numba.float32)
        i = module.blockIdx.x * module.blockDim.x + module.threadIdx.x
        j = module.blockIdx.y * module.blockDim.y + module.threadIdx.y
        ti, tj = module.threadIdx.x, module.threadIdx.y
        acc = 0.0
        for t in range((size + tile - 1) // tile):
            a_tile[ti, tj] = a[i, t * tile + tj] if i < size and t * tile + tj < size else 0
            b_tile[ti, tj] = b[t * tile + ti, j] if j < size and t * tile + ti < size else 0
            module.syncthreads()
            for k in range(tile):
                acc += a_tile[ti, k] * b_tile[k, tj]
            module.syncthreads()
        if i < size and j < size:
            out[i, j] = acc

    return call


def test_a_kernel_whose_cuda_module_is_a_closure_cell_runs():
    size, tile = 10, 8
    a = np.arange(size * size, dtype=np.float32).reshape(size, size) / 7
    b = a.T.copy()
    out = np.zeros((size, size), np.float32)
    kernel = cuda.jit(_tiled_matmul_factory(cuda, tile))
    kernel[(2, 2), (tile, tile)](out, a, b, size)
    assert np.allclose(out, a @ b, rtol=1e-5)
    total = kernel.last_launch.counters.total()  # type: ignore[union-attr]
    # two tiles per block, each thread storing one element of each: 4 blocks x 2 warps x 2 x 2
    assert total.shared_store_requests == 4 * 2 * 2 * 2
