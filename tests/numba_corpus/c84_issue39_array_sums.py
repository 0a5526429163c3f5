"""Issue 39 (ours): array reductions a thread calls on its own row — ``row.sum()``,
``np.sum(A[i])``, ``row.prod()``, ``np.mean(row)`` — on per-thread slices (``A[i, :]``,
``A[i, 1:]``), as numba-cuda compiles them without NRT."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def row_reductions(A, o):
    i = cuda.grid(1)
    if i < A.shape[0]:
        row = A[i, :]
        o[i, 0] = row.sum()
        o[i, 1] = np.sum(A[i])
        o[i, 2] = A[i, 1:].sum()
        o[i, 3] = row.prod()
        o[i, 4] = np.mean(row)


def main():
    A = (np.arange(40.0).reshape(8, 5) % 7) * 0.5 + 1
    o = np.zeros((8, 5))
    row_reductions[1, 8](A, o)
    return {"row_reductions": o}
