"""``syncthreads_count``, ``syncthreads_and`` and ``syncthreads_or`` across a block."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out, vals):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    v = vals[cuda.grid(1)]
    c = cuda.syncthreads_count(np.int32(v > 50))
    a = cuda.syncthreads_and(np.int32(v >= 0))
    o = cuda.syncthreads_or(np.int32(v == 99))
    if t == 0:
        out[b, 0] = c
        out[b, 1] = a
        out[b, 2] = o


def main():
    vals = (np.arange(384) * 37 % 100).astype(np.int32)
    vals[200] = -1
    out = np.zeros((3, 3), dtype=np.int64)
    kernel[3, 128](out, vals)
    return {"out": out}
