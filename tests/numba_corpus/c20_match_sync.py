"""``cuda.match_any_sync`` and ``cuda.match_all_sync``: lanes grouped by equal values."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def kernel(any_out, all_out, pred_out, keys, same):
    i = cuda.grid(1)
    any_out[i] = cuda.match_any_sync(0xFFFFFFFF, keys[i])
    m, pred = cuda.match_all_sync(0xFFFFFFFF, same[i])
    all_out[i] = m
    pred_out[i] = pred


def main():
    keys = (np.arange(64) % 5).astype(np.int32)
    keys[40:] = 7
    same = np.ones(64, dtype=np.int64)
    same[33] = 2
    any_out = np.zeros(64, dtype=np.uint32)
    all_out = np.zeros(64, dtype=np.uint32)
    pred_out = np.zeros(64, dtype=np.int32)
    kernel[1, 64](any_out, all_out, pred_out, keys, same)
    return {"any": any_out, "all": all_out, "pred": pred_out}
