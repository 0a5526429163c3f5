"""A 2-D local array, ``len`` of arrays and of shapes, and ``.ndim``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out, m):
    i = cuda.grid(1)
    if i < len(m):
        acc = cuda.local.array((2, 3), np.int64)
        for r in range(2):
            for c in range(3):
                acc[r, c] = m[i, c] * (r + 1)
        s = 0
        for r in range(2):
            for c in range(3):
                s += acc[r, c]
        out[i] = s + len(m.shape) * 1000 + m.ndim


def main():
    m = np.arange(30, dtype=np.int64).reshape(10, 3)
    out = np.zeros(10, dtype=np.int64)
    kernel[1, 32](out, m)
    return {"out": out}
