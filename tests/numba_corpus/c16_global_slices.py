"""Slices of global arrays: a row of a matrix, a tail, a strided view."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def rows(out, m, v):
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = m[i]
        tail = v[2:]
        every_other = v[::2]
        acc = 0.0
        for k in range(row.size):
            acc += row[k] * tail[k]
        out[i] = acc + every_other[i % every_other.size]


def main():
    m = np.arange(40, dtype=np.float64).reshape(8, 5) / 7
    v = np.arange(10, dtype=np.float64) - 3
    out = np.zeros(8, dtype=np.float64)
    rows[1, 32](out, m, v)
    return {"out": out}
