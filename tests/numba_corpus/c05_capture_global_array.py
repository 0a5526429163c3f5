"""A global array is frozen into the kernel when it is compiled (numba's documented rule)."""

import numpy as np

from warpscope.emulator import cuda

WEIGHTS = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
OFFSET = 10


@cuda.jit
def weigh(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = WEIGHTS[i % 4] * i + OFFSET


def main():
    first = np.zeros(16, dtype=np.float32)
    weigh[1, 32](first)
    WEIGHTS[:] = -1.0  # too late: the compiled kernel holds a copy
    second = np.zeros(16, dtype=np.float32)
    weigh[1, 32](second)
    WEIGHTS[:] = [1.0, 2.0, 3.0, 4.0]
    return {"first": first, "second": second}
