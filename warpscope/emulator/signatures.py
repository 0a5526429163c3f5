"""Types a kernel names the way numba does: numba's type objects (``float32``, ``int32[:]``,
``types.void(...)``), signature strings (``"void(uint32[:], uint32)"``) and numpy dtypes.

numba is optional: its objects are recognised by their module and converted with numba's own
``as_dtype`` (numba is imported already when a file hands us one); strings are parsed here
(numba's parser needs numba installed), with numba's names and short forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

#: numba's scalar type names and their short forms
SCALAR_NAMES: dict[str, np.dtype] = {
    **{n: np.dtype(n) for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    **{n: np.dtype(n) for n in ("float16", "float32", "float64", "complex64", "complex128")},
    "i1": np.dtype("int8"), "i2": np.dtype("int16"), "i4": np.dtype("int32"), "i8": np.dtype("int64"),
    "u1": np.dtype("uint8"), "u2": np.dtype("uint16"), "u4": np.dtype("uint32"), "u8": np.dtype("uint64"),
    "f2": np.dtype("float16"), "f4": np.dtype("float32"), "f8": np.dtype("float64"),
    "c8": np.dtype("complex64"), "c16": np.dtype("complex128"),
    "intp": np.dtype("intp"), "uintp": np.dtype("uintp"), "intc": np.dtype("intc"),
    "uintc": np.dtype("uintc"), "boolean": np.dtype("bool"), "bool_": np.dtype("bool"),
    "b1": np.dtype("bool"), "byte": np.dtype("uint8"), "double": np.dtype("float64"),
    "float_": np.dtype("float32"), "double_": np.dtype("float64"),
}  # fmt: skip
VOID_NAMES = ("void", "none", "")


@dataclass(frozen=True)
class ArrayType:
    """An array parameter: its element type and dimensions (layout is not checked)."""

    dtype: np.dtype
    ndim: int


ParamType = np.dtype | ArrayType | None  # None: any (numba infers it at the call)


@dataclass(frozen=True)
class Signature:
    """What ``@cuda.jit(sig)`` declares: the parameters' types and the return type (None: void)."""

    args: tuple[ParamType, ...]
    returns: np.dtype | None


class SignatureError(ValueError):
    """A signature or type the emulator cannot read."""


def is_numba_type(value: Any) -> bool:
    return type(value).__module__.startswith("numba.")


def scalar_dtype(value: Any) -> np.dtype | None:
    """The numpy dtype of a numba scalar or record type, else None."""
    if not is_numba_type(value) or not _is_scalar(value):
        return None
    from numba.np.numpy_support import as_dtype  # numba is loaded: the value came from it

    return np.dtype(as_dtype(value))


def _is_scalar(value: Any) -> bool:
    return type(value).__name__ in ("Integer", "Float", "Complex", "Boolean", "Record", "NPDatetime")


def param_type(value: Any) -> ParamType:
    """A parameter's type from a numba type, a numba array type or a type string."""
    if isinstance(value, str):
        return _parse_type(value)
    if isinstance(value, (np.dtype, type)) and not is_numba_type(value):
        return np.dtype(value)
    if is_numba_type(value):
        if type(value).__name__ == "Array":
            dtype = scalar_dtype(value.dtype)
            if dtype is None:
                raise SignatureError(f"array of {value.dtype} is not supported")
            return ArrayType(dtype, int(value.ndim))
        if type(value).__name__ == "NoneType" or str(value) == "none":
            return None
        dtype = scalar_dtype(value)
        if dtype is not None:
            return dtype
    raise SignatureError(f"{value!r} is not a type the emulator knows")


def signature(value: Any) -> Signature | None:
    """A ``@cuda.jit`` first argument as a signature; None where it declares none."""
    if value is None:
        return None
    if isinstance(value, list):  # several signatures: numba compiles each; the first is used
        return signature(value[0]) if value else None
    if isinstance(value, str):
        return _parse_signature(value)
    if isinstance(value, tuple):
        return Signature(tuple(param_type(v) for v in value), None)
    if is_numba_type(value) and hasattr(value, "args") and hasattr(value, "return_type"):
        returns = param_type(value.return_type)
        if isinstance(returns, ArrayType):
            raise SignatureError("a device function returning an array is not supported")
        return Signature(tuple(param_type(a) for a in value.args), returns)
    raise SignatureError(f"{value!r} is not a signature")


_SIGNATURE = re.compile(r"^\s*(\w*)\s*\((.*)\)\s*$", re.S)
_ARRAY = re.compile(r"^(\w+)\s*\[([:,\s\d]*)\]$")


def _parse_signature(text: str) -> Signature:
    match = _SIGNATURE.match(text)
    if match is None:
        raise SignatureError(f"signature {text!r}: expected 'return_type(arg_type, ...)'")
    returns_name, args_text = match.groups()
    returns = None if returns_name in VOID_NAMES else _parse_type(returns_name)
    if isinstance(returns, ArrayType):
        raise SignatureError("a device function returning an array is not supported")
    return Signature(tuple(_parse_type(a) for a in _split_args(args_text)), returns)


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated parts (``float32[:, :]`` keeps its comma)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parse_type(text: str) -> np.dtype | ArrayType:
    text = text.strip()
    array = _ARRAY.match(text)
    name = array.group(1) if array else text
    if name not in SCALAR_NAMES:
        raise SignatureError(f"unknown type {name!r} (numba's scalar names: int32, float32, f8, ...)")
    dtype = SCALAR_NAMES[name]
    if array is None:
        return dtype
    return ArrayType(dtype, array.group(2).count(",") + 1)


def describe(t: ParamType) -> str:
    if t is None:
        return "any"
    if isinstance(t, ArrayType):
        return f"{t.dtype.name}[{', '.join([':'] * t.ndim)}]"
    return t.name
