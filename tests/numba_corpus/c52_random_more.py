"""numba.cuda.random beyond uniform floats: a later subsequence, float64 normals, jumps in a kernel."""

import numpy as np

from warpscope.emulator import cuda
from warpscope.emulator.random import (
    create_xoroshiro128p_states,
    init_xoroshiro128p_states,
    xoroshiro128p_jump,
    xoroshiro128p_next,
    xoroshiro128p_normal_float64,
    xoroshiro128p_uniform_float64,
)


@cuda.jit
def draw(states, normal, raw, after_jump):
    i = cuda.grid(1)
    if i < normal.size:
        normal[i] = xoroshiro128p_normal_float64(states, i)
        raw[i] = xoroshiro128p_next(states, i)
        xoroshiro128p_jump(states, i)
        after_jump[i] = xoroshiro128p_uniform_float64(states, i)


def main():
    n = 40
    states = create_xoroshiro128p_states(n, seed=99, subsequence_start=3)
    normal = np.zeros(n)
    raw = np.zeros(n, dtype=np.uint64)
    after_jump = np.zeros(n)
    draw[2, 32](states, normal, raw, after_jump)
    again = cuda.device_array(8, dtype=states.dtype)
    init_xoroshiro128p_states(again, 7)
    s0 = again.copy_to_host()["s0"].copy()
    return {"normal": normal, "raw": raw, "after_jump": after_jump, "s0": s0}
