"""Device functions that write into the arrays they are given (arrays pass by reference)."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit(device=True)
def swap(a, i, j):
    tmp = a[i]
    a[i] = a[j]
    a[j] = tmp


@cuda.jit(device=True)
def reverse_row(m, row):
    n = m.shape[1]
    for k in range(n // 2):
        swap(m[row], k, n - 1 - k)


@cuda.jit
def kernel(m):
    r = cuda.grid(1)
    if r < m.shape[0]:
        reverse_row(m, r)


def main():
    m = np.arange(6 * 9, dtype=np.int32).reshape(6, 9)
    kernel[1, 32](m)
    return {"m": m}
