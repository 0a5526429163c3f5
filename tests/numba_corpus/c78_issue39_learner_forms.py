"""What learners' files use that the corpus lacked (issue 39): print in a kernel, complex()
with conjugate and cmath, math's special functions, a device function returning a tuple,
while True with break, iterating a row, numpy scalar casts, Python's // and % on
negatives, cuda.random and numba types through cuda, events, cuda.gpus, cuda.reduce with a
non-arithmetic function. (np.sqrt/np.exp/np.abs/np.floor of a scalar were left out: numba-cuda
0.30.4 fails to compile them, KeyError: <ufunc 'sqrt'> in its ufunc table.)"""

import cmath
import math

import numba
import numpy as np

from warpscope.emulator import cuda
from warpscope.emulator.random import create_xoroshiro128p_states  # noqa: F401  (imports cuda.random)


@cuda.jit(device=True)
def dev_tuple(a, b):
    return (a + b, a - b)


@cuda.jit(debug=False, lineinfo=True, opt=True)
def forms(out, zs, a, b, n, states):
    i = cuda.grid(1)
    if i >= n:
        return
    x = a[i]
    s = 0.0
    s += math.isnan(x) + math.isinf(x) + math.copysign(1.0, x) + math.atan2(x, 1.0) + math.erf(x)
    s += math.gamma(1.5) + math.lgamma(2.5) + math.hypot(x, 2.0) + math.fmod(x, 0.7) + math.ceil(x)
    s += math.trunc(x) + math.radians(x) + math.degrees(x) + math.log1p(abs(x)) + math.expm1(x)
    s += math.tanh(x) + math.asinh(x) + cuda.fma(x, 2.0, 1.0) + cuda.selp(x > 0, 1.0, 2.0) + cuda.popc(i)
    z = complex(x, 1.0)
    zs[i] = z * z.conjugate() + cmath.exp(z) + cmath.sqrt(z) + cmath.log(z) + cmath.phase(z)
    p, m = dev_tuple(x, 1.0)
    s += p * m
    j = 0
    while True:
        j += 1
        if j > 3:
            break
    s += j
    row = b[i % b.shape[0]]
    for v in row:
        s += v
    s += int(x) + float(i) + (i**2) % 5 + (-i) // 3 + (-i) % 3 + i / 3 + (i >> 1) + (i << 2 & 0xF) + (i ^ 5)
    s += b.size + b.ndim + len(b) + a.shape[0]
    t = cuda.local.array((2, 2), dtype=numba.float64)
    t[0, 0] = 1.0
    t[1, 1] = 2.0
    s += t[1, 1]
    s += cuda.random.xoroshiro128p_uniform_float32(states, i)
    tile = cuda.shared.array(128, dtype=cuda.float32)
    tile[cuda.threadIdx.x] = s
    if i == 5:
        print("thread", i, "s", s, "z", z.real)
    out[i] = tile[cuda.threadIdx.x]


def bigger(a, b):
    return a if a > b else b


def main():
    n = 100
    a = np.linspace(-2, 2, n)
    b = np.arange(12.0).reshape(3, 4)
    out = np.zeros(n, dtype=np.float32)
    zs = np.zeros(n, dtype=np.complex128)
    states = cuda.random.create_xoroshiro128p_states(128, seed=9)
    start, end = cuda.event(), cuda.event()
    start.record()
    forms[4, 32](out, zs, a, b, n, states)
    end.record()
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0 and len(cuda.gpus) >= 1
    top = cuda.reduce(bigger)(out)
    total = cuda.reduce(lambda p, q: p + q)(np.arange(1000, dtype=np.int64), init=5)
    return {"out": out, "zs": zs, "top": np.float32(top), "total": np.int64(total)}
