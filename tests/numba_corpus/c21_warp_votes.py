"""Warp votes and masks: ballot, all, any, eq, activemask, lanemask_lt under divergence."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def votes(out, vals):
    i = cuda.grid(1)
    v = vals[i]
    out[i, 0] = cuda.ballot_sync(0xFFFFFFFF, v > 10)
    out[i, 1] = cuda.all_sync(0xFFFFFFFF, v >= 0)
    out[i, 2] = cuda.any_sync(0xFFFFFFFF, v > 90)
    out[i, 3] = cuda.eq_sync(0xFFFFFFFF, v % 2 == 0)
    out[i, 4] = cuda.lanemask_lt()
    if cuda.laneid % 3 == 0:
        out[i, 5] = cuda.activemask()
    out[i, 6] = cuda.popc(cuda.ballot_sync(0xFFFFFFFF, v % 4 == 1))


def main():
    vals = (np.arange(96) * 7 % 100).astype(np.int32)
    vals[64:] = 2 * np.arange(32)
    out = np.zeros((96, 7), dtype=np.int64)
    votes[3, 32](out, vals)
    return {"out": out}
