"""Tiled matrix multiply in shared memory (numba docs' fast_matmul), float32."""

import numpy as np
from numba import float32

from warpscope.emulator import cuda

TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.0)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def main():
    A = (np.arange(48 * 48) % 13).reshape(48, 48).astype(np.float32) / 4
    B = (np.arange(48 * 48) % 7).reshape(48, 48).astype(np.float32) / 2
    C = np.zeros((48, 48), dtype=np.float32)
    fast_matmul[(3, 3), (TPB, TPB)](A, B, C)
    return {"C": C}
