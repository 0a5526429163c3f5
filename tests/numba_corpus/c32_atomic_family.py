"""atomic max, min, exch, cas, sub and the bitwise atomics, with the values they return."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(acc, flags, old, src):
    i = cuda.grid(1)
    if i < src.size:
        v = src[i]
        cuda.atomic.max(acc, 0, v)
        cuda.atomic.min(acc, 1, v)
        cuda.atomic.sub(acc, 2, 1)
        cuda.atomic.or_(flags, 0, np.uint32(1) << np.uint32(i % 32))
        cuda.atomic.and_(flags, 1, ~(np.uint32(1) << np.uint32(i % 16)))
        cuda.atomic.xor(flags, 2, np.uint32(i))
        if i == 5:
            old[0] = cuda.atomic.cas(acc, 3, 0, 42)
            old[1] = cuda.atomic.exch(acc, 4, 99)


def main():
    src = ((np.arange(200) * 7919) % 1009 - 500).astype(np.int64)
    acc = np.array([-(1 << 40), 1 << 40, 0, 0, 7], dtype=np.int64)
    flags = np.array([0, 0xFFFFFFFF, 0], dtype=np.uint32)
    old = np.zeros(2, dtype=np.int64)
    kernel[2, 128](acc, flags, old, src)
    return {"acc": acc, "flags": flags, "old": old}
