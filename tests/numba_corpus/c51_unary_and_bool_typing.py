"""Unary minus and inversion on narrow integers, and booleans in arithmetic."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(out, i32, u32, i8, flags):
    i = cuda.grid(1)
    if i < i32.size:
        out[i, 0] = -i32[i]
        out[i, 1] = -u32[i]
        out[i, 2] = ~i32[i]
        out[i, 3] = ~i8[i]
        out[i, 4] = -i8[i]
        out[i, 5] = flags[i] + flags[i]
        out[i, 6] = flags[i] * 7 - True
        out[i, 7] = cuda.clz(-i32[i])
        out[i, 8] = cuda.clz(~u32[i])


def main():
    i32 = np.array([0, 1, -2147483648, 2147483647, -7], dtype=np.int32)
    u32 = np.array([0, 1, 2147483648, 4294967295, 7], dtype=np.uint32)
    i8 = np.array([0, 1, -128, 127, -7], dtype=np.int8)
    flags = np.array([True, False, True, True, False])
    out = np.zeros((5, 9), dtype=np.int64)
    kernel[1, 32](out, i32, u32, i8, flags)
    return {"out": out}
