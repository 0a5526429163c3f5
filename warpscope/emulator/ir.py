"""The compiled form of a kernel: closures over (run, frame, mask), constants, and what the
compiler, the intrinsics and the launcher share about them.

An expression compiles to a ``Const`` (known at compile time) or an ``Expr`` closure that
computes one value per lane of a chunk (a numpy array, or one numpy scalar when all lanes
agree); a statement compiles to a ``Stmt`` closure that takes the active mask and returns
the lanes that go on. ``Compiling`` is what an intrinsic may ask of the compiler.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from warpscope.emulator import arrays
from warpscope.emulator.errors import (
    EmulatorError,
    InternalError,
    KernelMistake,
    NotEmulated,
    UnsupportedError,
)
from warpscope.emulator.instructions import Inst, InstTable, Op
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask

Expr = Callable[[Run, Frame, Mask], Any]
Stmt = Callable[[Run, Frame, Mask], "Mask | None"]


@dataclass(frozen=True)
class Const:
    """A value known when the kernel is compiled (literals, globals, folded expressions)."""

    value: Any


Node = Any  # Const | Expr
NO_DEPS: frozenset[int] = frozenset()


def deps(node: Node) -> frozenset[int]:
    """The value slots a node's value waits on (the timing model's register dependencies)."""
    return getattr(node, "deps", NO_DEPS)


def with_deps(fn: Any, slots: frozenset[int] | set[int]) -> Any:
    fn.deps = frozenset(slots)
    return fn


def scalar(value: Any) -> Any:
    """A Python number as the numpy scalar numba would type it (int64, float64, bool)."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        if -(1 << 63) <= value < (1 << 63):
            return np.int64(value)
        if 0 <= value < (1 << 64):
            return np.uint64(value)
        raise OverflowError(f"integer {value} does not fit 64 bits")
    if isinstance(value, float):
        return np.float64(value)
    if isinstance(value, complex):
        return np.complex128(value)
    if isinstance(value, tuple):
        return tuple(scalar(v) for v in value)
    return value


def run_expr(node: Node) -> Expr:
    """A closure for a node, constants included (a numpy scalar's one closure shared: a
    kernel's trees then hold and load one per distinct constant, not one per use)."""
    if not isinstance(node, Const):
        return node
    value = node.value
    key = (type(value), value.dtype, value.tobytes()) if isinstance(value, np.generic) else None
    if key is not None:
        known = _CONSTANTS.get(key)
        if known is not None:
            return known

    def constant(run: Run, frame: Frame, mask: Mask) -> Any:
        return value

    constant.gen = lambda g: g.ref(value)  # type: ignore[attr-defined]  # compiler.codegen
    if key is not None:
        if len(_CONSTANTS) >= CONSTANTS_KEPT:
            _CONSTANTS.clear()
        _CONSTANTS[key] = constant
    return constant


#: ``run_expr``'s closures of numpy scalars, by type, dtype (records of one type differ in it)
#: and bytes (not by value: -0.0 == 0.0, and nan is not nan)
_CONSTANTS: dict[tuple[type, np.dtype, bytes], Expr] = {}
CONSTANTS_KEPT = 4096


@dataclass
class SharedDecl:
    """A ``cuda.shared.array`` call site: its place in the block's shared memory."""

    shape: tuple[int, ...]
    dtype: np.dtype
    offset: int
    dynamic: bool
    line: int = 0


@dataclass
class Function:
    """A compiled kernel or device function."""

    name: str
    file: str
    params: list[str]
    body: list[Stmt]
    lines: dict[int, str]
    shared: list[SharedDecl] = field(default_factory=list)
    table: InstTable = field(default_factory=InstTable)
    param_slots: list[int] = field(default_factory=list)
    return_deps: frozenset[int] = NO_DEPS
    grid_sync: bool = False  # it synchronises the whole grid (a cooperative launch)
    defaults: tuple[Any, ...] = ()  # values of the last parameters where a call omits them

    @property
    def static_shared_bytes(self) -> int:
        return static_shared_end(self.shared)


def static_shared_end(decls: list[SharedDecl]) -> int:
    """Bytes of a block's static shared arrays, as laid out so far."""
    return max(
        (d.offset + int(np.prod(d.shape)) * d.dtype.itemsize for d in decls if not d.dynamic), default=0
    )


def exec_block(body: list[Stmt], run: Run, frame: Frame, mask: Mask) -> Mask | None:
    for stmt in body:
        out = stmt(run, frame, mask)
        if out is None:
            return None
        mask = out
    return mask


def at_line(line: int, fn: Expr, construct: str | ast.AST = "", file: str = "") -> Expr:
    """``fn`` with its errors reported at ``line``: an out-of-bounds access or the kernel's own
    mistake as a kernel fault, a construct found unsupported as it runs as unsupported, and any
    other Python exception as warpscope's internal error (never as the kernel's fault).
    ``construct``: what the internal error names, or the node to write it from (only then:
    unparsing every statement was a third of compiling)."""

    at = (line, construct, file)  # (one cell: a smaller tree for the compile cache to load)

    def at_line(run: Run, frame: Frame, mask: Mask) -> Any:
        try:
            return fn(run, frame, mask)
        except EmulatorError:
            raise
        except Exception as e:
            raise fault_at(run, mask, e, *at)  # noqa: B904 (fault_at chains it)

    at_line.inner = fn  # type: ignore[attr-defined]  # what generated code runs under its own guard
    at_line.at = at  # type: ignore[attr-defined]
    return at_line


def fault_at(
    run: Run, mask: Mask, e: Exception, line: int, construct: str | ast.AST = "", file: str = ""
) -> BaseException:
    """The error ``at_line`` raises for ``e`` (not an ``EmulatorError``), chained as it chains
    it; generated code (``compiler.codegen``) raises the same for the statement it was at."""
    if isinstance(e, arrays.OutOfBounds):
        error: BaseException = run.out_of_bounds(line, e)
    elif isinstance(e, KernelMistake):
        error = run.fault(line, f"{e.kind}: {e}", mask)
    elif isinstance(e, NotEmulated):
        error = UnsupportedError(file or run.file, line, f"in {run.kernel}: {e}")
    else:
        text = construct if isinstance(construct, str) else described(construct)
        error = InternalError(file or run.file, line, text or "this line", e)
    # as ``raise error from e`` for warpscope's own error, ``from None`` for the kernel's
    error.__cause__ = e if isinstance(error, InternalError) else None
    error.__suppress_context__ = True
    return error


def described(node: ast.AST) -> str:
    """A statement or expression as the user wrote it, one line, short: what an error names."""
    text = (
        ast.unparse(node).splitlines()[0] if isinstance(node, (ast.stmt, ast.expr)) else type(node).__name__
    )
    return text if len(text) <= 60 else text[:57] + "..."


def truth(value: Any) -> Any:
    """A condition as booleans: one per lane, or one for all."""
    return value.astype(bool, copy=False) if np.ndim(value) else np.bool_(value)


class Compiling(Protocol):
    """What an intrinsic's builder may ask of the compiler compiling the call."""

    shared: list[SharedDecl]
    table: InstTable
    grid_sync: bool

    def expr(self, node: ast.expr) -> Node: ...

    def inst(
        self, node: ast.AST | int, op: Op | None, srcs: Any = ..., n: int = 1, dst: int | None = None
    ) -> Inst: ...

    def line(self, node: ast.AST) -> int: ...

    def unsupported(self, node: ast.AST, what: str) -> UnsupportedError: ...
