"""Device side: c75 (reads A[63, 64] of a 64x64 array) under numba-cuda, to run under memcheck."""

import numpy as np

np.row_stack = getattr(np, "row_stack", np.vstack)
from pathlib import Path  # noqa: E402

import harness  # noqa: E402

got = harness.run_numba(Path(__file__).parent / "c75_numba_ex_laplace2d_smem.py")
print({k: (v.shape, float(np.asarray(v).sum())) for k, v in got.items()})
