"""``cuda.fp16.*``: numba-cuda's half-precision intrinsics, lane by lane. Each operand is taken
as float16 and each result rounded once to float16 (computed in float64, whose 53 bits make
that one rounding exact for +, -, *, / and fma, as the GPU's HADD/HMUL/HFMA round); the
comparisons give booleans."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.intrinsics.elementwise import TRANSCENDENTAL, builder
from warpscope.emulator.intrinsics.registry import BUILDERS

_ARITHMETIC: dict[str, Callable[..., Any]] = {
    "hadd": np.add,
    "hsub": np.subtract,
    "hmul": np.multiply,
    "hdiv": np.divide,
    "hneg": np.negative,
    "habs": np.abs,
    "hfma": lambda a, b, c: a * b + c,
    "hmax": np.fmax,
    "hmin": np.fmin,
    "hfloor": np.floor,
    "hceil": np.ceil,
    "htrunc": np.trunc,
    "hrint": np.rint,
}
_MATH: dict[str, Callable[..., Any]] = {
    "hsin": np.sin,
    "hcos": np.cos,
    "hlog": np.log,
    "hlog10": np.log10,
    "hlog2": np.log2,
    "hexp": np.exp,
    "hexp10": lambda x: np.power(10.0, x),
    "hexp2": np.exp2,
    "hsqrt": np.sqrt,
    "hrsqrt": lambda x: 1.0 / np.sqrt(x),
    "hrcp": lambda x: 1.0 / x,
}
_COMPARE: dict[str, Callable[..., Any]] = {
    "heq": np.equal,
    "hne": np.not_equal,
    "hge": np.greater_equal,
    "hgt": np.greater,
    "hle": np.less_equal,
    "hlt": np.less,
}


def _half(f: Callable[..., Any], result: Any) -> Callable[..., Any]:
    """``f`` on the operands as float16 (widened to float64), its result as ``result``."""
    out = np.dtype(result)

    def call(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            v = np.asarray(f(*(np.asarray(a).astype(np.float16).astype(np.float64) for a in args)))
            v = v.astype(out)
        return v if v.ndim else out.type(v)

    return call


def _register() -> None:
    for table, result in ((_ARITHMETIC, np.float16), (_MATH, np.float16), (_COMPARE, np.bool_)):
        for name, f in table.items():
            placeholder = getattr(device.fp16, name)
            BUILDERS[placeholder] = builder(_half(f, result))
            if table is _MATH:
                TRANSCENDENTAL.add(placeholder)


_register()
