"""``pow`` and ``**`` on integers and floats of both widths."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def powers(out, f32, n):
    i = cuda.grid(1)
    if i < f32.size:
        x = f32[i]
        out[i, 0] = pow(x, 2)
        out[i, 1] = pow(x, 0.5)
        out[i, 2] = x**3
        out[i, 3] = pow(n[i], 3)
        out[i, 4] = math.pow(x, 1.5)
        out[i, 5] = n[i] ** 2 + 2 ** n[i]


def main():
    f32 = np.linspace(0.5, 4.0, 20).astype(np.float32)
    n = np.arange(20, dtype=np.int32)
    out = np.zeros((20, 6), dtype=np.float64)
    powers[1, 32](out, f32, n)
    return {"out": out}
