"""Fused multiply-add, as the GPU computes ``a * b + c``.

NVVM contracts a multiply feeding an add of the same floating type into one FFMA/DFMA (numba
leaves fp-contract on), so the product is not rounded before the add: on the H100,
``x / 7 * 7 - x`` in float32 is the rounding error of the division, not 0. numpy has no
fused multiply-add, so it is computed here: float32 (and float16) exactly in float64 (a
product of two float32 fits a float64; the sum is rounded once more, which changes a
float32 result only in rare halfway cases); float64 with Dekker's exact product and an exact
sum (Knuth's TwoSum), which is correct to within the last bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_SPLIT = np.float64(134217729.0)  # 2**27 + 1: Veltkamp's splitter for float64
_F64 = np.float64
_F64_DTYPE = np.dtype(np.float64)


def contracts(dtype: np.dtype, addend: Any) -> bool:
    """Whether a product of ``dtype`` plus ``addend`` is one fused operation: one float type."""
    if dtype.kind != "f":
        return False
    other = getattr(addend, "dtype", None)
    return other is not None and np.result_type(dtype, other) == dtype


def fused(a: Any, b: Any, c: Any, dtype: np.dtype) -> Any:
    """``a * b + c`` rounded once, in ``dtype`` (float16, float32 or float64). Run where a
    kernel runs, under the launch's ``np.errstate(all="ignore")``: a lane's overflow is the
    GPU's infinity, not a warning (entering the state here again cost a fifth of a call)."""
    if type(a) is _F64 and type(b) is _F64 and type(c) is _F64 and dtype.itemsize == 8:
        return _F64(_fused_scalar(float(a), float(b), float(c)))  # Python floats: no numpy state
    if dtype.itemsize < 8:
        exact = np.multiply(a, b, dtype=np.float64)
        c_shape = getattr(c, "shape", ())
        if not exact.ndim and not c_shape:
            return dtype.type(exact + np.float64(c))
        if exact.shape == np.broadcast_shapes(exact.shape, c_shape):
            exact += c  # the product is a new array of the result's shape: added in place
        else:
            exact = np.add(exact, c, dtype=np.float64)
        # rounded once into the narrow type (measured 5-7% faster at 64K-128K lanes than
        # one ufunc adding in float64 into a narrow ``out``, 20% at a million)
        return exact.astype(dtype)
    a, b, c = _as64(a), _as64(b), _as64(c)
    if not (np.ndim(a) or np.ndim(b) or np.ndim(c)):
        return _F64(_fused_scalar(a, b, c))
    p = np.multiply(a, b)  # (a float times a float: a 0-d array, as the lanes' are arrays)
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # a * b - p exactly (Dekker's TwoProduct)
    if isinstance(c, float):
        c = np.array(c)
    s = p + c
    bp = s - p  # TwoSum: p + c == s + t exactly
    t = (p - (s - bp)) + (c - bp)
    out = s + (t + e)
    # where the product overflows or an operand is not finite, the plain sum is the answer
    return np.where(np.isfinite(out), out, s)


def _as64(v: Any) -> Any:
    """An operand as float64: an array (as it is, if it is one already), a number as a
    Python float (split in Python, not by numpy's calls)."""
    if np.ndim(v):
        return v if type(v) is np.ndarray and v.dtype == _F64_DTYPE else np.asarray(v, dtype=np.float64)
    return float(v)


def _split(x: Any) -> tuple[Any, Any]:
    """Veltkamp's split of ``x`` into a high and a low part of 26 bits each, so the parts'
    products are exact: on an array, or on a Python float (one lane's, a uniform value's),
    its parts then 0-d arrays (an array's operation with one costs a third less than with a
    number, which numpy converts each time)."""
    if isinstance(x, float):
        cx = 134217729.0 * x
        high = cx - (cx - x)
        return np.array(high), np.array(x - high)
    cx = _SPLIT * x
    high = cx - (cx - x)
    return high, x - high


def _fused_scalar(a: float, b: float, c: float) -> float:
    """``fused``'s float64 steps on Python floats: one thread's (or a uniform) value, where
    numpy's two dozen calls on 0-d arrays cost 8x more. Python's float operations are the
    same IEEE double operations, each rounded alone (overflow gives inf, as numpy's)."""
    p = a * b
    ca = 134217729.0 * a
    ah = ca - (ca - a)
    al = a - ah
    cb = 134217729.0 * b
    bh = cb - (cb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bp = s - p
    t = (p - (s - bp)) + (c - bp)
    out = s + (t + e)
    return out if math.isfinite(out) else s
