"""Structured (record) arrays: fields read by attribute and by name, and written."""

import numpy as np

from warpscope.emulator import cuda

PARTICLE = np.dtype([("x", np.float32), ("y", np.float32), ("mass", np.float64), ("id", np.int32)])


@cuda.jit
def step(parts, out):
    i = cuda.grid(1)
    if i < parts.size:
        p = parts[i]
        out[i] = p.x * p.mass + parts[i]["y"] + p.id
        parts[i].x = p.x + 1.5
        parts[i]["id"] = p.id * 2


def main():
    parts = np.zeros(20, dtype=PARTICLE)
    parts["x"] = np.arange(20) * 0.5
    parts["y"] = np.arange(20)[::-1]
    parts["mass"] = 1.0 + np.arange(20) / 10
    parts["id"] = np.arange(20) + 100
    out = np.zeros(20, dtype=np.float64)
    step[1, 32](parts, out)
    return {"out": out, "x": parts["x"].copy(), "id": parts["id"].copy()}
