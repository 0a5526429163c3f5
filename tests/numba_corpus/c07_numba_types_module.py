"""``numba.types`` objects: ``types.int32`` in a signature and a cast, ``numba.float64`` arrays."""

import numba
import numpy as np
from numba import types

from warpscope.emulator import cuda


@cuda.jit(types.void(types.int32[:], types.int32[:], types.float64[:]))
def kernel(out, src, fout):
    i = cuda.grid(1)
    if i < src.size:
        out[i] = types.int32(src[i] * src[i])
        buf = cuda.local.array(3, numba.float64)
        buf[0] = src[i]
        buf[1] = buf[0] / 7
        buf[2] = buf[1] * buf[1]
        fout[i] = buf[2]


def main():
    src = np.array([3, -4, 46341, 100000, 7], dtype=np.int32)
    out = np.zeros_like(src)
    fout = np.zeros(src.size, dtype=np.float64)
    kernel[1, 32](out, src, fout)
    return {"out": out, "fout": fout}
