"""The seed kernels of ``sample_traces/h100/seedkernels.cu`` in the kernel language.

Same kernels, launch sizes and input data as the CUDA program profiled on the H100
(``rand()`` seeded with 1234, as glibc generates it), plus withDivergence on sorted input,
the seed notes' fix. Replace the import with ``from numba import cuda`` to run the same
kernels on a GPU.
"""

from __future__ import annotations

import math
import types

import numpy as np

from warpscope.emulator import cuda

N1 = 1 << 20
M = 512  # matmul size
T = 1024  # transpose size
FULL = 0xFFFFFFFF
LAUNCHES = 23  # kernel launches main() makes (progress reports count against it)
f32 = np.float32


@cuda.jit
def mathKernel1(c):
    tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    a = f32(0.0)
    b = f32(0.0)
    if tid % 2 == 0:
        a = f32(100.0)
    else:
        b = f32(200.0)
    c[tid] = a + b


@cuda.jit
def mathKernel2(c):
    tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    a = f32(0.0)
    b = f32(0.0)
    if (tid // cuda.warpsize) % 2 == 0:
        a = f32(100.0)
    else:
        b = f32(200.0)
    c[tid] = a + b


@cuda.jit
def withDivergence(data, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        v = data[i]
        if v > f32(0.5):
            for j in range(100):
                v = math.sqrt(v) + f32(j) * f32(0.01)
        else:
            v = v + f32(1.0)
        data[i] = v


def _renamed(kernel, name: str):
    """The same kernel under another name (a separate row in reports)."""
    fn = kernel.py_func
    return cuda.jit(types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__))


#: withDivergence again, launched on sorted input: the seed notes' fix (strategy 1)
withDivergenceSorted = _renamed(withDivergence, "withDivergence_sorted")


@cuda.jit
def noDivergence(data, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        v = data[i]
        for j in range(100):
            v = math.sqrt(v) + f32(j) * f32(0.01)
        data[i] = v


@cuda.jit
def vecAddTail(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]


@cuda.jit
def saxpyCoalesced(x, y, o, a, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        o[i] = a * x[i] + y[i]


@cuda.jit
def copyStrided(src, out, n, stride):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        out[i] = src[i * stride % n]


@cuda.jit
def copyOffset(src, out, n, offset):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    k = i + offset
    if k < n:
        out[i] = src[k]


@cuda.jit
def transposeNaive(out, src, rows, cols):
    col = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    row = cuda.blockIdx.y * 32 + cuda.threadIdx.y
    if row < rows and col < cols:
        out[col * rows + row] = src[row * cols + col]


def _transpose_shared(pad: int):
    def transposeShared(out, src, rows, cols):
        tile = cuda.shared.array((32, 32 + pad), np.float32)
        x = cuda.blockIdx.x * 32 + cuda.threadIdx.x
        y = cuda.blockIdx.y * 32 + cuda.threadIdx.y
        if y < rows and x < cols:
            tile[cuda.threadIdx.y, cuda.threadIdx.x] = src[y * cols + x]
        cuda.syncthreads()
        x = cuda.blockIdx.y * 32 + cuda.threadIdx.x
        y = cuda.blockIdx.x * 32 + cuda.threadIdx.y
        if y < cols and x < rows:
            out[y * rows + x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

    transposeShared.__name__ = f"transposeShared<{pad}>"
    return cuda.jit(transposeShared)


transposeShared0 = _transpose_shared(0)
transposeShared1 = _transpose_shared(1)


@cuda.jit
def matmulNaive(A, B, C, N):
    row = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if row < N and col < N:
        s = f32(0.0)
        for k in range(N):
            s += A[row * N + k] * B[k * N + col]
        C[row * N + col] = s


def _matmul_tiled(tile: int, pad: int):
    def matmulTiled(A, B, C, N):
        As = cuda.shared.array((tile, tile + pad), np.float32)
        Bs = cuda.shared.array((tile, tile + pad), np.float32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx
        s = f32(0.0)
        for t in range((N + tile - 1) // tile):
            As[ty, tx] = A[row * N + t * tile + tx] if row < N and t * tile + tx < N else f32(0.0)
            Bs[ty, tx] = B[(t * tile + ty) * N + col] if t * tile + ty < N and col < N else f32(0.0)
            cuda.syncthreads()
            for i in range(tile):
                s += As[ty, i] * Bs[i, tx]
            cuda.syncthreads()
        if row < N and col < N:
            C[row * N + col] = s

    matmulTiled.__name__ = f"matmulTiled<{tile}, {pad}>"
    return cuda.jit(matmulTiled)


matmulTiled16 = _matmul_tiled(16, 0)
matmulTiled32 = _matmul_tiled(32, 1)


@cuda.jit
def reduceSingleThread(src, out):
    temp = cuda.shared.array(256, np.float32)
    tid = cuda.threadIdx.x
    temp[tid] = src[cuda.blockIdx.x * 256 + tid]
    cuda.syncthreads()
    if tid == 0:
        s = f32(0.0)
        for i in range(256):
            s += temp[i]
        out[cuda.blockIdx.x] = s


@cuda.jit
def reduceInterleaved(src, out):
    sd = cuda.shared.array(256, np.float32)
    tid = cuda.threadIdx.x
    sd[tid] = src[cuda.blockIdx.x * 256 + tid]
    cuda.syncthreads()
    s = 1
    while s < 256:
        if tid % (2 * s) == 0:
            sd[tid] += sd[tid + s]
        cuda.syncthreads()
        s *= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sd[0]


@cuda.jit
def reduceStridedIndex(src, out):
    sd = cuda.shared.array(256, np.float32)
    tid = cuda.threadIdx.x
    sd[tid] = src[cuda.blockIdx.x * 256 + tid]
    cuda.syncthreads()
    s = 1
    while s < 256:
        idx = 2 * s * tid
        if idx < 256:
            sd[idx] += sd[idx + s]
        cuda.syncthreads()
        s *= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sd[0]


@cuda.jit
def reduceSequential(src, out):
    sd = cuda.shared.array(256, np.float32)
    tid = cuda.threadIdx.x
    sd[tid] = src[cuda.blockIdx.x * 256 + tid]
    cuda.syncthreads()
    s = 128
    while s > 0:
        if tid < s:
            sd[tid] += sd[tid + s]
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        out[cuda.blockIdx.x] = sd[0]


@cuda.jit
def reduceShuffle(src, out):
    tid = cuda.threadIdx.x
    v = src[cuda.blockIdx.x * 256 + tid]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL, v, off)
        off //= 2
    if tid % 32 == 0:
        out[cuda.blockIdx.x * 8 + tid // 32] = v


@cuda.jit(max_registers=40)  # what nvcc allocated for it on the H100 (40 registers)
def heavyRegisters(src, out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i >= n:
        return
    r = cuda.local.array(48, np.float32)
    for k in range(48):
        r[k] = src[(i + k * 977) % n]
    s = f32(0.0)
    for k in range(48):
        s += r[k] * r[(k * 7) % 48]
    out[i] = s


@cuda.jit
def bigShared(src, out, n):
    buf = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    buf[tid] = src[i] if i < n else f32(0.0)
    cuda.syncthreads()
    if i < n:
        out[i] = buf[(tid + 1) % cuda.blockDim.x]


@cuda.jit
def tinyBlocks(c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = c[i] * f32(2.0) + f32(1.0)


def glibc_rand(seed: int, count: int) -> np.ndarray:
    """The first ``count`` values of glibc's ``rand()`` after ``srand(seed)``, 0 < seed < 2**31 (TYPE_3):
    ``r[i] = r[i - 31] + r[i - 3]`` modulo 2**32 after 34 seeded words, the first 310 dropped,
    each output ``r[i] >> 1``. The recurrence is linear, so a block of ``_BLOCK`` words is one
    product of a matrix with the 31 words before it (wrapping at 2**64, exact modulo 2**32):
    a Python loop over a million words took 0.2 s of the seed workload."""
    r = [seed]
    for i in range(1, 31):
        hi, lo = divmod(r[i - 1], 127773)
        word = 16807 * lo - 2836 * hi
        r.append(word + 2147483647 if word < 0 else word)
    r += r[:3]  # r[31..33]
    total = 310 + count  # words from r[34] on
    out = np.empty(total, dtype=np.uint64)
    window = np.array(r[3:], dtype=np.uint64)  # the 31 words before the next
    rows = _rand_rows()
    with np.errstate(over="ignore"):
        for start in range(0, total, _BLOCK):
            n = min(_BLOCK, total - start)
            block = (rows[:n] @ window) & np.uint64(0xFFFFFFFF)
            out[start : start + n] = block
            window = np.concatenate([window, block])[-31:]
    return (out[310:] >> np.uint64(1)).astype(np.int64)


_BLOCK = 4096


_ROWS: list[np.ndarray] = []  # made once (not functools.cache: an import would move the kernels' lines)


def _rand_rows() -> np.ndarray:
    """(``_BLOCK``, 31): word ``t`` of a block as a sum of the 31 words before it, by the
    recurrence itself applied to those words as unit vectors."""
    if _ROWS:
        return _ROWS[0]
    rows = np.zeros((31 + _BLOCK, 31), dtype=np.uint64)
    rows[:31] = np.eye(31, dtype=np.uint64)
    for t in range(31, 31 + _BLOCK):
        np.add(rows[t - 31], rows[t - 3], out=rows[t])
    rows &= np.uint64(0xFFFFFFFF)
    _ROWS.append(rows[31:])
    return _ROWS[0]


def seed_input(n: int = N1) -> np.ndarray:
    """``h[i] = rand() / (float)RAND_MAX`` after ``srand(1234)``, in float32 as the C code computes it."""
    return glibc_rand(1234, n).astype(np.float32) / np.float32(2147483647)


def main(scale: int = 1) -> dict[str, np.ndarray]:
    """Launch every seed kernel as seedkernels.cu does; ``scale`` > 1 shrinks the 1M-element
    launches by that factor (for quick runs). Returns the arrays, for checking."""
    n1 = N1 // scale
    h = seed_input(n1)
    a, b = h.copy(), h.copy()
    c = np.zeros(n1, dtype=np.float32)
    mathKernel1[n1 // 64, 64](c)
    mathKernel2[n1 // 64, 64](c)
    d = a.copy()
    withDivergence[n1 // 256, 256](d, n1)
    d_sorted = np.sort(a)
    withDivergenceSorted[n1 // 256, 256](d_sorted, n1)
    e = a.copy()
    noDivergence[n1 // 256, 256](e, n1)
    vec = np.zeros(n1, dtype=np.float32)
    vecAddTail[4, 256](a, b, vec, 1000)
    saxpy = np.zeros(n1, dtype=np.float32)
    saxpyCoalesced[n1 // 256, 256](a, b, saxpy, f32(2.0), n1)
    strided = np.zeros(n1, dtype=np.float32)
    copyStrided[n1 // 256, 256](a, strided, n1, 32)
    offset = np.zeros(n1, dtype=np.float32)
    copyOffset[n1 // 256, 256](a, offset, n1, 1)
    t = T if scale == 1 else 256
    src = a[: t * t] if a.size >= t * t else np.resize(a, t * t)
    tn, t0, t1 = (np.zeros(t * t, dtype=np.float32) for _ in range(3))
    transposeNaive[(t // 32, t // 32), (32, 32)](tn, src, t, t)
    transposeShared0[(t // 32, t // 32), (32, 32)](t0, src, t, t)
    transposeShared1[(t // 32, t // 32), (32, 32)](t1, src, t, t)
    m = M if scale == 1 else 128
    A, B = np.resize(a, m * m).copy(), np.resize(b, m * m).copy()
    mn, m16, m32 = (np.zeros(m * m, dtype=np.float32) for _ in range(3))
    matmulNaive[(m // 16, m // 16), (16, 16)](A, B, mn, m)
    matmulTiled16[(m // 16, m // 16), (16, 16)](A, B, m16, m)
    matmulTiled32[(m // 32, m // 32), (32, 32)](A, B, m32, m)
    r1, r2, r3, r4 = (np.zeros(n1 // 256, dtype=np.float32) for _ in range(4))
    r5 = np.zeros(n1 // 32, dtype=np.float32)
    reduceSingleThread[n1 // 256, 256](a, r1)
    reduceInterleaved[n1 // 256, 256](a, r2)
    reduceStridedIndex[n1 // 256, 256](a, r3)
    reduceSequential[n1 // 256, 256](a, r4)
    reduceShuffle[n1 // 256, 256](a, r5)
    heavy = np.zeros(n1, dtype=np.float32)
    heavyRegisters[n1 // 256, 256](a, heavy, n1)
    big = np.zeros(n1, dtype=np.float32)
    bigShared[n1 // 256, 256, 0, 96 * 1024](a, big, n1)
    tiny = np.arange(40 * 32, dtype=np.float32)
    tinyBlocks[40, 32](tiny, 40 * 32)
    return {
        "input": a,
        "mathKernel2": c,
        "withDivergence": d,
        "withDivergence_sorted": d_sorted,
        "noDivergence": e,
        "vecAddTail": vec,
        "saxpyCoalesced": saxpy,
        "copyStrided": strided,
        "copyOffset": offset,
        "transpose_src": src,
        "transposeNaive": tn,
        "transposeShared<0>": t0,
        "transposeShared<1>": t1,
        "A": A,
        "B": B,
        "matmulNaive": mn,
        "matmulTiled<16, 0>": m16,
        "matmulTiled<32, 1>": m32,
        "reduceSingleThread": r1,
        "reduceInterleaved": r2,
        "reduceStridedIndex": r3,
        "reduceSequential": r4,
        "reduceShuffle": r5,
        "heavyRegisters": heavy,
        "bigShared": big,
        "tinyBlocks": tiny,
    }
