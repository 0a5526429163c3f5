"""numba's integer rules: small integers widen to 64 bits in arithmetic, so products do not wrap."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out, a, b, u):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] * b[i]
        out[i, 1] = cuda.clz(a[i] + 1)
        out[i, 2] = ~u[i]
        out[i, 3] = u[i] - np.uint32(5)
        out[i, 4] = (a[i] << 20) >> 20
        out[i, 5] = a[i] // -3 + a[i] % -3


def main():
    a = np.array([70000, -70000, 3, 46341, -1, 1 << 20], dtype=np.int32)
    b = np.array([70000, 70000, -3, 46341, 2, 1 << 20], dtype=np.int32)
    u = np.array([0, 1, 4, 5, 0xFFFFFFFF, 12345], dtype=np.uint32)
    out = np.zeros((a.size, 6), dtype=np.int64)
    kernel[1, 32](out, a, b, u)
    return {"out": out}
