"""Issue 39: numba.cuda semantics, run as numba-cuda runs them (``numba`` argument, on a GPU)
or under warpscope's emulator; prints each case's result or error."""

import sys

import numpy as np

if len(sys.argv) > 1 and sys.argv[1] == "numba":
    np.row_stack = getattr(np, "row_stack", np.vstack)  # numba-cuda on numpy >= 2.5
    import numba
    from numba import cuda
else:
    import numba

    from warpscope.emulator import cuda

R = {}


def case(name):
    def deco(f):
        try:
            R[name] = f()
        except Exception as e:
            R[name] = "ERR " + type(e).__name__ + ": " + str(e).splitlines()[0][:200]
        return f

    return deco


@case("for_zip")
def _():
    @cuda.jit
    def k(out, a, b):
        i = cuda.grid(1)
        if i == 0:
            t = 0.0
            for x, y in zip(a, b):
                t += x * y
            out[0] = t

    a = np.arange(5.0)
    b = np.arange(5.0) + 1
    out = np.zeros(1)
    k[1, 32](out, a, b)
    return out.tolist()


@case("for_enumerate")
def _():
    @cuda.jit
    def k(out, a):
        i = cuda.grid(1)
        if i == 0:
            t = 0.0
            for j, x in enumerate(a):
                t += j * x
            out[0] = t

    a = np.arange(5.0)
    out = np.zeros(1)
    k[1, 32](out, a)
    return out.tolist()


@case("for_array")
def _():
    @cuda.jit
    def k(out, a):
        i = cuda.grid(1)
        t = 0.0
        for x in a:
            t += x
        out[i] = t + i

    a = np.arange(5.0)
    out = np.zeros(4)
    k[1, 4](out, a)
    return out.tolist()


@case("for_tuple")
def _():
    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        t = 0
        for s in (16, 8, 4):
            t += s * i
        out[i] = t

    out = np.zeros(4, np.int64)
    k[1, 4](out)
    return out.tolist()


@case("tuple_index")
def _():
    @cuda.jit
    def k(a):
        gid = cuda.grid(2)
        if gid[0] < a.shape[0] and gid[1] < a.shape[1]:
            a[gid] = gid[0] * 10 + gid[1]

    a = np.zeros((3, 4))
    k[(1, 1), (4, 4)](a)
    return a.tolist()


@case("njit_device")
def _():
    @numba.njit
    def sq(x):
        return x * x

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = sq(a[i])

    a = np.arange(4.0)
    k[1, 4](a)
    return a.tolist()


@case("jit_called_as_device")
def _():
    @cuda.jit
    def add1(x):
        return x + 1

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = add1(a[i])

    a = np.arange(4.0)
    k[1, 4](a)
    return a.tolist()


@case("default_args")
def _():
    @cuda.jit
    def k(a, s=2.0):
        i = cuda.grid(1)
        a[i] = a[i] * s

    a = np.arange(4.0)
    k[1, 4](a)
    return a.tolist()


@case("atomic_nanmax")
def _():
    @cuda.jit
    def k(r, v):
        i = cuda.grid(1)
        cuda.atomic.nanmax(r, 0, v[i])
        cuda.atomic.nanmin(r, 1, v[i])

    r = np.array([0.0, 100.0])
    v = np.array([1.0, np.nan, 5.0, 3.0])
    k[1, 4](r, v)
    return r.tolist()


@case("atomic_max_nan")
def _():
    @cuda.jit
    def k(r, v):
        i = cuda.grid(1)
        cuda.atomic.max(r, 0, v[i])
        cuda.atomic.min(r, 1, v[i])

    r = np.array([63.0, 100.0])
    v = np.array([1.0, np.nan, 5.0, 3.0])
    k[1, 4](r, v)
    return r.tolist()


@case("atomic_max_nan_in_array")
def _():
    @cuda.jit
    def k(r, v):
        i = cuda.grid(1)
        cuda.atomic.max(r, 0, v[i])

    r = np.array([np.nan])
    v = np.array([1.0, 2.0, 5.0, 3.0])
    k[1, 4](r, v)
    return r.tolist()


@case("cas")
def _():
    @cuda.jit
    def k(a, old):
        i = cuda.grid(1)
        old[i] = cuda.atomic.compare_and_swap(a, 0, i + 10)
        old[i + 4] = cuda.atomic.cas(a, 1, 0, i + 20)

    a = np.array([0, 0], np.int32)
    old = np.zeros(8, np.int32)
    k[1, 4](a, old)
    return a.tolist() + sorted(old.tolist())


@case("bit_count")
def _():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = int(a[i]).bit_count()

    a = np.array([0, 1, 7, 255], np.int64)
    k[1, 4](a)
    return a.tolist()


@case("libdevice")
def _():
    from numba.cuda import libdevice

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = libdevice.sqrt(a[i]) + libdevice.fmax(a[i], 2.0)

    a = np.arange(4.0)
    k[1, 4](a)
    return a.tolist()


@case("cuda_libdevice_attr")
def _():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = cuda.libdevice.exp(a[i])

    a = np.arange(4.0)
    k[1, 4](a)
    return a.tolist()


@case("ufunc_out")
def _():
    @cuda.jit
    def k(x, r):
        np.sin(x, r)

    x = np.arange(4.0)
    r = np.zeros(4)
    k[1, 1](x, r)
    return r.tolist()


@case("get_current_device")
def _():
    d = cuda.get_current_device()
    return [d.name is not None, d.MAX_THREADS_PER_BLOCK, d.WARP_SIZE, d.MULTIPROCESSOR_COUNT > 0]


@case("forall")
def _():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = np.arange(5000.0)
    k.forall(a.size)(a)
    return float(a.sum())


G = np.arange(4.0)


@case("global_array")
def _():
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = G[i] * 2

    a = np.zeros(4)
    k[1, 4](a)
    return a.tolist()


@case("global_device_array")
def _():
    d = cuda.to_device(np.arange(4.0))

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        a[i] = d[i] * 3

    a = np.zeros(4)
    k[1, 4](a)
    return a.tolist()


for k, v in R.items():
    print(f"{k:26s} {v}")
