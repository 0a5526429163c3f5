"""``arr.dtype`` inside a kernel: a local array of the input's type, and a cast to it."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def smooth(out, src):
    i = cuda.grid(1)
    if 0 < i < src.size - 1:
        win = cuda.local.array(3, dtype=src.dtype)
        win[0] = src[i - 1]
        win[1] = src[i]
        win[2] = src[i + 1]
        out[i] = (win[0] + win[1] + win[2]) / 3


def main():
    a32 = (np.arange(50, dtype=np.float32) ** 1.5).astype(np.float32)
    out32 = np.zeros(50, dtype=np.float32)
    smooth[1, 64](out32, a32)
    a16 = (np.arange(50) * 1000).astype(np.int16)
    out16 = np.zeros(50, dtype=np.float64)
    smooth[1, 64](out16, a16)
    return {"out32": out32, "out16": out16}
