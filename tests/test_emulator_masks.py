"""Every memory space under every kind of mask, timed and untimed: the values numpy gives, the
same counters with the timing model on as off, and no internal error.

The emulator takes a different path for a chunk of a few warps, a few active lanes in a large
chunk, one lane, a block the timing model does not sample, every lane on one element, and
elements of 1 to 16 bytes; a mistake in one path shows here as a wrong value, a counter that
depends on the timing model, or an internal error (8- and 16-byte shared accesses made only by
an unsampled block raised one until the fix it was written for)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from warpscope.emulator import cuda
from warpscope.emulator.kernel import SETTINGS, Settings, recording

#: which lanes act: every thread, all but the last five, block 1 alone (not sampled for timing
#: in a grid of 40), thread 7 alone, even threads
MASKS = ("all", "tail", "block 1", "one lane", "even")
#: the element each lane loads: its own, another lane's, the same for all, a gathered one
PATTERNS = ("own", "strided", "uniform", "gathered")
GRIDS = ((2, 96), (40, 128))
DTYPES = (np.int8, np.float32, np.float64, np.complex128)


@pytest.fixture(autouse=True)
def _settings():
    saved = Settings(**vars(SETTINGS))
    yield
    vars(SETTINGS).update(vars(saved))


def _kernel(dtype: type, pattern: int, mask: int):
    @cuda.jit
    def kernel(out, a, chosen, n):
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        shared = cuda.shared.array(1024, dtype)
        local = cuda.local.array(4, dtype)
        if mask == 0:
            acts = i < n
        elif mask == 1:
            acts = i < n - 5
        elif mask == 2:
            acts = cuda.blockIdx.x == 1 and i < n
        elif mask == 3:
            acts = i == 7
        else:
            acts = t % 2 == 0 and i < n
        if acts:
            if pattern == 0:
                k = i
            elif pattern == 1:
                k = (i * 3) % n
            elif pattern == 2:
                k = 0
            else:
                k = chosen[i]
            v = a[k]
            shared[t] = v
            local[t % 4] = shared[t]
            out[i] = local[t % 4] + v

    return kernel


def _expected(dtype, pattern, mask, grid, block, a, chosen):
    n = grid * block
    i = np.arange(n)
    t = i % block
    acts = (i < n, i < n - 5, i // block == 1, i == 7, (t % 2 == 0))[mask]
    k = (i, (i * 3) % n, np.zeros(n, np.int64), chosen)[pattern]
    return np.where(acts, a[k] + a[k], 0).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_space_under_every_mask_gives_numpys_values_and_counts_alike_timed(dtype):
    failed = []
    for (pattern, _), (mask, _), (grid, block) in itertools.product(
        enumerate(PATTERNS), enumerate(MASKS), GRIDS
    ):
        n = grid * block
        rng = np.random.default_rng(pattern * 10 + mask)
        a = rng.integers(1, 50, n).astype(dtype)
        chosen = rng.integers(0, n, n)
        kernel = _kernel(dtype, pattern, mask)
        counted = []
        for timing in (False, True):
            SETTINGS.timing = timing
            out = np.zeros(n, dtype)
            with recording() as launches:
                kernel[grid, block](out, a, chosen, n)
            if not np.array_equal(out, _expected(dtype, pattern, mask, grid, block, a, chosen)):
                failed.append((PATTERNS[pattern], MASKS[mask], grid, timing, "values"))
            counted.append(launches[0].counters.total())
            if timing:
                assert launches[0].timing is not None and launches[0].timing.cycles > 0
        if counted[0] != counted[1]:
            failed.append((PATTERNS[pattern], MASKS[mask], grid, "counters differ timed and untimed"))
    assert not failed


@cuda.jit
def _short_circuits(out, a, n):
    i = cuda.grid(1)
    x = a[i % n]
    hits = 0  # one value for every lane until some lane leaves the loop: in some chunks, never
    while hits < 3 and x > 1:  # the last test: every lane of some chunks already done
        x = x // 2
        hits += 1
    extra = 1 if hits == 3 else 2
    if cuda.blockIdx.x == 1 and i < n:  # the second operand wanted in one block only
        extra += 10
    if i >= n or x == 0:
        extra += 100
    out[i] = hits + extra


@pytest.mark.parametrize("mask", range(len(MASKS)), ids=MASKS)
def test_what_a_launch_counts_does_not_depend_on_which_blocks_share_a_chunk(mask):
    """Blocks run a chunk at a time (``Settings.chunk_lanes``); the counters, the timing and the
    values are the same whether a chunk holds the whole grid or a few blocks. A short-circuit
    ``and`` counted its test only in chunks where some lane went on to the next operand (a
    launch of 300 blocks of 96 counted 1,803 warp instructions at that line in one chunk and
    1,029 in chunks of 4,096 lanes), and ``and``/``or`` and ``x if c else y`` counted nothing
    where the values were one for every lane of the chunk (a loop counter no lane of the chunk
    has left the loop yet), which depends on the chunk's blocks too."""
    grid, block = 300, 96
    n = grid * block - 40
    rng = np.random.default_rng(mask)
    a = rng.integers(0, 50, n).astype(np.int64)
    a[: n // 2] = rng.integers(8, 50, n // 2)  # every lane loops three times: a counter of one value
    chosen = rng.integers(0, grid * block, grid * block)
    masked = _kernel(np.float32, 3, mask)
    runs = []
    for lanes in (1 << 17, 4096, 1024):
        SETTINGS.chunk_lanes, SETTINGS.timing = lanes, True
        got = []
        for kernel, args in (
            (_short_circuits, (np.zeros(grid * block, np.int64), a, n)),
            (masked, (np.zeros(grid * block, np.float32), a.astype(np.float32), chosen, grid * block)),
        ):
            with recording() as launches:
                kernel[grid, block](*args)
            (launch,) = launches
            t = launch.timing
            got.append(
                (
                    args[0].tolist(),
                    launch.counters.sites,
                    t.cycles,
                    [(s.issued, s.state_cycles, s.l1_hits, s.l2_hits, s.dram_sectors) for s in t.simulated],
                )
            )
        runs.append(got)
    assert runs[1] == runs[0] and runs[2] == runs[0]


@cuda.jit
def _insertion_sorts(out, src):
    i = cuda.grid(1)
    if i < src.size:
        w = cuda.local.array(5, np.float32)
        for k in range(5):
            w[k] = src[(i + k) % src.size]
        for a in range(1, 5):
            key = w[a]
            b = a - 1
            while b >= 0 and w[b] > key:  # b: one value for every lane of some chunks, not others
                w[b + 1] = w[b]
                b -= 1
            w[b + 1] = key
        out[i] = w[2]


def test_a_local_array_indexed_by_a_moving_name_is_timed_alike_in_any_chunk():
    """A local array indexed by a name a data-dependent loop moves (``w[b]``, ``b -= 1``) is
    timed as local memory whatever the chunk: it was timed as registers where ``b`` held one
    value for every lane of the chunk, which one-block chunks made more often (corpus c37)."""
    src = ((np.arange(300) * 7919 % 97) / 9).astype(np.float32)
    runs = []
    for lanes in (1 << 17, 128):
        SETTINGS.chunk_lanes, SETTINGS.timing = lanes, True
        out = np.zeros_like(src)
        with recording() as launches:
            _insertion_sorts[3, 128](out, src)
        t = launches[0].timing
        runs.append(
            (out.tolist(), launches[0].counters.sites, t.cycles, [s.state_cycles for s in t.simulated])
        )
    assert runs[0] == runs[1]
    assert runs[0][0] == np.sort(np.stack([np.roll(src, -k) for k in range(5)]), axis=0)[2].tolist()
