# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Supported Atomic Operations" examples: max_example (cuda.atomic.max
on result[0]) and max_example_3d (a tuple index into a 3D result).
Source: NVIDIA/numba-cuda docs/source/user/intrinsics.rst, BSD-2-Clause.
Harness only: seeded inputs, main() returns both results."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def max_example(result, values):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.threadIdx.x
    bid = cuda.blockIdx.x
    bdim = cuda.blockDim.x
    i = (bid * bdim) + tid
    cuda.atomic.max(result, 0, values[i])


@cuda.jit
def max_example_3d(result, values):
    """
    Find the maximum value in values and store in result[0].
    Both result and values are 3d arrays.
    """
    i, j, k = cuda.grid(3)
    # Atomically store to result[0,1,2] from values[i, j, k]
    cuda.atomic.max(result, (0, 1, 2), values[i, j, k])


def main():
    rng = np.random.default_rng(7)
    arr = rng.random(16384)
    result = np.zeros(1, dtype=np.float64)
    max_example[256, 64](result, arr)
    arr3 = rng.random(1000).reshape(10, 10, 10)
    result3 = np.zeros((3, 3, 3), dtype=np.float64)
    max_example_3d[(2, 2, 2), (5, 5, 5)](result3, arr3)
    return {"result": result, "result3": result3}
