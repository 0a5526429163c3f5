"""numba's integer typing on top of numpy's arithmetic.

numpy keeps an int32 expression in int32 (and wraps); numba computes every integer operation
at 64 bits — operands narrower than 64 bits widen to int64, or uint64 when unsigned, and a
signed with an unsigned operand gives int64 — so ``a32 * b32`` does not overflow and
``u32 - u32`` is a uint64. Mixed integer/float operands already follow the same rules in both.
"""

from __future__ import annotations

import ast
import operator
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


#: Python's operator for each binary AST operator (before numba's typing rules apply)
BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}


def numba_binary(op_type: type, op: Binary) -> Binary:
    """``op`` with numba's integer widening: one closure per operator (a kernel's tree holds
    one, and a kernel's entry in the compile cache names the module-level ones)."""
    known = _BINARIES.get((op_type, op))
    if known is None:
        known = _BINARIES[(op_type, op)] = _widening(op_type, op)
    return known


#: ``numba_binary``'s closures (its operators are BINARY's: a few)
_BINARIES: dict[tuple[type, Binary], Binary] = {}


def _widening(op_type: type, op: Binary) -> Binary:
    if op_type is ast.Div:
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
        if op_type is ast.Pow:
            return integer_power(_as(a, result), _as(b, result))
        return op(_as(a, result), _as(b, result))

    return binary


def integer_power(a: Any, b: Any) -> Any:
    """``a ** b`` of integers as numba computes it: repeated squaring at 64 bits (wrapping),
    and for a negative exponent 1/a**-b in integers (0 unless ``a`` is ±1; ``0 ** -n`` is
    the type's minimum, numba's result where it does not raise)."""
    a, b = np.asarray(a), np.asarray(b)
    negative = b < 0 if b.dtype.kind == "i" else np.zeros(np.shape(b), bool)
    with np.errstate(all="ignore"):
        magnitude = np.where(negative, -b, b) if b.dtype.kind == "i" else b
        r = np.power(a, magnitude.astype(b.dtype))
    if np.any(negative):
        small = np.where(a == 1, 1, np.where(a == -1, np.where(magnitude % 2 == 0, 1, -1), 0))
        zero = np.iinfo(a.dtype).min if a.dtype.kind == "i" else 0
        r = np.where(negative, np.where(a == 0, zero, small), r).astype(r.dtype)
    return r if r.ndim else r[()]


def numba_unary(op_type: type, op: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Negation and inversion of an integer: computed at the operand's width, then widened to
    64 bits (numba negates before it upcasts: on the H100 ``-i32`` of -2**31 is -2**31, and
    ``cuda.clz(~u32)`` counts 64 bits)."""
    if op_type is ast.Not:
        return op

    def unary(a: Any) -> Any:
        dtype = getattr(a, "dtype", None)
        if dtype is None:
            return op(a)
        wide = _widened(dtype)
        if wide is None:
            return op(a)
        if dtype.kind == "b":
            return op(_as(a, wide))
        with np.errstate(all="ignore"):
            return _as(op(a), wide)

    return unary
