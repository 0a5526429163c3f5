"""Device side: how numba-cuda's allocations are spaced (the rounding a read past an array's end lands in)."""

import numpy as np

np.row_stack = getattr(np, "row_stack", np.vstack)
import itertools  # noqa: E402

from numba import cuda  # noqa: E402

for nbytes in (8, 100, 256, 500, 512, 513, 1000, 4096, 32768, 32776, 40000, 1 << 20, (1 << 20) + 8):
    arrs = [cuda.device_array(nbytes // 8 or 1, dtype=np.float64) for _ in range(4)]
    ptrs = [a.__cuda_array_interface__["data"][0] for a in arrs]
    print(
        nbytes,
        "bytes: pointers mod 4096",
        [p % 4096 for p in ptrs],
        "gaps",
        [b - a for a, b in itertools.pairwise(ptrs)],
    )
