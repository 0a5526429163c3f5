# SPDX-FileCopyrightText: Copyright (c) 2012, Anaconda, Inc. and others. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba's examples/laplace2d/laplace2d-numba-cuda-improve.py: Jacobi relaxation whose error
is max-reduced per block in shared memory through an inline device function compiled from
``f8(f8, f8)``; ``from numba import *`` supplies the types.
Source: numba/numba examples/laplace2d/laplace2d-numba-cuda-improve.py (commit 223e332), BSD-2-Clause.
Harness only: 512x512 -> 64x64, iter_max 1000 -> 40, timing prints removed, the old
``derror_grid.to_host(stream)`` written ``derror_grid.copy_to_host(error_grid, stream)``,
main() returns the arrays and the error history."""

import numpy as np
from numba import *  # noqa: F403

from warpscope.emulator import cuda

# NOTE: CUDA kernel does not return any value

tpb = 16


@cuda.jit(f8(f8, f8), device=True, inline=True)  # noqa: F405
def get_max(a, b):
    if a > b:
        return a
    else:
        return b


@cuda.jit(void(f8[:, :], f8[:, :], f8[:, :]))  # noqa: F405
def jacobi_relax_core(A, Anew, error):
    err_sm = cuda.shared.array((tpb, tpb), dtype=f8)  # noqa: F405

    ty = cuda.threadIdx.x
    tx = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    n = A.shape[0]
    m = A.shape[1]

    i, j = cuda.grid(2)

    err_sm[ty, tx] = 0
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * (A[j, i + 1] + A[j, i - 1] + A[j - 1, i] + A[j + 1, i])
        err_sm[ty, tx] = Anew[j, i] - A[j, i]

    cuda.syncthreads()

    # max-reduce err_sm vertically
    t = tpb // 2
    while t > 0:
        if ty < t:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty + t, tx])
        t //= 2
        cuda.syncthreads()

    # max-reduce err_sm horizontally
    t = tpb // 2
    while t > 0:
        if tx < t and ty == 0:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty, tx + t])
        t //= 2
        cuda.syncthreads()

    if tx == 0 and ty == 0:
        error[by, bx] = err_sm[0, 0]


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
    blockdim = (tpb, tpb)
    griddim = (NN // blockdim[0], NM // blockdim[1])
    error_grid = np.zeros(griddim)
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
