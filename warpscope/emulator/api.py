"""``from warpscope.emulator import cuda``: the numba.cuda names a kernel file uses.

Inside a kernel these names are never called as Python: the compiler recognises them
by identity and emits the warp-wide operation (``intrinsics``). Called from host code
they either do what numba does on the host (``to_device``, ``device_array``,
``synchronize``) or say they only exist inside kernels.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import numpy as np


def _kernel_only(name: str) -> Callable[..., Any]:
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"cuda.{name} can only be used inside a @cuda.jit kernel")
    stub.__name__ = stub.__qualname__ = name
    return stub


class Dim3Index:
    """``cuda.threadIdx`` and friends; ``.x/.y/.z`` are read per lane by the compiler."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"cuda.{self.name}"


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


def device_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C",
                 stream: Any = 0) -> DeviceArray:
    return np.zeros(shape, dtype=dtype, order=order).view(DeviceArray)  # type: ignore[call-overload]


def device_array_like(ary: np.ndarray, stream: Any = 0) -> DeviceArray:
    return np.zeros_like(ary).view(DeviceArray)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C") -> np.ndarray:
    return np.zeros(shape, dtype=dtype, order=order)  # type: ignore[call-overload]


def synchronize() -> None:
    """Launches run to completion when called: nothing to wait for."""


_INTRINSICS = (
    "grid", "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
    "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "ballot_sync",
    "all_sync", "any_sync", "activemask", "lanemask_lt", "threadfence", "threadfence_block",
    "threadfence_system", "popc", "clz", "ffs", "brev", "fma", "selp",
)


class _CudaModule(SimpleNamespace):
    """The namespace ``cuda`` (a module-like object)."""

    def __repr__(self) -> str:
        return "<warpscope.emulator.cuda>"


def _build() -> _CudaModule:
    from warpscope.emulator.kernel import jit

    cuda = _CudaModule(
        jit=jit, to_device=to_device, device_array=device_array, device_array_like=device_array_like,
        pinned_array=pinned_array, synchronize=synchronize,
        threadIdx=Dim3Index("threadIdx"), blockIdx=Dim3Index("blockIdx"),
        blockDim=Dim3Index("blockDim"), gridDim=Dim3Index("gridDim"),
        laneid=Dim3Index("laneid"), warpsize=32,
        shared=SimpleNamespace(array=_kernel_only("shared.array")),
        local=SimpleNamespace(array=_kernel_only("local.array")),
        const=SimpleNamespace(array_like=_kernel_only("const.array_like")),
        atomic=SimpleNamespace(**{op: _kernel_only(f"atomic.{op}") for op in
                                  ("add", "sub", "max", "min", "exch", "cas", "and_", "or_", "xor")}),
        **{name: _kernel_only(name) for name in _INTRINSICS},
    )
    return cuda


cuda = _build()
