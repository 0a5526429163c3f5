"""``cuda.libdevice.*`` (and ``numba.cuda.libdevice``): CUDA's libdevice math library, lane by
lane. A name without the ``f`` suffix works on float64, with it on float32 (``sqrt`` /
``sqrtf``), as libdevice's ``__nv_`` functions do; the integer functions at their width
(``popc`` int32, ``popcll`` int64, ``min``/``umin``/``llmin``...)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.intrinsics.bits import brev_bits, clz_bits, ffs_bits, popc_bits
from warpscope.emulator.intrinsics.elementwise import TRANSCENDENTAL, builder
from warpscope.emulator.intrinsics.registry import BUILDERS


def _round_half_away(x: Any) -> Any:
    return np.trunc(x + np.copysign(0.5, x) - np.copysign(np.finfo(np.asarray(x).dtype).epsneg / 4, x))


def _vector(f: Callable[..., float]) -> Callable[..., Any]:
    return np.vectorize(f, otypes=[np.float64])


#: float functions by their double-precision name; ``name + "f"`` is the float32 one
FLOAT: dict[str, tuple[Callable[..., Any], Any]] = {
    "sqrt": (np.sqrt, math.sqrt),
    "rsqrt": (lambda x: 1 / np.sqrt(x), math.sqrt),
    "cbrt": (np.cbrt, device.cbrt),
    "exp": (np.exp, math.exp),
    "exp2": (np.exp2, math.exp),
    "exp10": (lambda x: np.power(10.0, x), math.exp),
    "expm1": (np.expm1, math.expm1),
    "log": (np.log, math.log),
    "log2": (np.log2, math.log2),
    "log10": (np.log10, math.log10),
    "log1p": (np.log1p, math.log1p),
    "sin": (np.sin, math.sin),
    "cos": (np.cos, math.cos),
    "tan": (np.tan, math.tan),
    "sinpi": (lambda x: np.sin(np.pi * x), math.sin),
    "cospi": (lambda x: np.cos(np.pi * x), math.cos),
    "asin": (np.arcsin, math.asin),
    "acos": (np.arccos, math.acos),
    "atan": (np.arctan, math.atan),
    "atan2": (np.arctan2, math.atan2),
    "sinh": (np.sinh, math.sinh),
    "cosh": (np.cosh, math.cosh),
    "tanh": (np.tanh, math.tanh),
    "asinh": (np.arcsinh, math.asinh),
    "acosh": (np.arccosh, math.acosh),
    "atanh": (np.arctanh, math.atanh),
    "pow": (np.power, math.pow),
    "hypot": (np.hypot, None),
    "erf": (_vector(math.erf), None),
    "erfc": (_vector(math.erfc), None),
    "lgamma": (_vector(math.lgamma), None),
    "tgamma": (_vector(math.gamma), None),
    "fabs": (np.abs, None),
    "floor": (np.floor, None),
    "ceil": (np.ceil, None),
    "trunc": (np.trunc, None),
    "rint": (np.rint, None),
    "nearbyint": (np.rint, None),
    "round": (_round_half_away, None),
    "fmin": (np.fmin, None),
    "fmax": (np.fmax, None),
    "fmod": (np.fmod, None),
    "fdim": (lambda x, y: np.where(x > y, x - y, 0 * x), None),
    "copysign": (np.copysign, None),
    "fma": (lambda a, b, c: a * b + c, None),
}

#: integer functions: (function, operand dtype)
INTEGER: dict[str, tuple[Callable[..., Any], Any]] = {
    "popc": (popc_bits, np.int32),
    "popcll": (popc_bits, np.int64),
    "clz": (clz_bits, np.int32),
    "clzll": (clz_bits, np.int64),
    "ffs": (ffs_bits, np.int32),
    "ffsll": (ffs_bits, np.int64),
    "brev": (brev_bits, np.uint32),
    "brevll": (brev_bits, np.uint64),
    "abs": (np.abs, np.int32),
    "llabs": (np.abs, np.int64),
    "min": (np.minimum, np.int32),
    "max": (np.maximum, np.int32),
    "umin": (np.minimum, np.uint32),
    "umax": (np.maximum, np.uint32),
    "llmin": (np.minimum, np.int64),
    "llmax": (np.maximum, np.int64),
    "ullmin": (np.minimum, np.uint64),
    "ullmax": (np.maximum, np.uint64),
}


def _typed(f: Callable[..., Any], dtype: Any, result: Any = None) -> Callable[..., Any]:
    """``f`` on its arguments converted to ``dtype``, its result as ``result`` (the same)."""
    out_type = np.dtype(result or dtype)

    def call(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            v = f(*(np.asarray(a).astype(dtype) for a in args))
            v = np.asarray(v).astype(out_type)
        return v if v.ndim else out_type.type(v)

    return call


def _register() -> None:
    for name, (f, kind) in FLOAT.items():
        for suffix, dtype in (("", np.float64), ("f", np.float32)):
            placeholder = getattr(device.libdevice, name + suffix)
            BUILDERS[placeholder] = builder(_typed(f, dtype), kind)
            if kind in TRANSCENDENTAL:
                TRANSCENDENTAL.add(placeholder)
    for name, (f, dtype) in INTEGER.items():
        result = np.int32 if f in (popc_bits, clz_bits, ffs_bits) else dtype
        BUILDERS[getattr(device.libdevice, name)] = builder(_typed(f, dtype, result))


_register()
