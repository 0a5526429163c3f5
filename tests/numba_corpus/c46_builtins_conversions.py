"""``min``, ``max``, ``abs``, ``round``, ``int`` and ``float`` on mixed types; float to int truncates."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(ints, floats, f, n):
    i = cuda.grid(1)
    if i < f.size:
        ints[i, 0] = int(f[i])
        ints[i, 1] = round(f[i])
        ints[i, 2] = abs(n[i])
        ints[i, 3] = min(n[i], 3, i)
        ints[i, 4] = max(n[i], -n[i])
        floats[i, 0] = float(n[i]) / 4
        floats[i, 1] = min(f[i], 0.5)
        floats[i, 2] = abs(f[i]) + max(f[i], n[i])


def main():
    f = np.linspace(-3.5, 3.5, 29)
    n = np.arange(-14, 15, dtype=np.int32)
    ints = np.zeros((29, 5), dtype=np.int64)
    floats = np.zeros((29, 3))
    kernel[1, 32](ints, floats, f, n)
    return {"ints": ints, "floats": floats}
