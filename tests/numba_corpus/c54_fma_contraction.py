"""Multiply-add contracted to one FMA in float32 and float64, in expressions and ``+=``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def residuals(out32, out64, a32, a64):
    i = cuda.grid(1)
    if i < a32.size:
        x = a32[i]
        y = a64[i]
        out32[i, 0] = x / np.float32(3) * np.float32(3) - x
        out32[i, 1] = x - x / np.float32(3) * np.float32(3)
        acc = -x
        acc += x / np.float32(11) * np.float32(11)
        out32[i, 2] = acc
        out64[i, 0] = y / 3.0 * 3.0 - y
        out64[i, 1] = y - y / 7.0 * 7.0
        d = -y
        d += y / 11.0 * 11.0
        out64[i, 2] = d


def main():
    a64 = np.linspace(1.1, 977.3, 50)
    a32 = a64.astype(np.float32)
    out32 = np.zeros((50, 3), dtype=np.float32)
    out64 = np.zeros((50, 3))
    residuals[2, 32](out32, out64, a32, a64)
    return {"out32": out32, "out64": out64}
