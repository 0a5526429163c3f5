"""A float32 parameter rounds the Python float passed to it before any arithmetic."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit("void(float64[:], float32, int16)")
def scale(out, s, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * s + k


def main():
    out = np.zeros(64, dtype=np.float64)
    scale[2, 32](out, 0.1, 40000)
    return {"out": out}
