"""A histogram with atomics in shared memory, merged into global bins."""

import numpy as np

from warpscope.emulator import cuda

BINS = 16


@cuda.jit
def histogram(bins, data):
    local_bins = cuda.shared.array(BINS, np.int32)
    t = cuda.threadIdx.x
    if t < BINS:
        local_bins[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        b = int(data[i] * BINS)
        if b >= BINS:
            b = BINS - 1
        cuda.atomic.add(local_bins, b, 1)
    cuda.syncthreads()
    if t < BINS:
        cuda.atomic.add(bins, t, local_bins[t])


def main():
    data = ((np.arange(20_000) * 0.6180339887) % 1.0).astype(np.float32)
    bins = np.zeros(BINS, dtype=np.int32)
    histogram[8, 128](bins, data)
    return {"bins": bins}
