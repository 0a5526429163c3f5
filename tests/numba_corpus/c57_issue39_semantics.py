"""Issue 39's numba forms: for over zip/enumerate/tuples/arrays, a tuple index, a jit
function called as a device function, NaN atomics, bit_count, libdevice, a ufunc with out,
a captured device array. (compare_and_swap is left out: which lane wins differed between two
H100 runs, lane 0 once and lane 1 once.)"""

import numpy as np

from warpscope.emulator import cuda

SCALE = cuda.to_device(np.array([2.0, 3.0, 4.0, 5.0]))


@cuda.jit
def plus_one(x):
    return x + 1


@cuda.jit
def forms(out, a, b, m, r, v, old):
    i = cuda.grid(1)
    t = 0.0
    for x, y in zip(a, b):
        t += x * y
    for j, x in enumerate(a, 2):
        t += j * x
    for s in (16, 8, 4):
        t += s * i
    for row in m:
        t += row[i % 2]
    out[i, 0] = t
    g = (i, 1)
    out[i, 1] = m[g] * SCALE[i]
    out[i, 2] = plus_one(a[i]) + int(i * 7).bit_count()
    out[i, 3] = cuda.libdevice.sqrt(a[i]) + cuda.libdevice.fmaxf(np.float32(a[i]), np.float32(1.5))
    old[i] = cuda.atomic.max(r, 0, v[i])
    cuda.atomic.min(r, 1, v[i])
    cuda.atomic.nanmax(r, 2, v[i])
    cuda.atomic.nanmin(r, 3, v[i])


@cuda.jit
def sines(x, y):
    np.sin(x, y)


def main():
    a = np.arange(4.0)
    m = np.arange(8.0).reshape(4, 2)
    r = np.array([63.0, 100.0, 0.0, 100.0])
    v = np.array([1.0, np.nan, 5.0, 3.0])
    out = np.zeros((4, 4))
    old = np.zeros(4)
    forms[1, 4](out, a, a + 1, m, r, v, old)
    y = np.zeros(4)
    sines[1, 1](a, y)
    return {"out": out, "r": r, "old": old, "y": y}
