"""int32 index arithmetic near the top of its range: the same answer with or without timing."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def strided(out, src, idx, stride):
    i = cuda.grid(1)
    if i < idx.size:
        j = idx[i] * stride + np.int32(3)
        out[i] = src[j % src.size] + src[idx[i]]


def main():
    src = np.arange(4096, dtype=np.float32)
    idx = (np.arange(300, dtype=np.int64) * 977 % 4096).astype(np.int32)
    out = np.zeros(300, dtype=np.float32)
    strided[3, 128](out, src, idx, np.int32(524287))
    return {"out": out}
