"""A device function's signature casts its arguments and its return value (int32 wraps)."""

import numpy as np
from numba import float32, int32, int64, void

from warpscope.emulator import cuda


@cuda.jit(int32(int32), device=True)
def triple(x):
    return x * 3


@cuda.jit(float32(float32, float32), device=True)
def mix(a, b):
    return a * 0.1 + b


@cuda.jit(void(int64[:], float32[:], int64[:]))
def kernel(out, fout, src):
    i = cuda.grid(1)
    if i < src.size:
        out[i] = triple(src[i])
        fout[i] = mix(src[i], 0.5)


def main():
    src = np.array([1, 2, 1 << 30, 1 << 29, -7, 123456789], dtype=np.int64)
    out = np.zeros_like(src)
    fout = np.zeros(src.size, dtype=np.float32)
    kernel[1, 32](out, fout, src)
    return {"out": out, "fout": fout}
