"""A 2-D Jacobi relaxation step (Laplace's equation), launched repeatedly with swapped buffers."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def jacobi(new, old):
    i, j = cuda.grid(2)
    n, m = old.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        new[i, j] = 0.25 * (old[i - 1, j] + old[i + 1, j] + old[i, j - 1] + old[i, j + 1])


def main():
    a = np.zeros((34, 34))
    a[0, :] = 1.0
    a[:, 0] = np.linspace(1, 0, 34)
    b = a.copy()
    for _ in range(10):
        jacobi[(3, 3), (16, 16)](b, a)
        a, b = b, a
    return {"grid": a}
