"""Inclusive prefix sum in one block (Hillis-Steele, double-buffered shared memory)."""

import numpy as np

from warpscope.emulator import cuda

N = 256


@cuda.jit
def scan(out, src):
    buf = cuda.shared.array((2, N), np.int32)
    t = cuda.threadIdx.x
    buf[0, t] = src[t]
    cuda.syncthreads()
    cur = 0
    offset = 1
    while offset < N:
        nxt = 1 - cur
        if t >= offset:
            buf[nxt, t] = buf[cur, t] + buf[cur, t - offset]
        else:
            buf[nxt, t] = buf[cur, t]
        cuda.syncthreads()
        cur = nxt
        offset *= 2
    out[t] = buf[cur, t]


def main():
    src = (np.arange(N) % 5 + 1).astype(np.int32)
    out = np.zeros(N, dtype=np.int32)
    scan[1, N](out, src)
    return {"out": out}
