"""Issue 39 (ours): numba.cuda forms the emulator learned after the first corpus by others —
math.frexp/ldexp and more math/numpy functions, integer powers, syncthreads_count/and/or,
every atomic, warp votes and shuffles, cuda.fp16, per-thread slices (``A[i, :]``, ``x[i:i+3]``),
for/while ... else, assert, float("inf"), dynamic shared memory, records, casts, host device
array calls, and CUDA ufuncs (vectorize/guvectorize with target='cuda'). Each ``case_*``
returns its arrays; main() gathers them."""

import math

import numba
import numpy as np
from numba import float32, guvectorize, int32, int64, vectorize

from warpscope.emulator import cuda


def case_math():
    @cuda.jit
    def k(x, o, e):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            o[i, 0] = math.erf(v)
            o[i, 1] = math.erfc(v)
            o[i, 2] = math.gamma(v + 1.5)
            o[i, 3] = math.lgamma(v + 1.5)
            o[i, 4] = math.hypot(v, 2.0)
            o[i, 5] = math.atan2(v, 3.0)
            o[i, 6] = math.copysign(2.0, -v)
            o[i, 7] = math.fmod(v * 7.0, 3.0)
            o[i, 8] = math.log1p(v)
            o[i, 9] = math.expm1(v)
            o[i, 10] = math.radians(v)
            o[i, 11] = math.degrees(v)
            o[i, 12] = math.trunc(v * 3.3)
            o[i, 13] = math.ceil(v * 3.3)
            o[i, 14] = math.log2(v + 1)
            o[i, 15] = math.log10(v + 1)
            o[i, 16] = math.asinh(v)
            o[i, 17] = math.pow(v, 2.5)
            m, ex = math.frexp(v * 9.0)
            o[i, 18] = m
            e[i] = ex
            o[i, 19] = math.ldexp(v, 3)

    x = np.linspace(0.1, 2, 16)
    o = np.zeros((16, 20))
    e = np.zeros(16, np.int32)
    k[1, 32](x, o, e)
    return {"math": o, "frexp_exp": e}


