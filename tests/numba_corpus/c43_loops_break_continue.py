"""``for`` and ``while`` with ``break`` and ``continue``, an early ``return``, per-lane trip counts."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def collatz(steps, first_even, start):
    i = cuda.grid(1)
    if i >= start.size:
        return
    n = start[i]
    count = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        count += 1
        if count > 500:
            break
    steps[i] = count
    first_even[i] = -1
    for k in range(1, 20):
        if (start[i] + k) % 2 == 1:
            continue
        first_even[i] = k
        break


def main():
    start = np.arange(1, 101, dtype=np.int64)
    steps = np.zeros(100, dtype=np.int64)
    first_even = np.zeros(100, dtype=np.int64)
    collatz[1, 128](steps, first_even, start)
    return {"steps": steps, "first_even": first_even}
