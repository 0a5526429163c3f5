# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Matrix multiplication" (matmul, and fast_matmul with float32
shared tiles; int64 x float64 inputs, square and non-square).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py, BSD-2-Clause.
Harness only: cupy -> cuda.to_device, main() returns the three products;
``from numba.cuda import float32`` (numba-cuda's re-export) -> ``from numba import float32``."""

import math

import numpy as np
from numba import float32

from warpscope.emulator import cuda


@cuda.jit
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


# Controls threads per block and shared memory usage.
# The computation will be done on blocks of TPBxTPB elements.
# TPB should not be larger than 32 in this example
TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    """
    Perform matrix multiplication of C = A * B using CUDA shared memory.

    Reference: https://stackoverflow.com/a/64198479/13697228 by @RobertCrovella
    """
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = float32(0.0)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def main():
    out = {}
    x_h = np.arange(16).reshape([4, 4])
    y_h = np.ones([4, 4])
    z_h = np.zeros([4, 4])
    x_d, y_d, z_d = cuda.to_device(x_h), cuda.to_device(y_h), cuda.to_device(z_h)
    threadsperblock = (16, 16)
    blockspergrid_x = math.ceil(z_h.shape[0] / threadsperblock[0])
    blockspergrid_y = math.ceil(z_h.shape[1] / threadsperblock[1])
    blockspergrid = (blockspergrid_x, blockspergrid_y)
    matmul[blockspergrid, threadsperblock](x_d, y_d, z_d)
    out["matmul"] = z_d.copy_to_host()

    z_d = cuda.to_device(np.zeros([4, 4]))
    threadsperblock = (TPB, TPB)
    fast_matmul[blockspergrid, threadsperblock](x_d, y_d, z_d)
    out["fast_square"] = z_d.copy_to_host()

    x_h = np.arange(115).reshape([5, 23])
    y_h = np.ones([23, 7])
    z_h = np.zeros([5, 7])
    x_d, y_d, z_d = cuda.to_device(x_h), cuda.to_device(y_h), cuda.to_device(z_h)
    threadsperblock = (TPB, TPB)
    grid_y_max = max(x_h.shape[0], y_h.shape[0])
    grid_x_max = max(x_h.shape[1], y_h.shape[1])
    blockspergrid_x = math.ceil(grid_x_max / threadsperblock[0])
    blockspergrid_y = math.ceil(grid_y_max / threadsperblock[1])
    blockspergrid = (blockspergrid_x, blockspergrid_y)
    fast_matmul[blockspergrid, threadsperblock](x_d, y_d, z_d)
    out["fast_nonsquare"] = z_d.copy_to_host()
    return out
