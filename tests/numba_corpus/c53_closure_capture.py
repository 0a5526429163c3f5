"""Kernels made by a factory capture its local values when compiled (numba freezes closures)."""

import numpy as np

from warpscope.emulator import cuda


def make_scaler(factor, table):
    @cuda.jit
    def scaler(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i * factor + table[i % table.size]

    return scaler


def main():
    table = np.array([0.5, -0.5, 2.0], dtype=np.float64)
    triple = make_scaler(3, table)
    half = make_scaler(0.5, table)
    a = np.zeros(10)
    b = np.zeros(10)
    triple[1, 32](a)
    table[:] = 100.0  # the compiled kernel keeps the table as it was
    triple[1, 32](b)
    c = np.zeros(10)
    half[1, 32](c)
    return {"a": a, "b": b, "c": c}
