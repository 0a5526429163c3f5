"""Gathers by the shape of their index (``warpscope.emulator.gather``): the same values as
one ``np.take`` over every lane."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from warpscope.emulator import gather


def _read_only(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.int64)
    a.flags.writeable = False
    return a


def _twice(flat: np.ndarray, index: np.ndarray, scalar: int) -> np.ndarray | None:
    """The second gather with ``index`` (the first only notes it)."""
    gather.forget()
    assert gather.structured(flat, index, scalar) is None
    return gather.structured(flat, index, scalar)


shapes = st.sampled_from(["runs", "tiles", "any"])


@settings(max_examples=60, deadline=None)
@given(kind=shapes, seed=st.integers(0, 2**32 - 1), scalar=st.integers(0, 7))
def test_a_shaped_gather_reads_what_a_plain_one_does(kind: str, seed: int, scalar: int) -> None:
    rng = np.random.default_rng(seed)
    lanes = 8192
    flat = rng.random(5000, dtype=np.float32)
    if kind == "runs":
        r = int(rng.choice([8, 16, 32]))
        index = np.repeat(rng.integers(0, 4000, lanes // r), r)
    elif kind == "tiles":
        q, p = int(rng.choice([2, 4, 8, 16, 32])), int(rng.choice([8, 16, 32]))
        rows = rng.integers(0, 4000, (lanes // (p * q), p))
        index = np.broadcast_to(rows[:, None, :], (lanes // (p * q), q, p)).reshape(-1)
    else:
        index = rng.integers(0, 4000, lanes)
    index = _read_only(index)
    shaped = _twice(flat, index, scalar)
    if kind == "any":
        assert shaped is None  # random lanes repeat nothing
    else:
        assert shaped is not None
        np.testing.assert_array_equal(shaped, np.take(flat, index + scalar))


def test_a_tiled_matmuls_shared_loads_are_found_as_runs_and_tiles() -> None:
    """``As[ty, i]`` and ``Bs[i, tx]`` of 32x32 blocks: each block's copy starts at its own
    offset; a row of tx names one element of As, the rows of a block the same 32 of Bs."""
    blocks, width = 16, 33
    lane = np.arange(blocks * 1024)
    block, ty, tx = lane // 1024, lane % 1024 // 32, lane % 32
    lead = block * 32 * width
    a_part, b_part = _read_only(lead + ty * width), _read_only(lead + tx)
    gather.forget()
    kind, count, _ = gather.find_shape(a_part)
    assert (kind, count) == ("runs", 32)
    kind, count, _ = gather.find_shape(b_part)
    assert (kind, count) == ("tiles", 32)


def test_writable_or_small_indices_are_gathered_plainly() -> None:
    flat = np.arange(100, dtype=np.float32)
    big = np.repeat(np.arange(512), 32)
    assert _twice(flat, big, 0) is None  # writable: it may change between gathers
    small = _read_only(np.repeat(np.arange(8), 32))
    assert _twice(flat, small, 0) is None  # too few lanes to be worth a look
