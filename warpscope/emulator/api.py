"""``from warpscope.emulator import cuda``: the numba.cuda names a kernel file uses.

The names used inside kernels come from ``device_api`` (the compiler recognises them by
identity); the host functions here do what numba does on the host (``to_device``,
``device_array``, ``synchronize``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from warpscope.emulator import device_api
from warpscope.emulator.device_api import CudaNamespace
from warpscope.emulator.kernel import jit


class DeviceArray(np.ndarray):
    """What ``cuda.to_device`` returns: a numpy array (the emulator's global memory)."""

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        host = np.asarray(self).copy()
        if ary is not None:
            ary[...] = host
            return ary
        return host

    def copy_to_device(self, ary: np.ndarray, stream: Any = 0) -> None:
        self[...] = ary


def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: Any = None) -> DeviceArray:
    if to is not None:
        to[...] = obj
        return to
    return np.array(obj, copy=True).view(DeviceArray)


def device_array(
    shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C", stream: Any = 0
) -> DeviceArray:
    return np.zeros(shape, dtype=dtype, order=order).view(DeviceArray)  # type: ignore[call-overload]


def device_array_like(ary: np.ndarray, stream: Any = 0) -> DeviceArray:
    return np.zeros_like(ary).view(DeviceArray)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C") -> np.ndarray:
    return np.zeros(shape, dtype=dtype, order=order)  # type: ignore[call-overload]


def synchronize() -> None:
    """Launches run to completion when called: nothing to wait for."""


def _build() -> CudaNamespace:
    return CudaNamespace(
        **device_api.NAMES,
        jit=jit,
        to_device=to_device,
        device_array=device_array,
        device_array_like=device_array_like,
        pinned_array=pinned_array,
        synchronize=synchronize,
    )


cuda = _build()
