"""``numba.cuda.random`` for the emulator: xoroshiro128+ generators, one state per thread.

The same algorithm and state layout as numba's (a state is a record of two uint64, seeded by
SplitMix64, generator ``i`` is generator ``i - 1`` jumped 2**64 steps ahead), so a kernel draws
the same numbers here as on a GPU. The device functions are emulator device functions: a
draw reads and writes its thread's state in global memory, and is counted as such.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from warpscope.emulator.api import DeviceArray, cuda

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK64 = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


# -- host: seeding and jumping ---------------------------------------------------------------
# The jump is linear over GF(2) on the 128-bit state, so generator i is J**i applied to the
# seeded state: the states are built by doubling (the first 2**k states, each jumped 2**k times,
# give the next 2**k), every step one vectorised 128-term XOR over the states so far.


def _splitmix64(seed: int) -> int:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _rotl64(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _MASK64


def _next(s0: int, s1: int) -> tuple[int, int]:
    s1 ^= s0
    return _rotl64(s0, 55) ^ s1 ^ ((s1 << 14) & _MASK64), _rotl64(s1, 36)


def _jump(s0: int, s1: int) -> tuple[int, int]:
    """The state 2**64 draws ahead (the reference for ``_jump_matrix``)."""
    j0 = j1 = 0
    for word in _JUMP:
        for b in range(64):
            if word >> b & 1:
                j0 ^= s0
                j1 ^= s1
            s0, s1 = _next(s0, s1)
    return j0, j1


def _jump_matrix() -> np.ndarray:
    """The jump as a (128, 2) uint64 matrix: row b is the jump of the state with only bit b
    set (bits 0-63 in s0, 64-127 in s1); ``_jump`` run on the 128 basis states at once."""
    bits = np.uint64(1) << np.arange(64, dtype=np.uint64)
    zero = np.zeros(64, dtype=np.uint64)
    s0, s1 = np.concatenate([bits, zero]), np.concatenate([zero, bits])
    j0, j1 = np.zeros(128, dtype=np.uint64), np.zeros(128, dtype=np.uint64)
    for word in _JUMP:
        for b in range(64):
            if word >> b & 1:
                j0 ^= s0
                j1 ^= s1
            s1 = s1 ^ s0
            s0 = _rotl_array(s0, 55) ^ s1 ^ (s1 << np.uint64(14))
            s1 = _rotl_array(s1, 36)
    return np.stack([j0, j1], axis=1)


def _rotl_array(x: np.ndarray, k: int) -> np.ndarray:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


_POWERS: list[tuple[np.ndarray, np.ndarray]] = []  # J**(2**k) as (matrix, byte tables), as needed
_ONE = np.uint64(1)


def _tables(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` as 16 tables of 256 (s0, s1) rows: table p, entry v, is the XOR of the rows
    of the bits set in ``v`` as the state's byte p."""
    tables = np.zeros((16, 256, 2), dtype=np.uint64)
    for p in range(16):
        for j in range(8):
            tables[p, 1 << j : 2 << j] = tables[p, : 1 << j] ^ matrix[8 * p + j]
    return tables


def _apply(tables: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The matrix of ``tables`` applied to each (s0, s1) row of ``states`` ((n, 2) uint64)."""
    octets = np.ascontiguousarray(states, dtype="<u8").view(np.uint8).reshape(-1, 16)
    out = tables[0][octets[:, 0]]
    for p in range(1, 16):
        out ^= tables[p][octets[:, p]]
    return out


def _power(k: int) -> np.ndarray:
    """The byte tables of J**(2**k)."""
    while len(_POWERS) <= k:
        if _POWERS:
            matrix, tables = _POWERS[-1]
            matrix = _apply(tables, matrix)
        else:
            matrix = _jump_matrix()
        _POWERS.append((matrix, _tables(matrix)))
    return _POWERS[k][1]


def init_xoroshiro128p_states(
    states: np.ndarray, seed: int, subsequence_start: int = 0, stream: Any = 0
) -> None:
    """Seed ``states`` so that generator ``i`` starts 2**64 * (subsequence_start + i) draws in."""
    n = states.shape[0]
    if n < 1:
        return
    s = _splitmix64(int(seed) & _MASK64)
    out = np.array([[s, s]], dtype=np.uint64)
    start, k = int(subsequence_start), 0
    while start:
        if start & 1:
            out = _apply(_power(k), out)
        start >>= 1
        k += 1
    k = 0
    while out.shape[0] < n:
        out = np.concatenate([out, _apply(_power(k), out[: n - out.shape[0]])])
        k += 1
    states["s0"] = out[:, 0]
    states["s1"] = out[:, 1]


def create_xoroshiro128p_states(
    n: int, seed: int, subsequence_start: int = 0, stream: Any = 0
) -> DeviceArray:
    """A device array of ``n`` seeded generator states (numba's ``create_xoroshiro128p_states``)."""
    states = cuda.device_array(n, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(states, seed, subsequence_start)
    return states


# -- device: emulated like any device function ----------------------------------------------


@cuda.jit(device=True)
def _rotl(x, k):
    return (x << k) | (x >> (64 - k))


@cuda.jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of ``states[index]``, which advances."""
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = _rotl(s0, np.uint64(55)) ^ s1 ^ (s1 << np.uint64(14))
    states[index]["s1"] = _rotl(s1, np.uint64(36))
    return result


@cuda.jit(device=True)
def uint64_to_unit_float64(x):
    return (x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@cuda.jit(device=True)
def uint64_to_unit_float32(x):
    return np.float32(uint64_to_unit_float64(x))


@cuda.jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 in [0, 1) from ``states[index]``."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


@cuda.jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0, 1) from ``states[index]``."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


@cuda.jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A standard normal float32 (Box-Muller on two uniform draws; the second value is dropped)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(np.float32(-2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)


@cuda.jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A standard normal float64 (Box-Muller on two uniform draws; the second value is dropped)."""
    u1 = xoroshiro128p_uniform_float64(states, index)
    u2 = xoroshiro128p_uniform_float64(states, index)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


@cuda.jit(device=True)
def xoroshiro128p_jump(states, index):
    """Advance ``states[index]`` by 2**64 draws."""
    s0 = np.uint64(0)
    s1 = np.uint64(0)
    for word in range(2):
        jump = np.uint64(0xBEAC0467EBA5FACB) if word == 0 else np.uint64(0xD86B048B86AA9922)
        for b in range(64):
            if (jump >> np.uint64(b)) & np.uint64(1):
                s0 ^= states[index]["s0"]
                s1 ^= states[index]["s1"]
            xoroshiro128p_next(states, index)
    states[index]["s0"] = s0
    states[index]["s1"] = s1
