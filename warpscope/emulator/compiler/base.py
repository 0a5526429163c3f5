"""What every part of the compiler shares: the function being compiled, its instruction
table, line numbers, errors, and dispatch of statements and expressions by node type."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from warpscope.emulator.compiler import cache
from warpscope.emulator.errors import EmulatorError, InternalError, UnsupportedError
from warpscope.emulator.instructions import Inst, InstTable, Op
from warpscope.emulator.ir import (
    NO_DEPS,
    Expr,
    Function,
    Node,
    SharedDecl,
    Stmt,
    at_line,
    deps,
    described,
    run_expr,
    with_deps,
)
from warpscope.emulator.source import function_source

#: per node type, the fields that may hold nodes with names under them (an expression's
#: context and operator never do, nor a string field: skipping them halves a walk)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset({"ctx", "op", "id", "attr", "arg", "kind", "type_comment", "name", "module"})


def nodes_under(tree: ast.AST) -> list[ast.AST]:
    """Every node under ``tree`` that may be or hold a name (``tree`` too), by a plain stack:
    ``ast.walk``'s generators cost more than the compiling around them. A name's own fields
    are not walked."""
    out: list[ast.AST] = []
    stack = [tree]
    pop, push, add = stack.pop, stack.append, out.append
    fields_of = _CHILD_FIELDS
    while stack:
        node = pop()
        add(node)
        kind = type(node)
        if kind is ast.Name:
            continue
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push(item)
            elif isinstance(value, ast.AST):
                push(value)
    return out


def read_names(expr: ast.AST) -> list[str]:
    """The names ``expr`` reads."""
    return [n.id for n in nodes_under(expr) if type(n) is ast.Name]


class CompilerBase:
    """Compiles one Python function; each concern (expressions, statements, loops) adds the
    ``expr_*`` and ``stmt_*`` methods for its node types."""

    def __init__(
        self,
        fn: Callable[..., Any],
        kernel: bool,
        shared: list[SharedDecl] | None = None,
        inlining: tuple[Any, ...] = (),
        table: InstTable | None = None,
        arg_types: tuple[Any, ...] = (),
        recursion: dict[Any, list[Any]] | None = None,
    ) -> None:
        self.fn, self.kernel = fn, kernel
        # per device function being compiled up the call chain, a cell its compiled body fills
        # (a self-recursive call runs it from there, not inlined)
        self.recursion: dict[Any, list[Any]] = {} if recursion is None else recursion
        self.src = function_source(fn)
        self.file = self.src.file
        self.shared = [] if shared is None else shared
        self.inlining = inlining + (fn,)
        # each name it looks up is recorded for the compile cache (``cache``) when it records
        self.env = cache.recorded_environment(fn, self.src.environment)
        self.locals: set[str] = set()
        self.arg_types = arg_types  # per parameter: (dtype, ndim) of an array, a scalar's type
        self.param_types: dict[str, Any] = {}  # parameters never reassigned, by name
        # names assigned once, to a compile-time object that is not a number (a thread group)
        self.constants: dict[str, Any] = {}
        self.assign_counts: dict[str, int] = {}
        # names whose value is set once (``core.register_names``): a local array indexed by
        # these alone may be register-resident
        self.register_names: frozenset[str] = frozenset()
        self.grid_sync = False  # the function synchronises the whole grid
        self.table = InstTable() if table is None else table
        self.return_deps: set[int] = set()
        self.variable_reads: dict[str, Any] = {}  # per local name, the closure that reads it
        self.single_indexes: dict[Any, Any] = {}  # per index value's closure, the index's

    def inst(
        self, node: ast.AST | int, op: Op | None, srcs: Any = NO_DEPS, n: int = 1, dst: int | None = None
    ) -> Inst:
        line = node if isinstance(node, int) else self.line(node)
        return self.table.inst(line, op, srcs, n, dst)

    def names_set_once(self, index: ast.AST) -> bool:
        """Whether every local name ``index`` reads is set once (``register_names``)."""
        once, local = self.register_names, self.locals
        return all(n in once or n not in local for n in read_names(index))

    def var(self, name: str) -> int:
        return self.table.variable(id(self), name)

    def unsupported(self, node: ast.AST, what: str) -> UnsupportedError:
        return UnsupportedError(self.file, self.line(node), f"in {self.src.name}: {what}")

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 1) + self.src.line_offset

    def block(self, stmts: list[ast.stmt]) -> list[Stmt]:
        out = []
        for s in stmts:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
                continue  # docstrings and bare constants do nothing
            if isinstance(s, ast.Pass):
                continue
            try:
                compiled = self.stmt(s)
            except EmulatorError:
                raise
            except Exception as e:  # the compiler's own bug: never the kernel's fault
                raise InternalError(self.file, self.line(s), construct(s), e) from e
            out.append(self.guarded(s, compiled))
        return out

    def guarded(self, node: ast.stmt, fn: Stmt) -> Stmt:
        """Python errors inside a statement become a fault at the kernel's own line."""
        if isinstance(node, (ast.If, ast.For, ast.While)):
            return fn  # their own statements (and their tests) report themselves
        return at_line(self.line(node), fn, node, self.file)

    def stmt(self, node: ast.stmt) -> Stmt:
        method = _handler(type(self), "stmt_", type(node))
        if method is None:
            raise self.unsupported(node, f"'{type(node).__name__}' statements are not supported in kernels")
        return method(self, node)

    def guarded_expr(self, node: ast.expr, line: int) -> Expr:
        compiled = self.expr(node)
        return with_deps(at_line(line, run_expr(compiled), node, self.file), deps(compiled))

    def expr(self, node: ast.expr) -> Node:
        method = _handler(type(self), "expr_", type(node))
        if method is None:
            raise self.unsupported(node, f"'{type(node).__name__}' expressions are not supported in kernels")
        return method(self, node)

    def compile(self) -> Function:
        """The whole function (``core.Compiler``)."""
        raise NotImplementedError


#: per (compiler class, prefix, node type): its ``stmt_*`` / ``expr_*`` method (None: none).
#: A name built per call and looked up on the instance missed CPython's attribute cache (it
#: keys on interned names) and walked the mixins' MRO each time (2-3% of a warm compile).
_HANDLERS: dict[tuple[type, str, type], Callable[..., Any] | None] = {}


def _handler(compiler: type, prefix: str, node: type) -> Callable[..., Any] | None:
    key = (compiler, prefix, node)
    try:
        return _HANDLERS[key]
    except KeyError:
        method = _HANDLERS[key] = getattr(compiler, prefix + node.__name__, None)
        return method


def construct(node: ast.AST) -> str:
    """A statement or expression as the user wrote it, one line, short: what an error names."""
    return described(node)
