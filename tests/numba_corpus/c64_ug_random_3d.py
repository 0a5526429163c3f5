# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Random number generation: 3D grid" (cuda.grid(3), cuda.gridsize(3),
strided triple loop, one xoroshiro128p state per linearised thread).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_random.py, BSD-2-Clause.
Harness only: array 701x900x719 -> 21x30x19 and grid 16^3 -> 2^3 blocks of 8^3 -> 4^3."""

import numpy as np

from warpscope.emulator import cuda
from warpscope.emulator.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit
def random_3d(arr, rng_states):
    # Per-dimension thread indices and strides
    startx, starty, startz = cuda.grid(3)
    stridex, stridey, stridez = cuda.gridsize(3)

    # Linearized thread index
    tid = (startz * stridey * stridex) + (starty * stridex) + startx

    # Use strided loops over the array to assign a random value to each entry
    for i in range(startz, arr.shape[0], stridez):
        for j in range(starty, arr.shape[1], stridey):
            for k in range(startx, arr.shape[2], stridex):
                arr[i, j, k] = xoroshiro128p_uniform_float32(rng_states, tid)


def main():
    X, Y, Z = 21, 30, 19
    bx, by, bz = 4, 4, 4
    gx, gy, gz = 2, 2, 2
    nthreads = bx * by * bz * gx * gy * gz
    rng_states = create_xoroshiro128p_states(nthreads, seed=1)
    arr = cuda.to_device(np.zeros((X, Y, Z), dtype=np.float32))
    random_3d[(gx, gy, gz), (bx, by, bz)](arr, rng_states)
    return {"arr": arr.copy_to_host()}
