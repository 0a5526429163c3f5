"""uint8 and int16 values used as indices (a lookup table), int32 index arrays."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def gather(out, table, codes, idx32):
    i = cuda.grid(1)
    if i < codes.size:
        c = codes[i]
        out[i] = table[c] + table[np.int16(c) - 1] + table[idx32[i]]


def main():
    table = np.arange(256, dtype=np.float32) * 0.5
    codes = (np.arange(500) * 37 % 255 + 1).astype(np.uint8)
    idx32 = (np.arange(500) * 11 % 256).astype(np.int32)
    out = np.zeros(500, dtype=np.float32)
    gather[4, 128](out, table, codes, idx32)
    return {"out": out}
