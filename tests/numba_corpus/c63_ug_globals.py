# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "Global variables": a closure's scalar and host array are frozen
at the first compilation (changing them later has no effect), while a global device array is
captured by pointer (an in-place update is seen by the next launch).
Source: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_globals.py, BSD-2-Clause.
Harness only: cupy -> numpy / cuda.to_device; the doc's ``cp.asarray(5)`` for d_totals (a 0-d
array, which the kernel cannot index) is ``np.zeros(5)`` as its expected values show."""

import numpy as np

from warpscope.emulator import cuda


def constant_capture():
    TAX_RATE = 0.08
    PRICES = np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float64)

    @cuda.jit
    def compute_totals(quantities, totals):
        i = cuda.grid(1)
        if i < totals.size:
            totals[i] = quantities[i] * PRICES[i] * (1 + TAX_RATE)

    d_quantities = cuda.to_device(np.array([1, 2, 3, 4, 5], dtype=np.float64))
    d_totals = cuda.to_device(np.zeros(5, dtype=np.float64))

    # First kernel call - compiles and captures values
    compute_totals[1, 32](d_quantities, d_totals)
    first = d_totals.copy_to_host()

    # These modifications have no effect on subsequent kernel calls
    TAX_RATE = 0.10
    PRICES[:] = [20.0, 50.0, 10.0, 30.0, 60.0]

    # Second kernel call still uses the original values
    compute_totals[1, 32](d_quantities, d_totals)
    return first, d_totals.copy_to_host()


# Global device array - pointer is captured, not data
PRICES = cuda.to_device(np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float32))


@cuda.jit
def compute_totals(quantities, totals):
    i = cuda.grid(1)
    if i < totals.size:
        totals[i] = quantities[i] * PRICES[i]


def device_array_capture():
    d_quantities = cuda.to_device(np.array([1.0, 1.0, 1.0, 1.0, 1.0], dtype=np.float32))
    d_totals = cuda.to_device(np.zeros(5, dtype=np.float32))

    # First kernel call
    compute_totals[1, 32](d_quantities, d_totals)
    first = d_totals.copy_to_host()

    # Mutate the device array in-place
    PRICES[:] = np.array([20.0, 50.0, 10.0, 30.0, 60.0], dtype=np.float32)

    # Second kernel call sees the updated values
    compute_totals[1, 32](d_quantities, d_totals)
    return first, d_totals.copy_to_host()


def main():
    c1, c2 = constant_capture()
    d1, d2 = device_array_capture()
    return {"const_first": c1, "const_second": c2, "dev_first": d1, "dev_second": d2}
