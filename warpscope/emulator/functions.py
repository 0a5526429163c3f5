"""What ``@cuda.jit`` returns, as far as the compiler needs to know: device functions are
inlined where a kernel calls them; kernels cannot be called from kernels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator.errors import EmulatorError, users
from warpscope.emulator.signatures import ArrayType, Signature, describe


class JitFunction:
    """A Python function decorated with ``@cuda.jit`` (with its signature, if it declares one)."""

    def __init__(self, fn: Callable[..., Any], signature: Signature | None = None) -> None:
        self.py_func, self.name = fn, fn.__name__
        self.signature = signature

    def typed_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Scalars cast to the signature's types (numba converts them at the call); arrays
        checked against it (numba finds no matching definition)."""
        sig = self.signature
        if sig is None or len(args) != len(sig.args):
            return args
        out = []
        for i, (value, t) in enumerate(zip(args, sig.args)):
            if isinstance(t, ArrayType):
                if not isinstance(value, np.ndarray) or value.dtype != t.dtype or value.ndim != t.ndim:
                    got = (
                        f"{value.dtype.name}[{', '.join([':'] * value.ndim)}]"
                        if isinstance(value, np.ndarray)
                        else type(value).__name__
                    )
                    raise EmulatorError(
                        f"{self.name}: argument {i + 1} is {got}, its signature says {describe(t)} "
                        "(numba: no matching definition)"
                    )
                out.append(value)
            elif t is not None and not isinstance(value, np.ndarray):
                out.append(cast_scalar(value, t))
            else:
                out.append(value)
        return tuple(out)


def cast_scalar(value: Any, dtype: np.dtype) -> Any:
    """``value`` converted as a C cast does: integers wrap, floats round."""
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dtype)[()]


class DeviceFunction(JitFunction):
    """``@cuda.jit(device=True)``: inlined where a kernel calls it."""

    def __call__(self, *args: Any) -> Any:
        raise users(RuntimeError(f"{self.name} is a device function: call it from a kernel"))


class InnerFunction(DeviceFunction):
    """A function defined inside a kernel or device function (numba inlines such closures):
    compiled from its parent's source (``source``), the parent's variables it reads
    (``captured``) passed as extra arguments at each call."""

    def __init__(self, source: Any, captured: tuple[str, ...]) -> None:
        stand_in = _SourceOnly(source)
        super().__init__(stand_in)  # type: ignore[arg-type]
        self.captured = captured


class _SourceOnly:
    """What the compiler asks of a Python function, for one that exists only as source."""

    __defaults__ = None

    def __init__(self, source: Any) -> None:
        self.__name__ = source.name
        self.__warpscope_source__ = source
