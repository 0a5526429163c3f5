"""numba's type names (and their short forms) as dtypes of local and shared arrays."""

import numpy as np
from numba import f8, float32, int32

from warpscope.emulator import cuda


@cuda.jit
def kernel(out, src):
    tile = cuda.shared.array(64, dtype=f8)
    acc = cuda.local.array(4, float32)
    counts = cuda.local.array(shape=2, dtype=int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = src[i]
    cuda.syncthreads()
    for k in range(4):
        acc[k] = tile[(t + k) % 64] * float32(0.5)
    counts[0] = 0
    counts[1] = 0
    for k in range(4):
        if acc[k] > 0:
            counts[0] += 1
        else:
            counts[1] += 1
    out[i, 0] = acc[0] + acc[1] + acc[2] + acc[3]
    out[i, 1] = counts[0] - counts[1]


def main():
    src = np.sin(np.arange(128, dtype=np.float64))
    out = np.zeros((128, 2), dtype=np.float32)
    kernel[2, 64](out, src)
    return {"out": out}
