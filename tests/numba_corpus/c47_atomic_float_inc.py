"""Float atomics (add on float32 and float64) and the wrapping ``atomic.inc``/``atomic.dec``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(fsum, dsum, counters, src):
    i = cuda.grid(1)
    if i < src.size:
        cuda.atomic.add(fsum, i % 4, np.float32(0.5))
        cuda.atomic.add(dsum, 0, src[i])
        cuda.atomic.inc(counters, 0, np.uint32(9))
        cuda.atomic.dec(counters, 1, np.uint32(6))


def main():
    src = np.arange(100, dtype=np.float64) * 0.25
    fsum = np.zeros(4, dtype=np.float32)
    dsum = np.zeros(1, dtype=np.float64)
    counters = np.array([0, 3], dtype=np.uint32)
    kernel[1, 128](fsum, dsum, counters, src)
    return {"fsum": fsum, "dsum": dsum, "counters": counters}
