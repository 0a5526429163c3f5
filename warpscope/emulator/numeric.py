"""numba's integer typing on top of numpy's arithmetic.

numpy keeps an int32 expression in int32 (and wraps); numba computes every integer operation
at 64 bits — operands narrower than 64 bits widen to int64, or uint64 when unsigned, and a
signed with an unsigned operand gives int64 — so ``a32 * b32`` does not overflow and
``u32 - u32`` is a uint64. Mixed integer/float operands already follow the same rules in both.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

Binary = Callable[[Any, Any], Any]

_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor)
_SHIFTS = (ast.LShift, ast.RShift)
_INT64, _UINT64 = np.dtype(np.int64), np.dtype(np.uint64)


def _widened(dtype: np.dtype) -> np.dtype | None:
    """The 64-bit type numba computes an integer (or bool) operand in; None for others."""
    kind = dtype.kind
    if kind == "u":
        return _UINT64
    if kind in "ib":
        return _INT64
    return None


def _as(value: Any, dtype: np.dtype) -> Any:
    return value if value.dtype == dtype else value.astype(dtype)


def numba_binary(op_type: type, op: Binary | None) -> Binary | None:
    """``op`` with numba's integer widening (None stays None: an unsupported operator)."""
    if op is None or op_type is ast.Div:
        return op
    shift = op_type in _SHIFTS
    bitwise = op_type in _BITWISE

    def binary(a: Any, b: Any) -> Any:
        da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
        if da is None or db is None:
            return op(a, b)
        wa, wb = _widened(da), _widened(db)
        if wa is None or wb is None or (bitwise and da.kind == db.kind == "b"):
            return op(a, b)
        if shift:
            return op(_as(a, wa), _as(b, wa))
        result = _INT64 if _INT64 in (wa, wb) else _UINT64
        return op(_as(a, result), _as(b, result))

    return binary


def numba_unary(op_type: type, op: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Negation of an integer happens at 64 bits; inversion keeps the operand's width (on
    the H100, ``~u32`` of 0 is 4294967295)."""
    if op_type in (ast.Not, ast.Invert):
        return op

    def unary(a: Any) -> Any:
        dtype = getattr(a, "dtype", None)
        wide = _widened(dtype) if dtype is not None else None
        if wide is None:
            return op(a)
        return op(_as(a, wide))

    return unary
