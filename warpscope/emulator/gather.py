"""Gathers whose lanes' indices repeat: a warp's lanes on one row, a block's rows alike.

A kernel indexes with its thread index, so a loop's loads name the same few elements many
times over: ``As[ty, i]`` gives every lane of a row of ``tx`` one element, ``Bs[i, tx]``
gives every row of a block the same ``tx`` elements, ``A[row * N + k]`` the same per row.
Where a remembered index array (read-only, used again: ``arrays`` and ``affine`` keep them
for the launch) has one of two shapes, the gather reads its distinct elements once and
copies them out, instead of one ``np.take`` over every lane (about 4x faster):

- runs: every ``R`` consecutive lanes name one element (``R`` of 32, 16, 8);
- tiles: every ``Q`` consecutive groups of ``P`` lanes name the same ``P`` elements.

The shape is looked for at an array's second gather (a loop's), once.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

#: below this many lanes a plain gather costs less than looking for a shape
MIN_LANES = 4096
_RUNS = (32, 16, 8)
_PERIODS = (32, 16, 8)
_REPEATS = (32, 16, 8, 4, 2)
_KEPT = 12

#: by the identity of an index array: it (weakly), whether it was looked at, what was found
_SHAPES: dict[int, list[Any]] = {}


def structured(flat: np.ndarray, index: np.ndarray, scalar: int) -> np.ndarray | None:
    """``flat[index + scalar]`` where ``index`` (int64, read-only) has a shape, else None."""
    shape = _shape(index)
    if shape is None:
        return None
    kind, count, distinct = shape
    small = np.take(flat, distinct + scalar if scalar else distinct)
    if kind == "runs":
        return np.repeat(small, count)
    out = np.empty((small.shape[0], count, small.shape[1]), dtype=small.dtype)
    out[...] = small[:, None, :]
    return out.reshape(-1)


def forget() -> None:
    """A launch ended: its index arrays are gone."""
    _SHAPES.clear()


def _shape(index: np.ndarray) -> tuple[str, int, np.ndarray] | None:
    if index.flags.writeable or index.ndim != 1 or index.size < MIN_LANES:
        return None
    hit = _SHAPES.get(id(index))
    if hit is None or hit[0]() is not index:
        _SHAPES[id(index)] = [weakref.ref(index), False, None]  # seen once: not worth a look yet
        if len(_SHAPES) > _KEPT:
            del _SHAPES[next(iter(_SHAPES))]
        return None
    if not hit[1]:
        hit[1], hit[2] = True, find_shape(index)
    return hit[2]


def find_shape(index: np.ndarray) -> tuple[str, int, np.ndarray] | None:
    """("runs", R, each run's index) or ("tiles", Q, each tile's P indices as rows), or None."""
    n = index.size
    same_as_next = np.empty(n, dtype=bool)
    np.equal(index[1:], index[:-1], out=same_as_next[:-1])
    same_as_next[-1] = False
    for r in _RUNS:
        if n % r == 0 and same_as_next.reshape(-1, r)[:, :-1].all():
            return "runs", r, index[::r].copy()
    for p in _PERIODS:
        if n % p or n < 2 * p:
            continue
        same_as_above = np.empty(n, dtype=bool)  # lane k names what lane k - p names
        same_as_above[:p] = False
        np.equal(index[p:], index[:-p], out=same_as_above[p:])
        for q in _REPEATS:
            if n % (p * q) == 0 and same_as_above.reshape(-1, q, p)[:, 1:, :].all():
                return "tiles", q, index.reshape(-1, q, p)[:, 0, :].copy()
    return None
