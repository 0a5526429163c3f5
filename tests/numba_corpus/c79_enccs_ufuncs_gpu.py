# SPDX-FileCopyrightText: Copyright (c) 2024, ENCCS and individual contributors.
# SPDX-License-Identifier: MIT
"""ENCCS "High Performance Data Analytics in Python" lesson: GPU ufuncs with
``numba.vectorize(..., target='cuda')`` (a float64 one, one declared float32(float64, float64),
``x**3 + 4*math.sin(y)``) and a generalised ufunc ``numba.guvectorize(..., target='cuda')``
multiplying matrices. Sources: ENCCS/hpda-python content/example/math_numba_gpu.py (1157f69),
vec_numba_gpu.py (8fec562), matmul_numba_gpu.py (80c1353), MIT (LICENSE.code).
Adapted: the two ``func_numba_gpu`` definitions named apart; main() added (the lesson's
inputs at smaller sizes); the matmul's output passed in (numba-cuda copies a host output back
but not in: the kernel accumulates into fresh device memory, zero in a fresh process — a second
call in the same process gave twice the product on the H100, the memory reused)."""

import math

import numba
import numpy as np
from numba import float64

from warpscope.emulator import cuda  # noqa: F401  (the corpus's one import; numba.vectorize is used)


@numba.vectorize(["float64(float64, float64)"], target="cuda")
def func_numba_gpu(a, b):
    return math.pow(a * b, 1.0 / 2) / math.exp(a * b / 1000)


@numba.vectorize([numba.float32(numba.float64, numba.float64)], target="cuda")
def func_numba_gpu32(a, b):
    return math.pow(a * b, 1.0 / 2) / math.exp(a * b / 1000)


@numba.vectorize([float64(float64, float64)], target="cuda")
def f_gpu(x, y):
    return x**3 + 4 * math.sin(y)


@numba.guvectorize(
    [numba.void(numba.float64[:, :], numba.float64[:, :], numba.float64[:, :])],
    "(m,l),(l,n)->(m,n)",
    target="cuda",
)
def matmul_numba_gpu(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            tmp = 0.0
            for k in range(B.shape[0]):
                tmp += A[i, k] * B[k, j]
            C[i, j] += tmp


def main():
    rng = np.random.default_rng(79)
    a = rng.random(2000) * 100
    b = rng.random(2000) * 100
    x = rng.random(1000)
    y = rng.random(1000)
    A = rng.random((3, 24, 16))
    B = rng.random((3, 16, 20))
    C = np.zeros((3, 24, 20))
    matmul_numba_gpu(A, B, C)
    return {
        "func": func_numba_gpu(a, b),
        "func32": func_numba_gpu32(a, b),
        "f": f_gpu(x, y),
        "matmul": C,
    }
