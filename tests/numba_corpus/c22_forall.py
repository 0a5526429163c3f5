"""``kernel.forall(n)``: numba picks the launch configuration for n independent tasks."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def main():
    x = np.arange(3000, dtype=np.float32)
    y = np.ones(3000, dtype=np.float32)
    out = np.zeros(3000, dtype=np.float32)
    saxpy.forall(out.size)(out, np.float32(2.5), x, y)
    return {"out": out}
