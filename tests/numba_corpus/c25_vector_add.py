"""The first example of numba's documentation: one thread per element, a bounds check."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + y[i]


def main():
    x = np.arange(1000, dtype=np.float32)
    y = 2 * x
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_out = cuda.device_array_like(d_x)
    threads = 128
    blocks = (x.size + threads - 1) // threads
    add[blocks, threads](d_x, d_y, d_out)
    cuda.synchronize()
    return {"out": d_out.copy_to_host()}
