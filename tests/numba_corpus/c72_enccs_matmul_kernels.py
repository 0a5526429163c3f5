# SPDX-FileCopyrightText: Copyright (c) 2024, ENCCS and individual contributors.
# SPDX-License-Identifier: MIT
"""ENCCS "High Performance Data Analytics in Python" lesson: matmul_kernel (cuda.grid(2)) and
matmul_kernel2 (indices from threadIdx/blockIdx/blockDim), float64.
Source: ENCCS/hpda-python content/example/matmul_kernel.py (commit 80c1353), MIT (LICENSE.code).
Adapted: ``numba.cuda.X`` written ``cuda.X`` (the corpus's one import); main() added."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def matmul_kernel(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@cuda.jit
def matmul_kernel2(A, B, C):
    n = A.shape[0]  # we assume it is a square matrix
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    bw = cuda.blockDim.x
    bh = cuda.blockDim.y

    i = tx + bx * bw
    j = ty + by * bh

    if i < n and j < n:
        tmp = 0.0
        for k in range(n):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


def main():
    rng = np.random.default_rng(3)
    N = 40
    A = rng.random((N, N))
    B = rng.random((N, N))
    C1 = np.zeros((N, N))
    C2 = np.zeros((N, N))
    matmul_kernel[(3, 3), (16, 16)](A, B, C1)
    matmul_kernel2[(3, 3), (16, 16)](A, B, C2)
    return {"C1": C1, "C2": C2}
