"""Calls computed lane by lane: ``math.*``, ``abs``, casts (``int``, ``np.float32``...),
numpy ufuncs, ``device.fma`` and ``device.selp``; folded at compile time when every argument is.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.errors import KernelMistake
from warpscope.emulator.instructions import Op, arithmetic_op
from warpscope.emulator.intrinsics.registry import BUILDERS, BY_TYPE, Builder, all_deps
from warpscope.emulator.ir import Compiling, Const, Node, run_expr, with_deps
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask


def _int(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """math.floor/ceil/trunc return integers in numba, as in Python."""
    return lambda x: np.asarray(f(x)).astype(np.int64) if np.ndim(x) else np.int64(f(x))


def _vectorize(f: Callable[..., float]) -> Callable[..., Any]:
    vec = np.vectorize(f, otypes=[np.float64])
    return lambda *a: vec(*a) if any(np.ndim(x) for x in a) else np.float64(f(*a))


def _pow(a: Any, b: Any) -> Any:
    """math.pow is floating point even on integers (numpy's integer power would wrap)."""
    kind = np.result_type(np.asarray(a).dtype, np.asarray(b).dtype)
    return np.power(a, b, dtype=kind if kind.kind == "f" else np.float64)


def _frexp(x: Any) -> tuple[Any, Any]:
    """numba's math.frexp: the mantissa in the argument's float type and an int32 exponent."""
    m, e = np.frexp(x)
    return m, np.asarray(e).astype(np.int32) if np.ndim(e) else np.int32(e)


ELEMENTWISE: dict[Any, Callable[..., Any]] = {
    math.sqrt: np.sqrt,
    math.exp: np.exp,
    math.expm1: np.expm1,
    math.log: lambda x, base=None: np.log(x) if base is None else np.log(x) / np.log(base),
    math.log2: np.log2,
    math.log10: np.log10,
    math.log1p: np.log1p,
    math.sin: np.sin,
    math.cos: np.cos,
    math.tan: np.tan,
    math.asin: np.arcsin,
    math.acos: np.arccos,
    math.atan: np.arctan,
    math.atan2: np.arctan2,
    math.sinh: np.sinh,
    math.cosh: np.cosh,
    math.tanh: np.tanh,
    math.asinh: np.arcsinh,
    math.acosh: np.arccosh,
    math.atanh: np.arctanh,
    math.pow: lambda a, b: _pow(a, b),
    math.fabs: np.fabs,
    math.floor: _int(np.floor),
    math.ceil: _int(np.ceil),
    math.trunc: _int(np.trunc),
    math.fmod: np.fmod,
    math.hypot: np.hypot,
    math.copysign: np.copysign,
    math.isnan: np.isnan,
    math.isinf: np.isinf,
    math.isfinite: np.isfinite,
    math.degrees: np.degrees,
    math.radians: np.radians,
    math.erf: _vectorize(math.erf),
    math.erfc: _vectorize(math.erfc),
    math.gamma: _vectorize(math.gamma),
    math.lgamma: _vectorize(math.lgamma),
    math.frexp: lambda x: _frexp(x),
    math.modf: lambda x: (np.modf(x)[0], np.modf(x)[1]),
    math.remainder: _vectorize(math.remainder),
    math.ldexp: lambda x, e: np.ldexp(x, np.asarray(e).astype(np.int32)),
    builtins.abs: np.abs,
    device.fma: lambda a, b, c: a * b + c,
    device.cbrt: np.cbrt,
    device.selp: lambda p, a, b: np.where(p, a, b),
}

CASTS: dict[Any, Any] = {
    builtins.int: np.int64,
    builtins.float: np.float64,
    builtins.bool: np.bool_,
    **{
        t: t
        for t in (
            np.float16,
            np.float32,
            np.float64,
            np.int8,
            np.int16,
            np.int32,
            np.int64,
            np.uint8,
            np.uint16,
            np.uint32,
            np.uint64,
            np.bool_,
            np.complex64,
            np.complex128,
        )
    },
}


#: functions the GPU computes on its transcendental unit (MUFU and its refinement code)
TRANSCENDENTAL = {
    device.cbrt,
    math.sqrt,
    math.exp,
    math.expm1,
    math.log,
    math.log2,
    math.log10,
    math.log1p,
    math.sin,
    math.cos,
    math.tan,
    math.asin,
    math.acos,
    math.atan,
    math.atan2,
    math.sinh,
    math.cosh,
    math.tanh,
    math.asinh,
    math.acosh,
    math.atanh,
    math.pow,
    math.hypot,
    math.erf,
    math.erfc,
    math.gamma,
    math.lgamma,
    math.fmod,
}


def _value_op(fn: Any, args: tuple[Any, ...], value: Any) -> Op:
    """The pipe a call's instruction runs on, from the function and the value types."""
    if fn in TRANSCENDENTAL:
        return Op.XU
    if fn == "cast" and args:
        src = np.asarray(args[0]).dtype
        dst = np.asarray(value).dtype
        if (src.kind != dst.kind and "f" in (src.kind, dst.kind)) or (
            src != dst and src.kind == dst.kind == "f"
        ):
            return Op.CVT  # I2F, F2I, F2F run on the conversion (XU) pipe
    return arithmetic_op(value)


def cast(t: Any) -> Callable[[Any], Any]:
    return lambda x: np.asarray(x).astype(t) if np.ndim(x) else t(x)


def elementwise(
    c: Compiling, node: ast.Call, args: list[Any], line: int, f: Callable[..., Any], kind: Any = None
) -> Node:
    if all(isinstance(a, Const) for a in args):
        with np.errstate(all="ignore"):
            return Const(f(*(a.value for a in args)))
    fns = [run_expr(a) for a in args]
    inst = c.inst(line, None, all_deps(args))

    def elementwise(run: Run, frame: Frame, mask: Mask) -> Any:
        values = tuple(g(run, frame, mask) for g in fns)
        try:
            v = f(*values)
        except Exception:
            _check_numbers(values, kind)
            raise
        run.issue(inst, mask, _value_op(kind, values, v))
        return v

    return with_deps(elementwise, {inst.dst})


def _check_numbers(values: tuple[Any, ...], fn: Any) -> None:
    """A call given something other than numbers is the kernel's mistake (numba refuses it)."""
    for v in values:
        if not isinstance(v, (int, float, complex, np.generic, np.ndarray)):
            name = getattr(fn, "__name__", "this function") if fn != "cast" else "a cast"
            raise KernelMistake(f"{name}() takes numbers, not {type(v).__name__}")


def builder(f: Callable[..., Any], kind: Any = None) -> Builder:
    """A builder that applies ``f`` to the arguments lane by lane."""

    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Node:
        return elementwise(c, node, args, line, f, kind)

    return build


for _fn, _f in ELEMENTWISE.items():
    BUILDERS[_fn] = builder(_f, _fn)
for _fn, _t in CASTS.items():
    BUILDERS[_fn] = builder(cast(_t), "cast")
BY_TYPE.append((np.dtype, lambda dtype: builder(cast(dtype.type), "cast")))
BY_TYPE.append((np.ufunc, builder))
