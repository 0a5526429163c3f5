# SPDX-FileCopyrightText: Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba-cuda user guide, "CUDA Ufuncs and Generalized Ufuncs": the discriminant ufunc with a
float32 and a float64 signature (given float32 arrays, then float64 ones, then a device array),
and a ufunc calling a device function declared ``inline="always"``.
Source: NVIDIA/numba-cuda docs/source/user/ufunc.rst (5855b10), BSD-2-Clause.
Adapted: main() added (N = 10000 as in the guide, seeded inputs; the results returned, not
printed); the device-function ufunc given inputs."""

import math

import numpy as np
from numba import vectorize

from warpscope.emulator import cuda


@vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"], target="cuda")
def cu_discriminant(a, b, c):
    return math.sqrt(b**2 - 4 * a * c)


# define a device function
@cuda.jit("float32(float32, float32, float32)", device=True, inline="always")
def cu_device_fn(x, y, z):
    return x**y / z


# define a ufunc that calls our device function
@vectorize(["float32(float32, float32, float32)"], target="cuda")
def cu_ufunc(x, y, z):
    return cu_device_fn(x, y, z)


def main():
    rng = np.random.default_rng(80)
    N = 10000
    dtype = np.float32
    A = np.array(rng.random(N), dtype=dtype)
    B = np.array(rng.random(N) + 10, dtype=dtype)
    C = np.array(rng.random(N), dtype=dtype)
    D = cu_discriminant(A, B, C)
    D64 = cu_discriminant(A.astype(np.float64), B.astype(np.float64), C.astype(np.float64))
    dD = cu_discriminant(cuda.to_device(A), cuda.to_device(B), cuda.to_device(C))
    x = np.array(rng.random(100) + 1, dtype=dtype)
    return {"D": D, "D64": D64, "dD": dD.copy_to_host(), "u": cu_ufunc(x, x, x)}
