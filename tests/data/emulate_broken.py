import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def off_by_one(a):
    i = cuda.grid(1)
    if i <= a.size:
        a[i] = 0


def main():
    off_by_one[1, 64](np.zeros(40))
