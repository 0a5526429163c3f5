"""Escape-time Mandelbrot: a data-dependent while loop per pixel (divergent warps)."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit(device=True)
def escape(x, y, max_iter):
    zr = 0.0
    zi = 0.0
    n = 0
    while n < max_iter and zr * zr + zi * zi < 4.0:
        zr, zi = zr * zr - zi * zi + x, 2.0 * zr * zi + y
        n += 1
    return n


@cuda.jit
def mandel(image, x0, y0, dx, dy, max_iter):
    col, row = cuda.grid(2)
    if row < image.shape[0] and col < image.shape[1]:
        image[row, col] = escape(x0 + col * dx, y0 + row * dy, max_iter)


def main():
    image = np.zeros((24, 40), dtype=np.uint8)
    mandel[(3, 2), (16, 16)](image, -2.0, -1.2, 3.0 / 40, 2.4 / 24, 60)
    return {"image": image}