def case_builtins_and_powers():
    @cuda.jit
    def k(o, p):
        i = cuda.grid(1)
        a = -3.7 + i
        o[i, 0] = abs(a)
        o[i, 1] = min(a, 1.0, 2.0)
        o[i, 2] = max(a, 0.5)
        o[i, 3] = round(a)
        o[i, 4] = int(a)
        o[i, 5] = float(i) / 3
        o[i, 6] = pow(2, i)
        o[i, 7] = (i // 3) + (i % 3)
        o[i, 8] = -7 // 2 + i
        o[i, 9] = -7 % 3
        o[i, 10] = 2**-1
        o[i, 11] = 2.0**i
        p[i, 0] = i**2
        p[i, 1] = (i - 3) ** 3
        p[i, 2] = i**-1
        p[i, 3] = ~i
        p[i, 4] = i << 2 | 1
        p[i, 5] = i ^ 5

    o = np.zeros((8, 12))
    p = np.zeros((8, 6), np.int64)
    k[1, 8](o, p)
    return {"builtins": o, "int_ops": p}


def case_sync_votes():
    @cuda.jit
    def k(o):
        i = cuda.threadIdx.x
        c = cuda.syncthreads_count(1 if i % 3 == 0 else 0)
        a = cuda.syncthreads_and(1 if i < 100 else 0)
        b = cuda.syncthreads_or(1 if i == 5 else 0)
        if i == 0:
            o[0] = c
            o[1] = a
            o[2] = b

    o = np.zeros(3, np.int32)
    k[1, 64](o)
    return {"sync_votes": o}


def case_atomics():
    @cuda.jit
    def k(a, h):
        i = cuda.grid(1)
        cuda.atomic.sub(a, 0, 1)
        cuda.atomic.and_(a, 1, ~(1 << (i % 8)))
        cuda.atomic.or_(a, 2, 1 << (i % 16))
        cuda.atomic.xor(a, 3, i)
        cuda.atomic.inc(a, 4, 10)
        cuda.atomic.dec(a, 5, 100)
        cuda.atomic.max(a, 6, i)
        cuda.atomic.min(a, 7, i + 3)
        x, y = cuda.grid(2) if False else (i % 2, i % 3)
        cuda.atomic.add(h, (x, y), 1.0)

    a = np.array([100, 0xFFFF, 0, 0, 0, 50, 0, 1000], np.uint32)
    h = np.zeros((2, 3))
    k[1, 64](a, h)
    return {"atomics": a, "atomic_2d": h}


def case_warp():
    @cuda.jit
    def k(o, f):
        i = cuda.threadIdx.x
        o[i, 0] = cuda.activemask()
        o[i, 1] = cuda.ballot_sync(0xFFFFFFFF, i % 2 == 0)
        o[i, 2] = cuda.all_sync(0xFFFFFFFF, i < 64)
        o[i, 3] = cuda.any_sync(0xFFFFFFFF, i == 3)
        o[i, 4] = cuda.eq_sync(0xFFFFFFFF, i // 100)
        o[i, 5] = cuda.laneid
        o[i, 6] = cuda.warpsize
        o[i, 7] = cuda.lanemask_lt()
        o[i, 8] = cuda.match_any_sync(0xFFFFFFFF, i // 4)
        v = float(i)
        for off in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        f[i, 0] = v
        f[i, 1] = cuda.shfl_sync(0xFFFFFFFF, i * 2, 3)
        f[i, 2] = cuda.shfl_up_sync(0xFFFFFFFF, i, 1)
        f[i, 3] = cuda.shfl_xor_sync(0xFFFFFFFF, i, 1)

    o = np.zeros((32, 9), np.int64)
    f = np.zeros((32, 4))
    k[1, 32](o, f)
    return {"votes": o, "shuffles": f}


def case_bits():
    @cuda.jit
    def k(x, o):
        i = cuda.grid(1)
        v = x[i]
        o[i, 0] = cuda.popc(v)
        o[i, 1] = cuda.clz(v)
        o[i, 2] = cuda.ffs(v)
        o[i, 3] = cuda.brev(v)
        o[i, 4] = cuda.selp(v > 5, 1, 2)
        o[i, 5] = cuda.fma(2.0, 3.0, 1.0)
        o[i, 6] = cuda.cbrt(27.0)

    x = np.arange(1, 9, dtype=np.uint32)
    o = np.zeros((8, 7), np.int64)
    k[1, 8](x, o)
    return {"bits": o}


def case_fp16():
    @cuda.jit
    def k(a, b, o, c):
        i = cuda.grid(1)
        o[i, 0] = cuda.fp16.hadd(a[i], b[i])
        o[i, 1] = cuda.fp16.hsub(a[i], b[i])
        o[i, 2] = cuda.fp16.hmul(a[i], b[i])
        o[i, 3] = cuda.fp16.hdiv(a[i], b[i])
        o[i, 4] = cuda.fp16.hfma(a[i], b[i], a[i])
        o[i, 5] = cuda.fp16.hneg(a[i])
        o[i, 6] = cuda.fp16.habs(b[i])
        o[i, 7] = cuda.fp16.hmax(a[i], b[i])
        o[i, 8] = cuda.fp16.hmin(a[i], b[i])
        o[i, 9] = a[i] * a[i] + np.float16(1)
        c[i, 0] = cuda.fp16.heq(a[i], b[i])
        c[i, 1] = cuda.fp16.hlt(a[i], b[i])
        c[i, 2] = cuda.fp16.hge(a[i], b[i])

    a = np.linspace(-2, 3, 8).astype(np.float16)
    b = np.linspace(0.5, 1.5, 8).astype(np.float16)
    o = np.zeros((8, 10), np.float16)
    c = np.zeros((8, 3), np.bool_)
    k[1, 8](a, b, o, c)
    return {"fp16": o, "fp16_compare": c}


def case_slices_per_thread():
    @cuda.jit(device=True)
    def dot(u, v):
        s = 0.0
        for j in range(u.shape[0]):
            s += u[j] * v[j]
        return s

    @cuda.jit
    def k(A, x, y, w):
        i = cuda.grid(1)
        if i < A.shape[0]:
            y[i] = dot(A[i, :], x) + dot(A[i], x)
            row = A[i, 1:3]
            col = A[:, 0]
            w[i, 0] = row[0] + row[1] + row[-1] + col[A.shape[0] - 1 - i]
        if i < x.size - 2:
            win = x[i : i + 3]
            w[i, 1] = win[0] + 2 * win[1] + 3 * win[2] + win.shape[0]

    A = np.arange(20.0).reshape(5, 4)
    x = np.arange(4.0) + 1
    y = np.zeros(5)
    w = np.zeros((5, 2))
    k[1, 8](A, x, y, w)
    return {"slice_dot": y, "slice_views": w}


def case_loops_else_assert_inf():
    NEG = -np.inf

    @cuda.jit
    def k(a, o, p):
        i = cuda.grid(1)
        assert i >= 0
        found = -1
        for j in range(2, 20):
            for d in range(2, j):
                if j % d == 0:
                    break
            else:
                if j > i:
                    found = j
                    break
        n = 0
        while n < i:
            n += 2
        else:
            n += 100
        o[i] = found
        p[i, 0] = n
        m = -math.inf
        for j in range(a.size):
            m = max(m, a[j])
        p[i, 1] = m + (0 if NEG < 0 else 1) + (1 if float("inf") > m else 0)

    a = np.arange(5.0)
    o = np.zeros(8, np.int32)
    p = np.zeros((8, 2))
    k[1, 8](a, o, p)
    return {"for_else": o, "while_else_inf": p}


def case_strides_local_shared():
    @cuda.jit
    def k(a, o):
        x, y, z = cuda.grid(3)
        t = cuda.local.array((3, 3), dtype=numba.float64)
        for p in range(3):
            for q in range(3):
                t[p, q] = p * 3 + q + x
        s = cuda.shared.array(shape=(2, 3, 4), dtype=np.int32)
        if x < a.shape[0] and y < a.shape[1] and z < a.shape[2]:
            s[x, y, z] = x + y + z
        cuda.syncthreads()
        if x < a.shape[0] and y < a.shape[1] and z < a.shape[2]:
            a[x, y, z] = a.strides[0] + a.itemsize + s[1 - x, 2 - y, 3 - z] + t[1, 1] + t[2, 0]
        if x == 0 and y == 0 and z == 0:
            o[0] = a.ndim
            o[1] = a.size

    a = np.zeros((2, 3, 4))
    o = np.zeros(2, np.int64)
    k[(1, 1, 1), (2, 3, 4)](a, o)
    return {"strides_local_shared": a, "ndim_size": o}


def case_records_casts():
    dt = np.dtype([("x", np.float64), ("y", np.int32)])

    @cuda.jit
    def k(r, a, o):
        i = cuda.grid(1)
        if i < r.size:
            r[i].y = int(r[i].x * 3)
            r[i]["x"] = r[i].x + 0.5
        if i < a.size:
            o[i, 0] = float32(a[i]) / float32(3)
            o[i, 1] = int32(a[i] * 2.7)
            o[i, 2] = numba.float64(a[i]) / 3
            o[i, 3] = numba.uint8(a[i] + 250)

    rec = np.zeros(4, dtype=dt)
    rec["x"] = np.arange(4.0)
    a = np.arange(4.0)
    o = np.zeros((4, 4))
    k[1, 4](rec, a, o)
    return {"rec_x": rec["x"].copy(), "rec_y": rec["y"].copy(), "casts": o}


def case_host_api():
    h = np.arange(6.0)
    d = cuda.to_device(h)
    d2 = cuda.device_array(shape=(6,), dtype=np.float64)
    d2.copy_to_device(h * 2)
    p = cuda.pinned_array_like(h)
    p[:] = h + 1
    s = cuda.stream()
    with s.auto_synchronize():
        d3 = cuda.to_device(p, stream=s)

    @cuda.jit
    def k(a, b, c):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * 2 + b[i] + c[i]

    k[1, 8, s](d, d2, d3)
    ks = k.specialize(d, d2, d3)
    ks[1, 8](d, d2, d3)
    s.synchronize()
    return {"host_api": d.copy_to_host(), "view": d.reshape(2, 3).copy_to_host()}


def case_ufuncs():
    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def add(x, y):
        return x + y

    @vectorize(["int64(int64, int64)"], target="cuda")
    def iadd(x, y):
        return x + y

    @guvectorize([(int64[:], int64, int64[:])], "(n),()->(n)", target="cuda")
    def g(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y

    @guvectorize(["void(float32[:], float32[:])"], "(n)->()", target="cuda")
    def total(x, out):
        s = 0
        for i in range(x.shape[0]):
            s += x[i]
        out[0] = s

    a = np.arange(10, dtype=np.float32)
    d = cuda.to_device(np.linspace(0, 2, 9))
    o = cuda.device_array(9)
    add(d, d, out=o)
    return {
        "vec": add(a, a),
        "vec_2d_scalar": add(np.arange(6.0).reshape(2, 3), 1.5),
        "vec_device_out": o.copy_to_host(),
        "vec_reduce": np.array([iadd.reduce(np.arange(1, 102, dtype=np.int64))]),
        "guvec": g(np.arange(12, dtype=np.int64).reshape(3, 4), np.int64(2)),
        "guvec_sum": total(np.arange(12, dtype=np.float32).reshape(4, 3)),
    }


def main():
    out = {}
    for name, fn in sorted(globals().items()):
        if name.startswith("case_"):
            out.update(fn())
    return out
