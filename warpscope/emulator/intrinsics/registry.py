"""The table of intrinsics: what each callable a kernel may name compiles to.

Each family module (``elementwise``, ``bits``, ``allocation``, ``indexing``, ``sync``,
``warp``, ``atomics``, ``python_builtins``) registers a *builder* for the objects it
implements: ``builder(compiler, call_node, compiled_args, line)`` returns the call's
``Const`` or warp-wide closure. The compiler reads the table through ``call`` and
``is_known``; it knows nothing of the families.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.device_api import CudaNamespace, Dim3Index
from warpscope.emulator.functions import JitFunction
from warpscope.emulator.ir import Compiling, Const, Node, deps

Builder = Callable[[Compiling, ast.Call, list[Any], int], Node]

#: builder by the object a kernel calls (``device.shfl_sync``, ``math.sqrt``, ``min``...)
BUILDERS: dict[Any, Builder] = {}
#: builder makers for values known by their type (a numpy dtype casts, a ufunc is elementwise)
BY_TYPE: list[tuple[type, Callable[[Any], Builder]]] = []
#: callables that take keyword arguments (numba's names for them)
KEYWORDS_OK: set[Any] = set()


def register(*fns: Any, keywords: bool = False) -> Callable[[Builder], Builder]:
    """Decorator: ``builder`` compiles calls of each of ``fns``."""

    def add(builder: Builder) -> Builder:
        for fn in fns:
            BUILDERS[fn] = builder
            if keywords:
                KEYWORDS_OK.add(fn)
        return builder

    return add


def call(c: Compiling, node: ast.Call, fn: Any) -> Node:
    """The closure for a call of ``fn``, a value known at compile time."""
    if node.keywords and not (_hashable(fn) and fn in KEYWORDS_OK):
        raise c.unsupported(node, f"keyword arguments are not supported for {name_of(fn)}")
    if fn is float and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
        text = node.args[0].value
        if isinstance(text, str):  # float("inf"), float("nan"): numba folds the literal
            try:
                return Const(np.float64(float(text)))
            except ValueError:
                raise c.unsupported(node, f"float({text!r}) is not a number") from None
    if fn is print:  # numba-cuda's print takes string literals among its arguments
        args = [
            Const(a.value) if isinstance(a, ast.Constant) and isinstance(a.value, str) else c.expr(a)
            for a in node.args
        ]
    else:
        args = [c.expr(a) for a in node.args]
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise c.unsupported(node, "*args in calls is not supported")
    builder = BUILDERS.get(fn) if _hashable(fn) else None
    if builder is None:
        builder = next((make(fn) for t, make in BY_TYPE if isinstance(fn, t)), None)
    if builder is None:
        raise c.unsupported(node, f"{name_of(fn)}() is not supported in kernels")
    return builder(c, node, args, c.line(node))


def is_known(value: Any) -> bool:
    """Whether a global may be named in a kernel (modules, intrinsics, device functions)."""
    if isinstance(value, (ModuleType, Dim3Index, JitFunction, CudaNamespace, np.dtype, np.ufunc)):
        return True
    if any(
        value is ns
        for ns in (
            device.shared,
            device.local,
            device.const,
            device.atomic,
            device.libdevice,
            device.fp16,
            device.cg,
        )
    ):
        return True
    if isinstance(value, device.GridGroup):
        return True
    return _hashable(value) and value in BUILDERS


# -- helpers for builders ------------------------------------------------------------------


def _hashable(fn: Any) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


def name_of(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__name__", type(fn).__name__)
    return f"{module}.{name}" if module and module not in ("builtins",) else name


def all_deps(args: list[Any]) -> frozenset[int]:
    return frozenset().union(*(deps(a) for a in args))


def const_arg(c: Compiling, node: ast.AST, value: Any, what: str) -> Any:
    if not isinstance(value, Const):
        raise c.unsupported(node, f"{what} must be known when the kernel is compiled")
    return value.value


def dtype_of(c: Compiling, node: ast.AST, value: Any) -> np.dtype:
    try:
        return np.dtype(value)
    except TypeError:
        raise c.unsupported(node, f"{value!r} is not a dtype (use np.float32, np.int32, ...)") from None


def shape_of(c: Compiling, node: ast.AST, value: Any) -> tuple[int, ...]:
    shape = value if isinstance(value, tuple) else (value,)
    if not all(np.ndim(d) == 0 and np.issubdtype(np.asarray(d).dtype, np.integer) for d in shape):
        raise c.unsupported(node, "array shapes must be integers known when the kernel is compiled")
    return tuple(int(d) for d in shape)


def arguments(
    c: Compiling,
    node: ast.Call,
    args: list[Any],
    names: tuple[str, ...],
    defaults: dict[str, Any] | None = None,
) -> list[Any]:
    """Positional and keyword arguments in ``names`` order (numba's keyword names)."""
    given = dict(zip(names, args))
    for kw in node.keywords:
        if kw.arg not in names or kw.arg in given:
            raise c.unsupported(node, f"unexpected keyword argument '{kw.arg}'")
        given[kw.arg] = c.expr(kw.value)
    for name, value in (defaults or {}).items():
        given.setdefault(name, Const(value))
    missing = [n for n in names if n not in given]
    if missing or len(args) > len(names):
        raise c.unsupported(node, f"expected arguments ({', '.join(names)})")
    return [given[n] for n in names]
