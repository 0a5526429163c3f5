"""A single-block shared-memory reduction whose last step stores ``sm[0]`` at a fixed index."""

import numpy as np

from warpscope.emulator import cuda

TPB = 128


@cuda.jit
def block_sum(out, src):
    sm = cuda.shared.array(TPB, dtype=np.float32)
    t = cuda.threadIdx.x
    acc = np.float32(0)
    for k in range(t, src.size, TPB):
        acc += src[k]
    sm[t] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[0] = sm[0]
        out[1] = sm[0] / src.size


def main():
    src = (np.arange(1000, dtype=np.float32) % 17) * 0.25
    out = np.zeros(2, dtype=np.float32)
    block_sum[1, TPB](out, src)
    return {"out": out}
