"""A device function allocating a local array whose size the caller passes as a constant."""

import numpy as np

from warpscope.emulator import cuda

N = 8


@cuda.jit(device=True)
def window_sum(src, start, n):
    buf = cuda.local.array(N, np.float64)
    for k in range(n):
        buf[k] = src[(start + k) % src.size]
    total = 0.0
    for k in range(n):
        total += buf[k]
    return total


@cuda.jit
def kernel(out, src):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = window_sum(src, i, N) - window_sum(src, i, 3)


def main():
    src = np.cos(np.arange(100, dtype=np.float64))
    out = np.zeros(100, dtype=np.float64)
    kernel[1, 128](out, src)
    return {"out": out}
