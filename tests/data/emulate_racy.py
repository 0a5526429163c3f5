"""A 3-point stencil through shared memory that forgets the barrier between the shared write
and the neighbours' reads: right in the lockstep emulator, a race on a GPU."""

import numpy as np

from warpscope.emulator import cuda

N = 128


@cuda.jit
def stencil(out, x):
    s = cuda.shared.array(N, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    if t > 0 and t < N - 1:
        out[i] = s[t - 1] + s[t] + s[t + 1]


def main():
    x = np.arange(4 * N, dtype=np.float32)
    out = np.zeros_like(x)
    stencil[4, N](out, x)
