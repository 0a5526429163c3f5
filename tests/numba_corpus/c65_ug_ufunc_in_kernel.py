# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Calling a NumPy UFunc" (np.sin(x, r) on whole arrays from a
one-thread kernel).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_ufunc.py, BSD-2-Clause.
Harness only: main() returns r."""

import numpy as np

from warpscope.emulator import cuda


# A kernel calling a ufunc (sin, in this case)
@cuda.jit
def f(r, x):
    # Compute sin(x) with result written to r
    np.sin(x, r)


def main():
    # Declare input and output arrays
    x = np.arange(10, dtype=np.float32) - 5
    r = np.zeros_like(x)

    # Launch kernel that calls the ufunc
    f[1, 1](r, x)
    return {"r": r}
