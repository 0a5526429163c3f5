# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Example: shared memory reduction" (array_sum: int32 shared
array sized from a closure-free module value, interleaved tree in a while loop).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_reduction.py, BSD-2-Clause.
Harness only: cupy arrays -> cuda.to_device, main() instead of the unittest method;
``from numba.cuda.types import int32`` (numba-cuda's re-export) -> ``from numba import int32``."""

import numpy as np
from numba import int32

from warpscope.emulator import cuda

# generate data
a = cuda.to_device(np.arange(1024))
nelem = len(a)


@cuda.jit
def array_sum(data):
    tid = cuda.threadIdx.x
    size = len(data)
    if tid < size:
        i = cuda.grid(1)

        # Declare an array in shared memory
        shr = cuda.shared.array(nelem, int32)
        shr[tid] = data[i]

        # Ensure writes to shared memory are visible
        # to all threads before reducing
        cuda.syncthreads()

        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                # Stride by `s` and add
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()

        # After the loop, the zeroth  element contains the sum
        if tid == 0:
            data[tid] = shr[tid]


def main():
    array_sum[1, nelem](a)
    return {"a": a.copy_to_host()}
