"""Warp-level inclusive scan with ``shfl_up_sync`` and a butterfly max with ``shfl_xor_sync``."""

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def warp_ops(scan_out, max_out, src):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = src[i]
    d = 1
    while d < 32:
        up = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += up
        d *= 2
    scan_out[i] = v
    m = src[i]
    mask = 16
    while mask > 0:
        m = max(m, cuda.shfl_xor_sync(0xFFFFFFFF, m, mask))
        mask //= 2
    max_out[i] = m
    bcast = cuda.shfl_sync(0xFFFFFFFF, src[i], 7)
    max_out[i] += bcast * 1000


def main():
    src = ((np.arange(128) * 13) % 50).astype(np.int32)
    scan_out = np.zeros(128, dtype=np.int32)
    max_out = np.zeros(128, dtype=np.int32)
    warp_ops[2, 64](scan_out, max_out, src)
    return {"scan": scan_out, "max": max_out}
