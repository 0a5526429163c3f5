"""numba.cuda.random: xoroshiro128+ states made on the host, uniform and normal draws per thread."""

import numpy as np

from warpscope.emulator import cuda
from warpscope.emulator.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_normal_float32,
    xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)


@cuda.jit
def draw(states, u32, u64, normal):
    i = cuda.grid(1)
    if i < u32.shape[0]:
        for k in range(u32.shape[1]):
            u32[i, k] = xoroshiro128p_uniform_float32(states, i)
        u64[i] = xoroshiro128p_uniform_float64(states, i)
        normal[i] = xoroshiro128p_normal_float32(states, i)


def main():
    n = 96
    states = create_xoroshiro128p_states(n, seed=1234)
    u32 = np.zeros((n, 4), dtype=np.float32)
    u64 = np.zeros(n, dtype=np.float64)
    normal = np.zeros(n, dtype=np.float32)
    draw[3, 32](states, u32, u64, normal)
    return {"u32": u32, "u64": u64, "normal": normal}
