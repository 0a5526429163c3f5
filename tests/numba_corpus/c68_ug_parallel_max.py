# SPDX-FileCopyrightText: Copyright (c) 2012, Anaconda, Inc. and others. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba user guide, "Example: parallel maximum" (max_reduce_kernel: float32 shared array of
1024, -np.inf padding, builtin max in a halving tree, a final max on the host).
Source: numba/numba numba/cuda/tests/doc_examples/test_parallel_max.py (commit ef41e8d), BSD-2-Clause.
Harness only: N 100000 -> 5000, main() returns the partial maxima."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def max_reduce_kernel(input_array, output_array):
    """Find the maximum value in each block and store in output array."""
    # Shared memory to store partial results within a block
    temp = cuda.shared.array(shape=1024, dtype=np.float32)

    # Thread index within the block
    tx = cuda.threadIdx.x
    # Global thread index
    tid = cuda.grid(1)
    # Block size
    block_size = cuda.blockDim.x

    # Initialize shared memory
    if tid < len(input_array):
        temp[tx] = input_array[tid]
    else:
        temp[tx] = -np.inf  # Use negative infinity for non-data elements

    cuda.syncthreads()

    # Reduction in shared memory
    s = block_size // 2
    while s > 0:
        if tx < s and tid < len(input_array):
            temp[tx] = max(temp[tx], temp[tx + s])
        cuda.syncthreads()
        s //= 2

    # Write the result for this block to global memory
    if tx == 0:
        output_array[cuda.blockIdx.x] = temp[0]


def find_array_max(input_array):
    """Find the maximum value in an array using CUDA."""
    d_input = cuda.to_device(input_array)
    threads_per_block = 1024
    blocks_per_grid = math.ceil(len(input_array) / threads_per_block)
    d_output = cuda.device_array(blocks_per_grid, dtype=np.float32)
    max_reduce_kernel[blocks_per_grid, threads_per_block](d_input, d_output)
    partial_results = d_output.copy_to_host()
    return np.max(partial_results), partial_results


def main():
    np.random.seed(42)
    N = 5000
    test_array = np.random.uniform(-1000, 1000, N).astype(np.float32)
    gpu_max, partial = find_array_max(test_array)
    return {"max": gpu_max, "partial": partial}
