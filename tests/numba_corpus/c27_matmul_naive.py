"""Naive matrix multiply with a 2-D grid (numba docs' first matmul)."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


def main():
    A = np.arange(24 * 20, dtype=np.float64).reshape(24, 20) / 100
    B = np.arange(20 * 36, dtype=np.float64).reshape(20, 36) / 50
    C = np.zeros((24, 36))
    matmul[(2, 3), (16, 16)](A, B, C)
    return {"C": C}
