"""Integer index arithmetic remembered across a loop's iterations.

A loop indexes with the same few arrays every iteration: ``A[row * N + k]`` recomputes
``row * N`` (the same operands each time) and adds a counter that moves by one. Two memos,
per launch (``forget``), let the memory layer follow that without redoing it on every lane:

- ``binary``: an integer operation whose operands are the very objects of its last run (an
  array no one writes to, or a scalar) returns that run's result instead of recomputing it;
- ``offset_of``: an index made by adding a scalar to such an array is known as that array
  plus the scalar, so its range, its weighted sums (byte addresses) and the pattern its
  sectors repeat are the array's, remembered once, moved by the scalar.

Both hold arrays weakly or only while they are the newest few, and only arrays no one writes
to: results of integer operations are made read-only here.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

#: below this many lanes recomputing costs less than remembering (as ``arrays.PATTERN_LANES``:
#: measured, a 256-lane grid-stride loop counting from ``threadIdx.x + blockIdx.x * blockDim.x``
#: ran 10% faster untimed and 35% timed at 256 than at 4,096, the corpus no slower)
MIN_LANES = 256
_INT64 = np.dtype(np.int64)
_KEPT = 8

#: per instruction site: its last operands and result (integer results of large arrays)
_RESULTS: dict[Any, tuple[Any, Any, np.ndarray]] = {}
#: by the identity of an index array: it (weakly), the array it is a scalar away from, the scalar
_OFFSETS: dict[int, tuple[weakref.ref[np.ndarray], np.ndarray, int]] = {}


def _fixed(value: Any) -> bool:
    """A value that cannot change under the memo: a scalar, or an array no one may write."""
    return not isinstance(value, np.ndarray) or not value.flags.writeable


def binary(inst: Any, op: Any, a: Any, b: Any, add: int) -> Any:
    """``op(a, b)`` for the instruction ``inst``; remembered where it is an integer array
    computed from fixed operands. ``add``: +1 for an addition, -1 for a subtraction, 0 for
    anything else (a sum of an int64 array and an integer scalar is noted as an offset)."""
    last = _RESULTS.get(inst)
    if last is not None and last[0] is a and last[1] is b:
        return last[2]
    v = op(a, b)
    if not isinstance(v, np.ndarray) or v.dtype.kind not in "iu" or v.size < MIN_LANES:
        return v
    v.flags.writeable = False  # its value may be handed out again (here, or as an offset's base)
    if _fixed(a) and _fixed(b):
        _keep(_RESULTS, inst, (a, b, v))
    if add and v.dtype == _INT64:
        if isinstance(a, np.ndarray) and a.dtype == _INT64 and _integer(b) and not a.flags.writeable:
            _keep(_OFFSETS, id(v), (weakref.ref(v), a, add * int(b)))
        elif (
            add > 0
            and isinstance(b, np.ndarray)
            and b.dtype == _INT64
            and _integer(a)
            and not b.flags.writeable
        ):
            _keep(_OFFSETS, id(v), (weakref.ref(v), b, int(a)))
    return v


def moved(base: Any, shift: Any) -> Any:
    """``base + shift``; where ``base`` is an int64 array no one writes and ``shift`` an integer
    scalar, the sum is read-only and noted as ``base`` moved by ``shift`` (``offset_of``): a
    loop counter that starts from a thread index, ``for i in range(start, n, stride)``, is
    then its start moved each iteration, whose range, sums and sector pattern are known."""
    v = base + shift
    fixed = isinstance(base, np.ndarray) and base.dtype == _INT64 and not base.flags.writeable
    if fixed and _integer(shift) and isinstance(v, np.ndarray) and v.dtype == _INT64:
        v.flags.writeable = False
        _keep(_OFFSETS, id(v), (weakref.ref(v), base, int(shift)))
    return v


def offset_of(index: Any) -> tuple[np.ndarray, int] | None:
    """(base, scalar) where ``index`` is ``base + scalar`` lane for lane (both int64), else None."""
    hit = _OFFSETS.get(id(index))
    if hit is None or hit[0]() is not index:
        return None
    return hit[1], hit[2]


def forget() -> None:
    """A launch ended: its values are gone."""
    _RESULTS.clear()
    _OFFSETS.clear()


def _integer(value: Any) -> bool:
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and np.ndim(value) == 0
    )


def _keep(memo: dict[Any, Any], key: Any, value: Any) -> None:
    memo[key] = value
    if len(memo) > _KEPT:
        del memo[next(iter(memo))]  # the oldest
