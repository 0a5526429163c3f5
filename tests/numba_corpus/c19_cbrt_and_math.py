"""``cuda.cbrt`` and the math module on float32 and float64 inputs."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out32, out64, a32, a64):
    i = cuda.grid(1)
    if i < a32.size:
        x = a32[i]
        y = a64[i]
        out32[i, 0] = cuda.cbrt(x)
        out32[i, 1] = math.exp(x * np.float32(0.1))
        out32[i, 2] = math.sqrt(abs(x))
        out32[i, 3] = math.floor(x) + math.ceil(x)
        out32[i, 4] = math.atan2(x, np.float32(2))
        out64[i, 0] = cuda.cbrt(y)
        out64[i, 1] = math.log1p(abs(y))
        out64[i, 2] = math.tanh(y)
        out64[i, 3] = math.hypot(y, 3.0)
        out64[i, 4] = math.copysign(2.0, y) + math.fmod(y, 1.5)


def main():
    a32 = np.linspace(-8, 27, 64).astype(np.float32)
    a64 = np.linspace(-8, 27, 64)
    out32 = np.zeros((64, 5), dtype=np.float32)
    out64 = np.zeros((64, 5), dtype=np.float64)
    kernel[2, 32](out32, out64, a32, a64)
    return {"out32": out32, "out64": out64}
