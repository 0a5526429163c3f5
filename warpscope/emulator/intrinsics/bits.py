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


def _bit_length(u: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(u.shape, dtype=np.int64)
    for i in range(n):
        out = np.where((u >> np.uint64(i)) & np.uint64(1), i + 1, out)
    return out


def clz_bits(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << n) - 1)
    out = n - _bit_length(u, n)
    return out if np.ndim(x) else np.int64(out)


def ffs_bits(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << n) - 1)
    low = u & (~u + np.uint64(1))
    out = _bit_length(low, n)
    return out if np.ndim(x) else np.int64(out)


def brev_bits(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64)
    out = np.zeros_like(u)
    for i in range(n):
        out |= ((u >> np.uint64(i)) & np.uint64(1)) << np.uint64(n - 1 - i)
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
