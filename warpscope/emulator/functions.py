"""What ``@cuda.jit`` returns, as far as the compiler needs to know: device functions are
inlined where a kernel calls them; kernels cannot be called from kernels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class JitFunction:
    """A Python function decorated with ``@cuda.jit``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.py_func, self.name = fn, fn.__name__


class DeviceFunction(JitFunction):
    """``@cuda.jit(device=True)``: inlined where a kernel calls it."""

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError(f"{self.name} is a device function: call it from a kernel")
