"""complex128 and complex64 arithmetic, ``abs`` and ``.real``/``.imag``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out, z, w):
    i = cuda.grid(1)
    if i < z.size:
        p = z[i] * w[i] + 1j
        out[i, 0] = p.real
        out[i, 1] = p.imag
        out[i, 2] = abs(z[i])
        q = w[i] * w[i]
        out[i, 3] = q.real - q.imag


def main():
    z = (np.arange(30) - 15 + 1j * np.arange(30) / 4).astype(np.complex128)
    w = (np.linspace(0, 2, 30) - 0.5j).astype(np.complex64)
    out = np.zeros((30, 4))
    kernel[1, 32](out, z, w)
    return {"out": out}
