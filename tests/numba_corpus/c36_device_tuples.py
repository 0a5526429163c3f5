"""Device functions returning tuples, unpacked by the caller; nested device calls."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit(device=True)
def polar(x, y):
    return math.sqrt(x * x + y * y), math.atan2(y, x)


@cuda.jit(device=True)
def rotate(x, y, angle):
    r, theta = polar(x, y)
    return r * math.cos(theta + angle), r * math.sin(theta + angle)


@cuda.jit
def kernel(out, pts):
    i = cuda.grid(1)
    if i < pts.shape[0]:
        x, y = rotate(pts[i, 0], pts[i, 1], 0.5)
        out[i, 0] = x
        out[i, 1] = y


def main():
    pts = np.stack([np.linspace(-3, 3, 50), np.linspace(2, -1, 50)], axis=1)
    out = np.zeros_like(pts)
    kernel[2, 32](out, pts)
    return {"out": out}
