"""Casts with numpy and numba type names inside a kernel wrap and round as numba does."""

import numpy as np
from numba import float32, int8, int32, uint8, uint32

from warpscope.emulator import cuda


@cuda.jit
def casts(ints, floats, src):
    i = cuda.grid(1)
    if i < src.size:
        x = src[i]
        ints[i, 0] = np.uint32(x)
        ints[i, 1] = int32(x * 1000003)
        ints[i, 2] = uint8(x)
        ints[i, 3] = int8(x)
        ints[i, 4] = cuda.clz(uint32(x))
        ints[i, 5] = cuda.popc(np.int16(x))
        floats[i, 0] = float32(x) / float32(3)
        floats[i, 1] = np.float32(x) / 3
        floats[i, 2] = float(x) / 3


def main():
    src = np.array([1, 200, -5, 70000, 3000000000, -123456789012], dtype=np.int64)
    ints = np.zeros((src.size, 6), dtype=np.int64)
    floats = np.zeros((src.size, 3), dtype=np.float64)
    casts[1, 32](ints, floats, src)
    return {"ints": ints, "floats": floats}
