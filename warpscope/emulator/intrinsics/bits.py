"""Bit intrinsics: ``cuda.popc``, ``cuda.clz``, ``cuda.ffs``, ``cuda.brev`` (lane by lane,
at the operand's own width)."""

from __future__ import annotations

from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.intrinsics.elementwise import builder
from warpscope.emulator.intrinsics.registry import BUILDERS


def _bits(x: Any) -> int:
    return np.asarray(x).dtype.itemsize * 8


def _bit_length(u: np.ndarray) -> np.ndarray:
    """Per element of ``u`` (uint64), its highest set bit's position plus one (0 for 0): every
    bit below the highest set by six shift-ors, then counted (not a numpy pass per bit)."""
    smeared = np.array(u, dtype=np.uint64)
    for shift in _SMEAR:
        smeared |= smeared >> shift
    return np.bitwise_count(smeared).astype(np.int64)


_SMEAR = tuple(np.uint64(1 << k) for k in range(6))
#: bit reversal of 64 bits: swap neighbouring bits, pairs, nibbles, bytes, halfwords, words
_SWAPS = tuple(
    (np.uint64(1 << k), np.uint64(m))
    for k, m in enumerate(
        (
            0x5555555555555555,
            0x3333333333333333,
            0x0F0F0F0F0F0F0F0F,
            0x00FF00FF00FF00FF,
            0x0000FFFF0000FFFF,
            0x00000000FFFFFFFF,
        )
    )
)


def clz_bits(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << n) - 1)
    out = n - _bit_length(u)
    return out if np.ndim(x) else np.int64(out)


def ffs_bits(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << n) - 1)
    low = u & (~u + np.uint64(1))
    out = _bit_length(low)
    return out if np.ndim(x) else np.int64(out)


def brev_bits(x: Any) -> Any:
    n = _bits(x)
    u = np.array(x).astype(np.uint64)
    for shift, mask in _SWAPS:
        u = ((u >> shift) & mask) | ((u & mask) << shift)
    out = np.asarray(u >> np.uint64(64 - n), dtype=np.uint64)  # the low n bits, reversed
    return out.astype(np.asarray(x).dtype) if np.ndim(x) else np.asarray(x).dtype.type(out)


def popc_bits(x: Any) -> Any:
    """Set bits at the operand's own width (a negative int16 has 16 bits to count, not its
    magnitude's, which is what numpy's bitwise_count counts)."""
    a = np.asarray(x)
    if a.dtype.kind == "i":
        a = a.view(a.dtype.str.replace("i", "u"))
    out = np.bitwise_count(a).astype(np.int64)
    return out if np.ndim(x) else np.int64(out)


BUILDERS[device.popc] = builder(popc_bits)
BUILDERS[device.clz] = builder(clz_bits)
BUILDERS[device.ffs] = builder(ffs_bits)
BUILDERS[device.brev] = builder(brev_bits)
