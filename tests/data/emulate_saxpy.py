"""A kernel file for `warpscope emulate`: kernels plus a main() that launches them."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def gather(src, out, stride):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = src[i * stride % src.size]


def main():
    n = 10_000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    saxpy[(n + 255) // 256, 256](np.float32(2.0), x, y, out)
    assert np.array_equal(out, 2 * x + 1)
    gather[(n + 255) // 256, 256](x, out, 32)
