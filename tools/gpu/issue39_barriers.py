"""Ground truth for issue 39 on a GPU with numba-cuda: barriers reached in divergent code.

Each case runs in its own process (a hang is a timeout, not a stuck run) and prints what the
kernel wrote, or 'HANG' / the error. ``python tools/gpu/issue39_barriers.py``"""

import subprocess
import sys

CASES = {
    "half_barrier_then_exit": """
@cuda.jit
def k(a):
    if cuda.threadIdx.x < 16:
        cuda.syncthreads()
    a[cuda.threadIdx.x] = 1
a = np.zeros(64); k[1, 64](a); cuda.synchronize(); print(a.sum())
""",
    "if_else_both_barriers_exchange": """
@cuda.jit
def k(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:
        s[t] = 1
        cuda.syncthreads()
        out[t] = s[t + 32]
    else:
        s[t] = 2
        cuda.syncthreads()
        out[t] = s[t - 32]
out = np.zeros(64, np.int32); k[1, 64](out); cuda.synchronize(); print(out.tolist())
""",
    "split_warp_if_else_exchange": """
@cuda.jit
def k(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t % 2 == 0:
        s[t] = 1
        cuda.syncthreads()
        out[t] = s[t + 1]
    else:
        s[t] = 2
        cuda.syncthreads()
        out[t] = s[t - 1]
out = np.zeros(64, np.int32); k[1, 64](out); cuda.synchronize(); print(out.tolist())
""",
    "reduction_early_return": """
@cuda.jit
def k(src, out):
    s = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    s[t] = src[t]
    cuda.syncthreads()
    n = 128
    while n > 0:
        if t >= n:
            return
        s[t] += s[t + n]
        cuda.syncthreads()
        n //= 2
    if t == 0:
        out[0] = s[0]
src = np.arange(256, dtype=np.float32); out = np.zeros(1, np.float32)
k[1, 256](src, out); cuda.synchronize(); print(out.tolist())
""",
    "mismatched_counts": """
@cuda.jit
def k(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 32:
        cuda.syncthreads()
        cuda.syncthreads()
    s[t] = t
    cuda.syncthreads()
    out[t] = s[63 - t]
out = np.zeros(64, np.int32); k[1, 64](out); cuda.synchronize(); print(out.tolist())
""",
}

HEAD = 'import numpy as np\nnp.row_stack = getattr(np, "row_stack", np.vstack)\nfrom numba import cuda\n'

for name, body in CASES.items():
    try:
        p = subprocess.run([sys.executable, "-c", HEAD + body], capture_output=True, text=True, timeout=60)
        out = p.stdout.strip() or p.stderr.strip().splitlines()[-1]
    except subprocess.TimeoutExpired:
        out = "HANG (no result in 60 s)"
    print(f"{name:34s} {out}")
