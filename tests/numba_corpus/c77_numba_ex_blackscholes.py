# SPDX-FileCopyrightText: Copyright (c) 2012, Anaconda, Inc. and others. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba's examples/blackscholes/blackscholes_cuda.py: Black-Scholes option pricing, a device
function with an early-exit-free polynomial and a conditional, a kernel eagerly compiled from
``"(double[:], double[:], double[:], double[:], double[:], double, double)"``, stream launches.
Source: numba/numba examples/blackscholes/blackscholes_cuda.py (commit 0ef4f16), BSD-2-Clause.
Harness only: OPT_N 4000000 -> 5000, iterations 10 -> 2, the CPU (numpy/numba) versions and
timing removed, seeded inputs, ``d_x.to_host(stream)`` written ``d_x.copy_to_host(x, stream)``."""

import math

import numpy as np

from warpscope.emulator import cuda

RISKFREE = 0.02
VOLATILITY = 0.30


@cuda.jit(device=True)
def cnd_cuda(d):
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = RSQRT2PI * math.exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


@cuda.jit("(double[:], double[:], double[:], double[:], double[:], double, double)")
def black_scholes_cuda(callResult, putResult, S, X, T, R, V):
    #    S = stockPrice
    #    X = optionStrike
    #    T = optionYears
    #    R = Riskfree
    #    V = Volatility
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)

    expRT = math.exp((-1.0 * R) * T[i])
    callResult[i] = S[i] * cndd1 - X[i] * expRT * cndd2
    putResult[i] = X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1)


def randfloat(rand_var, low, high):
    return (1.0 - rand_var) * low + rand_var * high


def main():
    OPT_N = 5000
    iterations = 2
    rng = np.random.default_rng(2)
    stockPrice = randfloat(rng.random(OPT_N), 5.0, 30.0)
    optionStrike = randfloat(rng.random(OPT_N), 1.0, 100.0)
    optionYears = randfloat(rng.random(OPT_N), 0.25, 10.0)
    callResultCuda = np.zeros(OPT_N)
    putResultCuda = -np.ones(OPT_N)
    blockdim = 1024, 1
    griddim = int(math.ceil(float(OPT_N) / blockdim[0])), 1  # noqa: RUF046
    stream = cuda.stream()
    d_callResult = cuda.to_device(callResultCuda, stream)
    d_putResult = cuda.to_device(putResultCuda, stream)
    d_stockPrice = cuda.to_device(stockPrice, stream)
    d_optionStrike = cuda.to_device(optionStrike, stream)
    d_optionYears = cuda.to_device(optionYears, stream)
    for _ in range(iterations):
        black_scholes_cuda[griddim, blockdim, stream](
            d_callResult, d_putResult, d_stockPrice, d_optionStrike, d_optionYears, RISKFREE, VOLATILITY
        )
        d_callResult.copy_to_host(callResultCuda, stream)
        d_putResult.copy_to_host(putResultCuda, stream)
        stream.synchronize()
    return {"call": callResultCuda, "put": putResultCuda}
