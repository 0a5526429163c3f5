"""A 2-D block reducing rows with shared memory and ``syncwarp`` inside each warp."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def row_sums(out, m):
    sm = cuda.shared.array((8, 32), np.float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.x * 8 + ty
    sm[ty, tx] = m[row, tx] if row < m.shape[0] else 0.0
    cuda.syncwarp()
    s = 16
    while s > 0:
        if tx < s:
            sm[ty, tx] += sm[ty, tx + s]
        cuda.syncwarp()
        s //= 2
    if tx == 0 and row < m.shape[0]:
        out[row] = sm[ty, 0]


def main():
    m = np.sin(np.arange(20 * 32, dtype=np.float64)).reshape(20, 32)
    out = np.zeros(20)
    row_sums[3, (32, 8)](out, m)
    return {"out": out}
