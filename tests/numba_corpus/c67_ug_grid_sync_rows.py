# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Cooperative groups: grid sync" (sequential_rows, eagerly compiled
from a tuple signature with a C-contiguous 2D int32 array, g.sync() per row).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_cg.py, BSD-2-Clause.
Harness only: A 1024x1024 -> 128x128 (4 blocks of 32), the max_cooperative_grid_blocks skip removed."""

import numpy as np
from numba import int32

from warpscope.emulator import cuda

sig = (int32[:, ::1],)


@cuda.jit(sig)
def sequential_rows(M):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()

    rows = M.shape[0]
    cols = M.shape[1]

    for row in range(1, rows):
        opposite = cols - col - 1
        # Each row's elements are one greater than the previous row
        M[row, col] = M[row - 1, opposite] + 1
        # Wait until all threads have written their column element,
        # and that the write is visible to all other threads
        g.sync()


def main():
    A = np.zeros((128, 128), dtype=np.int32)
    blockdim = 32
    griddim = A.shape[1] // blockdim
    sequential_rows[griddim, blockdim](A)
    return {"A": A}
