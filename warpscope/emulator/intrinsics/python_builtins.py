"""Python builtins with their own rules in kernels: ``min``/``max`` of two or more numbers,
``len``, ``round``, ``print``, ``complex``, ``range`` outside a ``for``, and ``cmath``."""

from __future__ import annotations

import ast
import builtins
import cmath
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator.intrinsics.elementwise import cast, elementwise
from warpscope.emulator.intrinsics.registry import register
from warpscope.emulator.ir import Compiling, run_expr
from warpscope.emulator.numeric import BINARY, numba_binary, numba_unary
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask


def _minmax(f: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        if len(args) < 2:
            raise c.unsupported(node, "min/max take two or more numbers in kernels")

        def reduce(*vals: Any) -> Any:
            out = vals[0]
            for v in vals[1:]:
                out = f(out, v)
            return out

        return elementwise(c, node, args, line, reduce)

    return build


@register(builtins.len)
def _len(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    (a,) = args
    fa = run_expr(a)

    def length(run: Run, frame: Frame, mask: Mask) -> Any:
        v = fa(run, frame, mask)
        if isinstance(v, tuple):
            return np.int64(len(v))
        return np.int64(v.shape[0])

    return length


@register(builtins.round)
def _round(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    if len(args) == 1:
        return elementwise(c, node, args, line, lambda x: cast(np.int64)(np.round(x)))
    return elementwise(c, node, args, line, lambda x, n: np.round(x, int(n)))


_POW = numba_binary(ast.Pow, operator.pow)


@register(builtins.pow)
def _builtin_pow(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    if len(args) != 2:
        raise c.unsupported(node, "pow takes two numbers in kernels (no modulus)")
    return elementwise(c, node, args, line, _POW)


@register(builtins.range)
def _range(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    raise c.unsupported(node, "range() can only be used as 'for name in range(...)'")


register(builtins.min)(_minmax(np.minimum))
register(builtins.max)(_minmax(np.maximum))


def _printf(value: Any) -> str:
    """One value as numba-cuda's print hands it to printf (%lld, %llu, %f; strings as they are)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (np.floating, float)):
        return f"{float(value):f}"
    if isinstance(value, (np.integer, int)):
        return str(int(value))
    raise TypeError(type(value).__name__)


@register(builtins.print)
def _print(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    """numba-cuda's ``print(...)``: one line per thread that runs it, the values separated by
    spaces, in thread order (a GPU prints a warp's lanes in order; warps in any order)."""
    fs = [run_expr(a) for a in args]
    unsupported = c.unsupported(
        node, "print() of an array is not supported in kernels (numbers and strings are)"
    )

    def print_(run: Run, frame: Frame, mask: Mask) -> Any:
        values = [f(run, frame, mask) for f in fs]
        if not all(isinstance(v, (str, int, float, np.generic)) or type(v) is np.ndarray for v in values):
            raise unsupported
        for lane in np.flatnonzero(mask.arr):
            print(" ".join(_printf(v[lane] if np.ndim(v) else v) for v in values))
        return None

    return print_


def _complex(real: Any = 0.0, imag: Any = 0.0) -> Any:
    """numba's ``complex(real, imag)``: complex128 whatever the parts' types."""
    return (np.asarray(real).astype(np.complex128) + np.asarray(imag).astype(np.float64) * 1j)[()]


@register(builtins.complex)
def _complex_builtin(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    if len(args) > 2:
        raise c.unsupported(node, "complex() takes a real and an imaginary part in kernels")
    return elementwise(c, node, args, line, _complex)


def _rect(r: Any, phi: Any) -> Any:
    return (np.asarray(r) * (np.cos(phi) + 1j * np.sin(phi))).astype(np.complex128)[()]


def _complex_fn(f: Callable[..., Any]) -> Callable[..., Any]:
    """A cmath function: complex in, complex128 out (numba types cmath on complex128)."""

    def g(*args: Any) -> Any:
        return f(*(np.asarray(a).astype(np.complex128) for a in args))[()]

    return g


_CMATH: dict[Any, Callable[..., Any]] = {
    **{
        getattr(cmath, name): _complex_fn(fn)
        for name, fn in {
            "exp": np.exp, "log10": np.log10, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
            "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
            "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
            "acosh": np.arccosh, "atanh": np.arctanh,
        }.items()
    },
    cmath.phase: lambda z: np.angle(np.asarray(z).astype(np.complex128))[()],
    cmath.isnan: lambda z: np.isnan(z),
    cmath.isinf: lambda z: np.isinf(z),
    cmath.isfinite: lambda z: np.isfinite(z),
    cmath.rect: _rect,
}  # fmt: skip


def _cmath_builder(f: Callable[..., Any]) -> Callable[..., Any]:
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        return elementwise(c, node, args, line, f)

    return build


for _fn, _f in _CMATH.items():
    register(_fn)(_cmath_builder(_f))


@register(cmath.log)
def _cmath_log(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    if len(args) == 2:
        return elementwise(c, node, args, line, _complex_fn(lambda z, b: np.log(z) / np.log(b)))
    return elementwise(c, node, args, line, _complex_fn(np.log))


#: the ``operator`` module's functions numba-cuda compiles, by the operator each one is
_OPERATORS: dict[Any, type[ast.operator]] = {
    operator.add: ast.Add,
    operator.sub: ast.Sub,
    operator.mul: ast.Mult,
    operator.truediv: ast.Div,
    operator.floordiv: ast.FloorDiv,
    operator.mod: ast.Mod,
    operator.pow: ast.Pow,
    operator.lshift: ast.LShift,
    operator.rshift: ast.RShift,
    operator.and_: ast.BitAnd,
    operator.or_: ast.BitOr,
    operator.xor: ast.BitXor,
    operator.iadd: ast.Add,
    operator.isub: ast.Sub,
    operator.imul: ast.Mult,
    operator.itruediv: ast.Div,
    operator.ifloordiv: ast.FloorDiv,
    operator.imod: ast.Mod,
    operator.ipow: ast.Pow,
    operator.ilshift: ast.LShift,
    operator.irshift: ast.RShift,
    operator.iand: ast.BitAnd,
    operator.ior: ast.BitOr,
    operator.ixor: ast.BitXor,
}


def _operator(f: Callable[..., Any]) -> Callable[..., Any]:
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        return elementwise(c, node, args, line, f)

    return build


for _fn, _op in _OPERATORS.items():
    register(_fn)(_operator(numba_binary(_op, BINARY[_op])))
for _fn in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
    register(_fn)(_operator(_fn))
register(operator.neg)(_operator(lambda x: numba_unary(ast.USub, operator.neg)(x)))
register(operator.pos)(_operator(lambda x: x))
register(operator.invert)(_operator(lambda x: numba_unary(ast.Invert, operator.invert)(x)))
register(operator.not_)(_operator(np.logical_not))
