"""Comparisons stored into bool arrays, bool arrays read as conditions and summed."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def classify(flags, counts, x):
    i = cuda.grid(1)
    if i < x.size:
        flags[i, 0] = x[i] > 0
        flags[i, 1] = x[i] % 3 == 0 or x[i] < -40
        flags[i, 2] = not flags[i, 0]
        n = 0
        for k in range(3):
            if flags[i, k]:
                n += 1
        counts[i] = n + flags[i, 0] + flags[i, 1]


def main():
    x = np.arange(-50, 50, dtype=np.int64)
    flags = np.zeros((100, 3), dtype=np.bool_)
    counts = np.zeros(100, dtype=np.int64)
    classify[1, 128](flags, counts, x)
    return {"flags": flags, "counts": counts}
