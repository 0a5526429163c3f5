# SPDX-FileCopyrightText: Copyright (c) 2024, ENCCS and individual contributors.
# SPDX-License-Identifier: MIT
"""ENCCS "High Performance Data Analytics in Python" lesson: matmul_sm (float64 shared tiles,
indexed [tx, ty], with numba.float64 as the dtype).
Source: ENCCS/hpda-python content/example/matmul_sm_solution.py (commit 10ea4ac), MIT (LICENSE.code).
Adapted: ``numba.cuda.X`` written ``cuda.X`` (the corpus's one import); main() added."""

import numba
import numpy as np

from warpscope.emulator import cuda

TPB = 16


@cuda.jit
def matmul_sm(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=numba.float64)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=numba.float64)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = 0.0
    for i in range(bpg):
        # Preload data into shared memory
        sA[tx, ty] = 0
        sB[tx, ty] = 0
        if x < A.shape[0] and (ty + i * TPB) < A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TPB]
        if y < B.shape[1] and (tx + i * TPB) < B.shape[0]:
            sB[tx, ty] = B[tx + i * TPB, y]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]

        # Wait until all threads finish computing
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp


def main():
    rng = np.random.default_rng(5)
    N = 48
    A = rng.random((N, N))
    B = rng.random((N, N))
    C = np.zeros((N, N))
    matmul_sm[(3, 3), (TPB, TPB)](A, B, C)
    return {"C": C}
