"""Dynamic shared memory split into two arrays with slices (numba's documented idiom)."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def pairs(out, a, b):
    dyn = cuda.shared.array(0, dtype=np.float32)
    n = cuda.blockDim.x
    sa = dyn[0:n]
    sb = dyn[n : 2 * n]
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sa[t] = a[i]
    sb[t] = b[i]
    cuda.syncthreads()
    out[i] = sa[n - 1 - t] * sb[t] + sa[t]


def main():
    a = np.arange(256, dtype=np.float32)
    b = np.linspace(0, 1, 256).astype(np.float32)
    out = np.zeros(256, dtype=np.float32)
    pairs[4, 64, 0, 2 * 64 * 4](out, a, b)
    return {"out": out}
