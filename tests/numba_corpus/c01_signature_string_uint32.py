"""A string signature makes a Python int argument uint32: bit intrinsics work at 32 bits."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit("void(uint32[:], uint32)")
def bits(out, v):
    i = cuda.grid(1)
    if i == 0:
        out[0] = cuda.clz(v)
        out[1] = cuda.brev(v)
        out[2] = cuda.popc(v)
        out[3] = cuda.ffs(v)
        out[4] = v >> 3
        out[5] = ~v


def main():
    out = np.zeros(6, dtype=np.uint32)
    bits[1, 32](out, 0x100000)
    return {"out": out}
