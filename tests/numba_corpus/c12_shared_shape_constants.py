"""Shared and local array shapes from module constants, tuples of them, and a computed global."""

import numpy as np
from numba import float32

from warpscope.emulator import cuda

TILE = 16
PAD = TILE + 1
HALF = TILE // 2
SCRATCH = HALF * 2  # numba folds a global, not an expression in the call


@cuda.jit
def transpose(out, src):
    tile = cuda.shared.array((TILE, PAD), float32)
    scratch = cuda.local.array(SCRATCH, dtype=np.int32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    tile[cuda.threadIdx.y, cuda.threadIdx.x] = src[y, x]
    cuda.syncthreads()
    x2 = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y2 = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    scratch[0] = cuda.threadIdx.x
    out[y2, x2] = tile[cuda.threadIdx.x, cuda.threadIdx.y] + scratch[0] * 0


def main():
    src = np.arange(64 * 48, dtype=np.float32).reshape(48, 64)
    out = np.zeros((64, 48), dtype=np.float32)
    transpose[(64 // TILE, 48 // TILE), (TILE, TILE)](out, src)
    return {"out": out}
