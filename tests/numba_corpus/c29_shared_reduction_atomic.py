"""Per-block tree reduction in shared memory, blocks combined with ``cuda.atomic.add``."""

import numpy as np

from warpscope.emulator import cuda

TPB = 256


@cuda.jit
def total(out, src):
    sm = cuda.shared.array(TPB, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = src[i] if i < src.size else 0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s >>= 1
    if t == 0:
        cuda.atomic.add(out, 0, sm[0])


def main():
    src = (np.arange(10_000) * 31 % 1000).astype(np.int64)
    out = np.zeros(1, dtype=np.int64)
    total[(src.size + TPB - 1) // TPB, TPB](out, src)
    return {"out": out}
