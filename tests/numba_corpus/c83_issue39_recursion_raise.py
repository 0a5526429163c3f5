"""Issue 39 (ours): numba-cuda's "Supported Python features" beyond the first corpora — a
self-recursive device function with its signature (the guide's ``fib``), ``raise`` in a
kernel (without ``debug=True`` the raising threads just leave), ``math.modf``/``remainder``,
the ``operator`` module's functions, integer powers with a negative exponent, and functions
defined inside a kernel (numba inlines them; they read the kernel's variables as they are at
the call), Enum/IntEnum members, and an optional argument left None (``alt is None``)."""

import math
import operator
from enum import Enum, IntEnum

import numpy as np

from warpscope.emulator import cuda


@cuda.jit("int64(int64)", device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit("float64(float64, int64)", device=True)
def power_sum(x, k):
    if k == 0:
        return 1.0
    return 1.0 + x * power_sum(x, k - 1)


@cuda.jit
def recursion(out, sums):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fib(i % 18)
        sums[i] = power_sum(0.5, i % 7)


@cuda.jit
def raising(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        raise ValueError("past the data")
    if a[i] < 0:
        raise ValueError("negative")
    out[i] = math.sqrt(a[i])


@cuda.jit
def math_and_operator(x, o, p):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        f, w = math.modf(v)
        o[i, 0] = f
        o[i, 1] = w
        o[i, 2] = math.remainder(v, 2.0)
        o[i, 3] = operator.add(v, 1.5)
        o[i, 4] = operator.truediv(v, 4.0)
        o[i, 5] = operator.neg(v)
        p[i, 0] = operator.mul(i, 3)
        p[i, 1] = operator.floordiv(i - 5, 2)
        p[i, 2] = operator.mod(i - 5, 3)
        p[i, 3] = operator.lt(v, 1.0)
        p[i, 4] = operator.xor(i, 6)
        p[i, 5] = (i - 4) ** -1
        p[i, 6] = (i - 4) ** 3


class Color(IntEnum):
    RED = 1
    GREEN = 2


class Shape(Enum):
    SQUARE = 10
    CIRCLE = 20


@cuda.jit(device=True)
def pick(x, alt=None):
    if alt is None:
        return x
    return alt


@cuda.jit
def enums_and_none(a, b):
    i = cuda.grid(1)
    if i < a.size:
        if i % 2 == 0:
            a[i] = Color.RED
        else:
            a[i] = Color.GREEN + Shape.CIRCLE.value
        s = Shape.SQUARE
        b[i] = pick(i) + (1 if s == Shape.SQUARE else 0) + pick(i, 100)


@cuda.jit
def inner_functions(a, n, out):
    i = cuda.grid(1)
    scale = 2.0

    def f(x):
        return x * scale + n

    def g(x):
        y = f(x) + 1
        return y

    if i < a.size:
        scale = 3.0
        out[i] = g(a[i]) - f(i)


def main():
    out = np.zeros(40, np.int64)
    sums = np.zeros(40)
    recursion[2, 32](out, sums)
    a = np.array([4.0, -1.0, 9.0, 2.0, -3.0, 16.0, 0.25, 1.0, 5.0, 7.0])
    r = np.full(a.size, -7.0)
    raising[1, 32](a, r)
    x = np.linspace(-3.75, 4.25, 12)
    o = np.zeros((12, 6))
    p = np.zeros((12, 7), np.int64)
    math_and_operator[1, 16](x, o, p)
    ea = np.zeros(6, np.int64)
    eb = np.zeros(6, np.int64)
    enums_and_none[1, 8](ea, eb)
    inner = np.zeros(10)
    inner_functions[1, 16](np.linspace(0.5, 5.0, 10), 7, inner)
    return {
        "fib": out,
        "power_sum": sums,
        "raised": r,
        "math_operator": o,
        "int_operator": p,
        "inner": inner,
        "enums": ea,
        "optional_none": eb,
    }
