"""Signatures with 2-D and contiguous array types, and a list of signatures."""

import numpy as np
from numba import float32, float64, int64, void

from warpscope.emulator import cuda


@cuda.jit("void(float32[:, :], float32[:, ::1], int64)")
def add_rows(out, m, shift):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        out[i, j] = m[i, (j + shift) % m.shape[1]] + i


@cuda.jit([void(float64[:], float64[:], float32)])
def scale(out, x, s):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * s


@cuda.jit(int64(int64, int64), device=True)
def mix(a, b):
    return a * 31 + b


@cuda.jit
def hashes(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = mix(i, mix(i, 7))


def main():
    m = np.arange(6 * 10, dtype=np.float32).reshape(6, 10)
    out = np.zeros_like(m)
    add_rows[(1, 1), (8, 16)](out, m, 3)
    x = np.linspace(0, 1, 20)
    y = np.zeros(20)
    scale[1, 32](y, x, 0.3)
    h = np.zeros(40, dtype=np.int64)
    hashes[1, 64](h)
    return {"out": out, "y": y, "h": h}
