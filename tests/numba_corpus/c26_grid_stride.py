"""A grid-stride loop over more elements than threads, with ``cuda.gridsize``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def scale(out, src, factor):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, src.shape[0], stride):
        out[i] = src[i] * factor - i


def main():
    src = np.linspace(-1, 1, 5000)
    out = np.zeros_like(src)
    scale[4, 64](out, src, 3.0)
    return {"out": out}
