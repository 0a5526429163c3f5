# SPDX-FileCopyrightText: Copyright (c) 2024, ENCCS and individual contributors.
# SPDX-License-Identifier: MIT
"""ENCCS "High Performance Data Analytics in Python" lesson: math_kernel (math.pow, math.sin)
and math_kernel_devicefunction (a device function reassigning its parameter, math.exp).
Source: ENCCS/hpda-python content/example/math_kernel.py and
math_kernel_devicefunction.py (commit 54b0bf6), MIT (LICENSE.code).
Adapted: ``numba.cuda.X`` written ``cuda.X`` (the corpus's one import); main() added."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def math_kernel(x, y, result):  # numba.cuda.jit does not return result yet
    pos = cuda.grid(1)
    if (pos < x.shape[0]) and (pos < y.shape[0]):
        result[pos] = math.pow(x[pos], 3.0) + 4 * math.sin(y[pos])


@cuda.jit(device=True)
def math_device(a, b):
    a = math.exp(a * b)
    return a


@cuda.jit
def math_kernel_devicefunction(a, b, result):  # cuda.jit does not return result yet
    pos = cuda.grid(1)
    if (pos < a.shape[0]) and (pos < b.shape[0]):
        result[pos] = math_device(a[pos], b[pos])


def main():
    rng = np.random.default_rng(11)
    n = 1000
    x = rng.random(n)
    y = rng.random(n)
    r1 = np.zeros(n)
    math_kernel[(n + 127) // 128, 128](x, y, r1)
    a = rng.random(n).astype(np.float32)
    b = rng.random(n).astype(np.float32)
    r2 = np.zeros(n, dtype=np.float32)
    math_kernel_devicefunction[(n + 127) // 128, 128](a, b, r2)
    return {"r1": r1, "r2": r2}
