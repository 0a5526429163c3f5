"""float32 stays float32 with float32 operands; a float64 literal widens the expression."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out32, out64, a):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        acc = np.float32(0)
        for _ in range(100):
            acc += x * np.float32(0.01)
        out32[i, 0] = acc
        out32[i, 1] = x / np.float32(7) * np.float32(7) - x
        out64[i, 0] = x * 0.1
        out64[i, 1] = x / 3
        out64[i, 2] = (x + np.float32(1e-8)) - x


def main():
    a = np.linspace(1, 1000, 40).astype(np.float32)
    out32 = np.zeros((40, 2), dtype=np.float32)
    out64 = np.zeros((40, 3), dtype=np.float64)
    kernel[1, 64](out32, out64, a)
    return {"out32": out32, "out64": out64}
