# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Example: CPU/GPU compatibility" (a @numba.jit function using
math.pi reused from a kernel on int64 arrays into float64 results, forall launch).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_cpu_gpu_compat.py, BSD-2-Clause.
Harness only: cupy arrays -> cuda.to_device, main() instead of the unittest method."""

from math import pi

import numba
import numpy as np

from warpscope.emulator import cuda


@numba.jit
def business_logic(x, y, z):
    return 4 * z * (2 * x - (4 * y) / 2 * pi)


@cuda.jit
def f(res, xarr, yarr, zarr):
    tid = cuda.grid(1)
    if tid < len(xarr):
        # The function decorated with numba.jit may be directly reused
        res[tid] = business_logic(xarr[tid], yarr[tid], zarr[tid])


def main():
    X = cuda.to_device(np.asarray([1, 10, 234]))
    Y = cuda.to_device(np.asarray([2, 2, 4014]))
    Z = cuda.to_device(np.asarray([3, 14, 2211]))
    results = cuda.to_device(np.asarray([0.0, 0.0, 0.0]))
    f.forall(len(X))(results, X, Y, Z)
    return {"results": results.copy_to_host()}
