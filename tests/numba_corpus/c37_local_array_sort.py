"""Each thread sorts a small window in a local array (insertion sort) and writes its median."""

import numpy as np

from warpscope.emulator import cuda

K = 5


@cuda.jit
def median_filter(out, src):
    i = cuda.grid(1)
    if i < src.size:
        w = cuda.local.array(K, np.float32)
        for k in range(K):
            j = min(max(i + k - K // 2, 0), src.size - 1)
            w[k] = src[j]
        for a in range(1, K):
            key = w[a]
            b = a - 1
            while b >= 0 and w[b] > key:
                w[b + 1] = w[b]
                b -= 1
            w[b + 1] = key
        out[i] = w[K // 2]


def main():
    src = ((np.arange(300) * 7919 % 97) / 9).astype(np.float32)
    out = np.zeros_like(src)
    median_filter[3, 128](out, src)
    return {"out": out}
