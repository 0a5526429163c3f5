"""A 3-D grid over a volume with ``cuda.grid(3)`` and ``cuda.gridsize(3)``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def fill(vol, sizes):
    x, y, z = cuda.grid(3)
    if x < vol.shape[2] and y < vol.shape[1] and z < vol.shape[0]:
        vol[z, y, x] = x + 10 * y + 100 * z
    if x == 0 and y == 0 and z == 0:
        gx, gy, gz = cuda.gridsize(3)
        sizes[0] = gx
        sizes[1] = gy
        sizes[2] = gz


def main():
    vol = np.zeros((5, 6, 7), dtype=np.int32)
    sizes = np.zeros(3, dtype=np.int64)
    fill[(2, 2, 3), (4, 4, 2)](vol, sizes)
    return {"vol": vol, "sizes": sizes}
