"""Warp reduction with ``shfl_down_sync``, one atomic per warp."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def warp_sum(out, src):
    i = cuda.grid(1)
    v = src[i] if i < src.size else np.float32(0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.threadIdx.x % 32 == 0:
        out[i // 32] = v


def main():
    src = (np.arange(1000) % 9).astype(np.float32) * 0.125
    out = np.zeros(32, dtype=np.float32)
    warp_sum[8, 128](out, src)
    return {"out": out}
