# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Example: vector addition" (len() of an array, forall and an
explicit launch with a tail block).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_vecadd.py, BSD-2-Clause.
Harness only: cupy -> cuda.to_device / device_array, N 100000 -> 5000."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def f(a, b, c):
    # like threadIdx.x + (blockIdx.x * blockDim.x)
    tid = cuda.grid(1)
    size = len(c)

    if tid < size:
        c[tid] = a[tid] + b[tid]


def main():
    np.random.seed(1)
    N = 5000
    a = cuda.to_device(np.random.random(N))
    b = cuda.to_device(np.random.random(N))
    c = cuda.device_array(a.shape)
    f.forall(len(a))(a, b, c)
    first = c.copy_to_host()
    c2 = cuda.device_array(a.shape)
    nthreads = 256
    nblocks = (len(a) // nthreads) + 1
    f[nblocks, nthreads](a, b, c2)
    return {"forall": first, "launch": c2.copy_to_host()}
