# SPDX-FileCopyrightText: Copyright (c) 2012, Anaconda, Inc. and others. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba's examples/laplace2d/laplace2d-numba-cuda-smem.py: Jacobi relaxation with a 34x34
float64 shared tile and halo loads, eagerly compiled from a signature without a return type
(``"(f8[:,:], f8[:,:], f8[:,:])"``), launched on a stream, buffers swapped on the host.
Source: numba/numba examples/laplace2d/laplace2d-numba-cuda-smem.py (commit 0ef4f16), BSD-2-Clause.
Harness only: 512x512 -> 64x64, iter_max 1000 -> 40, timing prints removed, the old
``derror_grid.to_host(stream)`` written ``derror_grid.copy_to_host(error_grid, stream)``,
main() returns the arrays and the error history."""

import numpy as np
from numba import f8

from warpscope.emulator import cuda

# NOTE: CUDA kernel does not return any value


@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    smem = cuda.shared.array(shape=(32 + 2, 32 + 2), dtype=f8)
    n = A.shape[0]
    m = A.shape[1]

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y

    j = ty + cuda.blockIdx.y * cuda.blockDim.y
    i = tx + cuda.blockIdx.x * cuda.blockDim.x

    sy = ty + 1
    sx = tx + 1

    smem[sy, sx] = A[j, i]
    if tx == 0 and i >= 1:
        smem[sy, 0] = A[j, i - 1]

    if ty == 0 and j < m - 1:
        smem[0, sx] = A[j - 1, i]

    if tx == 31 and j >= 1:
        smem[sy, 33] = A[j, i + 1]

    if ty == 31 and j < n - 1:
        smem[33, sx] = A[j + 1, i]

    cuda.syncthreads()  # ensure smem is visible by all threads in the block

    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * (smem[sy, sx + 1] + smem[sy, sx - 1] + smem[sy - 1, sx] + smem[sy + 1, sx])
        error[j, i] = Anew[j, i] - A[j, i]


def main():
    NN = 64
    NM = 64
    A = np.zeros((NN, NM), dtype=np.float64)
    Anew = np.zeros((NN, NM), dtype=np.float64)
    n = NN
    iter_max = 40
    tol = 1.0e-6
    error = 1.0
    for j in range(n):
        A[j, 0] = 1.0
        Anew[j, 0] = 1.0
    iter = 0
    blockdim = (32, 32)
    griddim = (NN // blockdim[0], NM // blockdim[1])
    error_grid = np.zeros_like(A)
    stream = cuda.stream()
    dA = cuda.to_device(A, stream)  # to device and don't come back
    dAnew = cuda.to_device(Anew, stream)  # to device and don't come back
    derror_grid = cuda.to_device(error_grid, stream)
    errors = []
    while error > tol and iter < iter_max:
        assert error_grid.dtype == np.float64
        jacobi_relax_core[griddim, blockdim, stream](dA, dAnew, derror_grid)
        derror_grid.copy_to_host(error_grid, stream)
        # error_grid is available on host
        stream.synchronize()
        error = np.abs(error_grid).max()
        errors.append(error)
        # swap dA and dAnew
        tmp = dA
        dA = dAnew
        dAnew = tmp
        iter += 1
    return {"A": dA.copy_to_host(), "Anew": dAnew.copy_to_host(), "errors": np.array(errors)}
