"""A kernel factory's argument sizes the shared array (numba folds the closure variable)."""

import numpy as np
from numba import float32

from warpscope.emulator import cuda


def make_block_sum(threads):
    @cuda.jit
    def block_sum(out, src):
        sm = cuda.shared.array(threads, float32)
        t = cuda.threadIdx.x
        sm[t] = src[cuda.grid(1)]
        cuda.syncthreads()
        s = threads // 2
        while s > 0:
            if t < s:
                sm[t] += sm[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            out[cuda.blockIdx.x] = sm[0]

    return block_sum


def main():
    src = (np.arange(512) % 13).astype(np.float32)
    out64 = np.zeros(8, dtype=np.float32)
    make_block_sum(64)[8, 64](out64, src)
    out128 = np.zeros(4, dtype=np.float32)
    make_block_sum(128)[4, 128](out128, src)
    return {"out64": out64, "out128": out128}
