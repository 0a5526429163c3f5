"""Device side: does racecheck report an atomic and a plain access of one shared address by
different threads with no barrier between (and two atomics)?"""

import numpy as np

np.row_stack = getattr(np, "row_stack", np.vstack)
from numba import cuda, int32  # noqa: E402


@cuda.jit
def atomic_and_plain_read(out):
    s = cuda.shared.array(1, dtype=int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 0
    cuda.syncthreads()
    if t >= 32:
        cuda.atomic.add(s, 0, 1)
    if t == 0:
        out[0] = s[0]


@cuda.jit
def atomic_and_plain_write(out):
    s = cuda.shared.array(1, dtype=int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 5
    if t >= 32:
        cuda.atomic.add(s, 0, 1)
    cuda.syncthreads()
    if t == 0:
        out[1] = s[0]


@cuda.jit
def two_atomics(out):
    s = cuda.shared.array(1, dtype=int32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 0
    cuda.syncthreads()
    cuda.atomic.add(s, 0, 1)
    cuda.atomic.max(s, 0, t)
    cuda.syncthreads()
    if t == 0:
        out[2] = s[0]


out = np.zeros(3, np.int32)
print("kernel atomic_and_plain_read at lines", atomic_and_plain_read.py_func.__code__.co_firstlineno)
atomic_and_plain_read[1, 64](out)
print("kernel atomic_and_plain_write at lines", atomic_and_plain_write.py_func.__code__.co_firstlineno)
atomic_and_plain_write[1, 64](out)
print("kernel two_atomics at lines", two_atomics.py_func.__code__.co_firstlineno)
two_atomics[1, 64](out)
print(out)
