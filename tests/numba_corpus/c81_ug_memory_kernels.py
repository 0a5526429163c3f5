# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Memory management" (dynamic shared memory: two dynamic shared
arrays of different types alias; disjoint views of them do not) and "Writing CUDA Kernels"
(increment_by_one with explicit indices and with ``cuda.grid``, increment_a_2D_array with a
``math.ceil`` grid). Sources: NVIDIA/numba-cuda docs/source/user/memory.rst (4b3650a) and
kernels.rst (10a7dea), BSD-2-Clause.
Adapted: the memory examples' ``print`` of the two values written to an output array
(``out``) instead; main() added."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def f(out):
    f32_arr = cuda.shared.array(0, dtype=np.float32)
    i32_arr = cuda.shared.array(0, dtype=np.int32)
    f32_arr[0] = 3.14
    out[0] = f32_arr[0]
    out[1] = i32_arr[0]


@cuda.jit
def f_with_view(out):
    f32_arr = cuda.shared.array(0, dtype=np.float32)
    i32_arr = cuda.shared.array(0, dtype=np.int32)[1:]  # 1 int32 = 4 bytes
    f32_arr[0] = 3.14
    i32_arr[0] = 1
    out[0] = f32_arr[0]
    out[1] = i32_arr[0]


@cuda.jit
def increment_by_one(an_array):
    # Thread id in a 1D block
    tx = cuda.threadIdx.x
    # Block id in a 1D grid
    ty = cuda.blockIdx.x
    # Block width, i.e. number of threads per block
    bw = cuda.blockDim.x
    # Compute flattened index inside the array
    pos = tx + ty * bw
    if pos < an_array.size:  # Check array boundaries
        an_array[pos] += 1


@cuda.jit
def increment_by_one_grid(an_array):
    pos = cuda.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1


def main():
    out1 = np.zeros(2, dtype=np.float64)
    f[1, 1, 0, 4](out1)
    out2 = np.zeros(2, dtype=np.float64)
    f_with_view[1, 1, 0, 8](out2)
    an_array = np.arange(1000, dtype=np.float32)
    threadsperblock = 32
    blockspergrid = (an_array.size + (threadsperblock - 1)) // threadsperblock
    increment_by_one[blockspergrid, threadsperblock](an_array)
    increment_by_one_grid[blockspergrid, threadsperblock](an_array)
    grid2 = np.arange(50 * 70, dtype=np.int64).reshape(50, 70)
    threadsperblock2 = (16, 16)
    blockspergrid_x = math.ceil(grid2.shape[0] / threadsperblock2[0])
    blockspergrid_y = math.ceil(grid2.shape[1] / threadsperblock2[1])
    blockspergrid2 = (blockspergrid_x, blockspergrid_y)
    increment_a_2D_array[blockspergrid2, threadsperblock2](grid2)
    return {"aliased": out1, "disjoint": out2, "inc": an_array, "inc2d": grid2}
