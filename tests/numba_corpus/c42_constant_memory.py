"""A 1-D convolution whose filter lives in constant memory (``cuda.const.array_like``)."""

import numpy as np

from warpscope.emulator import cuda

FILTER = np.array([0.05, 0.25, 0.4, 0.25, 0.05], dtype=np.float32)


@cuda.jit
def convolve(out, src):
    f = cuda.const.array_like(FILTER)
    i = cuda.grid(1)
    if i < src.size:
        acc = np.float32(0)
        for k in range(f.size):
            j = i + k - 2
            if 0 <= j < src.size:
                acc += f[k] * src[j]
        out[i] = acc


def main():
    src = (np.arange(200) % 11).astype(np.float32)
    out = np.zeros_like(src)
    convolve[2, 128](out, src)
    return {"out": out}
