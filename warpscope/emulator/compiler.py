"""Kernel source to warp-wide closures: the SIMT functional model.

A kernel's Python AST is compiled once, at its first launch, into a tree of closures.
Each expression closure computes one value for every lane of a chunk at once (a numpy
array, or one numpy scalar when every lane has the same value); each statement closure
takes the mask of active lanes and returns the lanes that go on to the next statement.
A branch whose condition differs across active lanes runs both sides under their halves
of the mask and reconverges at the end of the ``if``; a loop runs while any lane is still
in it. Names that are not assigned in the kernel are resolved at compile time, as numba
freezes globals and closure variables.

Written here rather than taken from a library: numba's own CUDA simulator runs one
Python thread per CUDA thread (no warps, no masks, ~3K threads/s), and no maintained
package executes Python kernels warp-wide.
"""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from warpscope.emulator import arrays
from warpscope.emulator.api import Dim3Index
from warpscope.emulator.errors import EmulatorError, UnsupportedError
from warpscope.emulator.instructions import Inst, InstTable, Op, arithmetic_op
from warpscope.emulator.runtime import Frame, Loop, Run
from warpscope.emulator.simt import Mask, union

Expr = Callable[[Run, Frame, Mask], Any]
Stmt = Callable[[Run, Frame, Mask], "Mask | None"]

BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: np.logical_not, ast.Invert: operator.invert,
}


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
    """A closure for a node, constants included."""
    if isinstance(node, Const):
        value = node.value
        return lambda run, frame, mask: value
    return node


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

    @property
    def static_shared_bytes(self) -> int:
        return static_shared_end(self.shared)


def static_shared_end(decls: list[SharedDecl]) -> int:
    """Bytes of a block's static shared arrays, as laid out so far."""
    return max((d.offset + int(np.prod(d.shape)) * d.dtype.itemsize for d in decls if not d.dynamic),
               default=0)


def exec_block(body: list[Stmt], run: Run, frame: Frame, mask: Mask) -> Mask | None:
    for stmt in body:
        out = stmt(run, frame, mask)
        if out is None:
            return None
        mask = out
    return mask


class Compiler:
    """Compiles one Python function; ``device_functions`` are compiled (and inlined) on demand."""

    def __init__(self, fn: Callable[..., Any], kernel: bool, shared: list[SharedDecl] | None = None,
                 inlining: tuple[Any, ...] = (), table: InstTable | None = None) -> None:
        from warpscope.emulator.source import function_source

        self.fn, self.kernel = fn, kernel
        self.src = function_source(fn)
        self.file = self.src.file
        self.shared = [] if shared is None else shared
        self.inlining = inlining + (fn,)
        self.env = self.src.environment
        self.locals: set[str] = set()
        self.table = InstTable() if table is None else table
        self.return_deps: set[int] = set()

    def inst(self, node: ast.AST | int, op: Op | None, srcs: Any = NO_DEPS, n: int = 1,
             dst: int | None = None) -> Inst:
        line = node if isinstance(node, int) else self.line(node)
        return self.table.inst(line, op, srcs, n, dst)

    def var(self, name: str) -> int:
        return self.table.variable(id(self), name)

    # -- entry -----------------------------------------------------------------
    def compile(self) -> Function:
        tree = self.src.tree
        args = tree.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            raise self.unsupported(tree, "kernel parameters must be plain positional names "
                                         "(no defaults, *args, **kwargs or keyword-only)")
        params = [a.arg for a in args.args]
        self.locals = set(params) | _assigned_names(tree)
        body = self.block(tree.body)
        return Function(self.src.name, self.file, params, body, self.src.lines, self.shared, self.table,
                        [self.var(p) for p in params], frozenset(self.return_deps))

    def unsupported(self, node: ast.AST, what: str) -> UnsupportedError:
        return UnsupportedError(self.file, self.line(node), f"in {self.src.name}: {what}")

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 1) + self.src.line_offset

    # -- statements ---------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> list[Stmt]:
        out = []
        for s in stmts:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
                continue  # docstrings and bare constants do nothing
            if isinstance(s, ast.Pass):
                continue
            out.append(self.guarded(s, self.stmt(s)))
        return out

    def guarded(self, node: ast.stmt, fn: Stmt) -> Stmt:
        """Python errors inside a statement become a fault at the kernel's own line."""
        if isinstance(node, (ast.If, ast.For, ast.While)):
            return fn  # their own statements (and their tests) report themselves
        return _at_line(self.line(node), fn)

    def stmt(self, node: ast.stmt) -> Stmt:
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is None:
            raise self.unsupported(node, f"'{type(node).__name__}' statements are not supported in kernels")
        return method(node)

    def stmt_Expr(self, node: ast.Expr) -> Stmt:
        value = run_expr(self.expr(node.value))

        def run_expr_stmt(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            value(run, frame, mask)
            return mask
        return run_expr_stmt

    def stmt_Assign(self, node: ast.Assign) -> Stmt:
        if isinstance(node.value, ast.Call) and isinstance(node.targets[0], ast.Name):
            node.value.warpscope_target = node.targets[0].id  # type: ignore[attr-defined]
        value_node = self.expr(node.value)
        value = run_expr(value_node)
        if isinstance(value_node, Const) or isinstance(node.value, ast.Name):
            move = self.inst(node, Op.ALU, deps(value_node))  # a register move (or an immediate)
            targets = [self.target(t, frozenset({move.dst})) for t in node.targets]

            def run_move(run: Run, frame: Frame, mask: Mask) -> Mask | None:
                run.issue(move, mask)
                v = value(run, frame, mask)
                for t in targets:
                    t(run, frame, mask, v)
                return mask
            return run_move
        targets = [self.target(t, deps(value_node)) for t in node.targets]

        def run_assign(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            v = value(run, frame, mask)
            for t in targets:
                t(run, frame, mask, v)
            return mask
        return run_assign

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> Stmt:
        if node.value is None:
            return lambda run, frame, mask: mask
        return self.stmt_Assign(ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno))

    def stmt_AugAssign(self, node: ast.AugAssign) -> Stmt:
        op = BINARY.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__} is not supported")
        value_node, current_node = self.expr(node.value), self.expr(_as_load(node.target))
        value, current = run_expr(value_node), run_expr(current_node)
        inst = self.inst(node, None, deps(value_node) | deps(current_node))
        target = self.target(node.target, frozenset({inst.dst}))
        divide = isinstance(node.op, ast.Div)

        def run_aug(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            v = op(current(run, frame, mask), value(run, frame, mask))
            run.issue(inst, mask, _arith_op(v, divide))
            target(run, frame, mask, v)
            return mask
        return run_aug

    def target(self, node: ast.expr, srcs: frozenset[int] | None) -> Callable[[Run, Frame, Mask, Any], None]:
        """A closure that stores a value into an assignment target; the value waits on ``srcs``
        (None: the target's slot is written by the instruction itself, as a loop counter)."""
        if isinstance(node, ast.Name):
            name = node.id
            if srcs is None:
                def set_name(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                    frame.assign(name, value, mask)
                return set_name
            define = self.inst(node, Op.DEF, srcs, n=0, dst=self.var(name))

            def set_defined(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                frame.assign(name, value, mask)
                run.define(define, mask)
            return set_defined
        if isinstance(node, (ast.Tuple, ast.List)):
            parts = [self.target(e, srcs) for e in node.elts]

            def set_tuple(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                if not isinstance(value, tuple) or len(value) != len(parts):
                    raise TypeError(f"cannot unpack {type(value).__name__} into {len(parts)} names")
                for p, v in zip(parts, value):
                    p(run, frame, mask, v)
            return set_tuple
        if isinstance(node, ast.Subscript):
            base_node = self.expr(node.value)
            base = run_expr(base_node)
            index = self.index(node.slice)
            # a store to a register-resident local array (see _memory_op) writes the array's slot
            array_slot = self.var(node.value.id) if isinstance(node.value, ast.Name) and node.value.id in self.locals else None
            store = self.inst(node, None, deps(base_node) | deps(index) | (srcs or NO_DEPS), dst=array_slot)
            line = store.line

            def set_item(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                array, idx = _resolve(base(run, frame, mask), index(run, frame, mask))
                arrays.store(array, idx, value, mask, run.counters.site(line))
                run.issue(store, mask, _memory_op(STORE_OP, array, idx), run.memory_cost(array, idx, mask, store=True))
            return set_item
        raise self.unsupported(node, f"cannot assign to {type(node).__name__}")

    def stmt_If(self, node: ast.If) -> Stmt:
        line = self.line(node)
        test = self.guarded_expr(node.test, line)
        branch = self.inst(node, Op.BRA, deps(test))
        then, orelse = self.block(node.body), self.block(node.orelse)

        def run_if(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            cond = test(run, frame, mask)
            site = run.counters.site(line)
            run.issue(branch, mask)
            site.branches += mask.warps
            if not np.ndim(cond):
                return exec_block(then if cond else orelse, run, frame, mask)
            cond = cond.astype(bool, copy=False)
            m_then, m_else = Mask(mask.arr & cond), Mask(mask.arr & ~cond)
            site.divergent_branches += int(np.count_nonzero(m_then.warp_any & m_else.warp_any))
            if not m_else:
                return exec_block(then, run, frame, mask)
            if not m_then:
                return exec_block(orelse, run, frame, mask)
            out_then = exec_block(then, run, frame, m_then)
            out_else = exec_block(orelse, run, frame, m_else)
            if out_then is m_then and out_else is m_else:
                return mask  # everyone reconverges: keep the mask (and its counts)
            return union(out_then, out_else)
        return run_if

    def stmt_For(self, node: ast.For) -> Stmt:
        line = self.line(node)
        if node.orelse:
            raise self.unsupported(node, "for ... else is not supported")
        call = node.iter
        func = self.expr(call.func) if isinstance(call, ast.Call) else None
        if not (isinstance(call, ast.Call) and isinstance(func, Const) and func.value is builtins.range
                and not call.keywords and 1 <= len(call.args) <= 3):
            raise self.unsupported(node, "only 'for name in range(...)' loops are supported")
        if len(call.args) == 3 and isinstance(step := self.expr(call.args[2]), Const) and step.value == 0:
            raise self.unsupported(node, "range() step must not be zero")
        bounds = [self.guarded_expr(a, line) for a in call.args]
        counter_slot = self.var(node.target.id) if isinstance(node.target, ast.Name) else self.table.new_slot()
        bound_deps = frozenset().union(*(deps(b) for b in bounds))
        first = self.inst(node, Op.ALU, bound_deps, dst=counter_slot)
        test_inst = self.inst(node, Op.BRA, bound_deps | {counter_slot})
        step_inst = self.inst(node, Op.ALU, bound_deps | {counter_slot}, dst=counter_slot)
        target = self.target(node.target, None)
        body = self.block(node.body)

        def run_for(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            values = [b(run, frame, mask) for b in bounds]
            start, stop = (np.int64(0), values[0]) if len(values) == 1 else (values[0], values[1])
            step = values[2] if len(values) == 3 else np.int64(1)
            counter = [start]
            up = not np.ndim(step) and step > 0
            run.issue(first, mask)  # the counter's first value

            def test(live: Mask) -> Any:
                c = counter[0]
                if up:
                    return c < stop
                return np.where(step > 0, c < stop, c > stop) if np.ndim(step) else c > stop

            def enter(live: Mask) -> None:
                target(run, frame, live, counter[0])

            def advance() -> None:
                counter[0] = counter[0] + step
            return _loop(run, frame, mask, body, test, enter, advance, test_inst, step_inst)
        return run_for

    def stmt_While(self, node: ast.While) -> Stmt:
        line = self.line(node)
        if node.orelse:
            raise self.unsupported(node, "while ... else is not supported")
        test = self.guarded_expr(node.test, line)
        test_inst = self.inst(node, Op.BRA, deps(test))
        body = self.block(node.body)

        def run_while(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            return _loop(run, frame, mask, body, lambda live: test(run, frame, live),
                         lambda live: None, lambda: None, test_inst, None)
        return run_while

    def stmt_Break(self, node: ast.Break) -> Stmt:
        def run_break(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            loop = frame.loops[-1]
            loop.broken = union(loop.broken, mask)
            return None
        return run_break

    def stmt_Continue(self, node: ast.Continue) -> Stmt:
        def run_continue(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            loop = frame.loops[-1]
            loop.continued = union(loop.continued, mask)
            return None
        return run_continue

    def stmt_Return(self, node: ast.Return) -> Stmt:
        line = self.line(node)
        if self.kernel and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            raise self.unsupported(node, "a kernel cannot return a value (it returns void)")
        value_node = self.expr(node.value) if node.value is not None else None
        value = run_expr(value_node) if value_node is not None else None
        self.return_deps |= deps(value_node)
        ret = self.inst(line, Op.ALU if self.kernel else Op.BRA)

        def run_return(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            run.issue(ret, mask)
            if frame.kernel:
                run.end_lanes(mask)
            elif value is not None:
                v = value(run, frame, mask)
                # the first return sets every lane; later ones (other lanes) overwrite theirs
                frame.ret = v if frame.ret is None else np.where(mask.arr, v, frame.ret)
            frame.live -= mask.threads
            return None
        return run_return

    # -- expressions ----------------------------------------------------------------
    def guarded_expr(self, node: ast.expr, line: int) -> Expr:
        compiled = self.expr(node)
        return with_deps(_at_line(line, run_expr(compiled)), deps(compiled))

    def expr(self, node: ast.expr) -> Node:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.unsupported(node, f"'{type(node).__name__}' expressions are not supported in kernels")
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> Node:
        if isinstance(node.value, (str, bytes)):
            raise self.unsupported(node, "strings are not supported in kernels")
        if node.value is None or node.value is Ellipsis:
            return Const(node.value)
        return Const(scalar(node.value))

    def expr_Name(self, node: ast.Name) -> Node:
        name = node.id
        if name in self.locals:
            def get(run: Run, frame: Frame, mask: Mask) -> Any:
                try:
                    return frame.vars[name]
                except KeyError:
                    raise NameError(f"'{name}' is used before it is assigned") from None
            return with_deps(get, {self.var(name)})
        if name in self.env:
            return _lane_id_or(Const(self.global_value(node, name, self.env[name])))
        if hasattr(builtins, name):
            return Const(getattr(builtins, name))
        raise self.unsupported(node, f"name '{name}' is not defined")

    def global_value(self, node: ast.AST, name: str, value: Any) -> Any:
        from warpscope.emulator.intrinsics import is_known

        if isinstance(value, (bool, int, float, complex, np.generic)):
            return scalar(value)
        if isinstance(value, tuple) and all(isinstance(v, (bool, int, float, np.generic)) for v in value):
            return scalar(value)
        if isinstance(value, np.ndarray):
            return arrays.ConstArray(np.asarray(value), name)
        if is_known(value):
            return value
        raise self.unsupported(node, f"global '{name}' ({type(value).__name__}) cannot be used in a kernel")

    def expr_Attribute(self, node: ast.Attribute) -> Node:
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            obj = base.value
            if isinstance(obj, Dim3Index):
                from warpscope.emulator.intrinsics import dim3_component
                return dim3_component(obj.name, attr, self, node)
            if isinstance(obj, arrays.ArrayRef):
                return Const(_array_attribute(obj, attr))
            if not hasattr(obj, attr):
                raise self.unsupported(node, f"'{_describe(obj)}' has no attribute '{attr}'")
            return _lane_id_or(Const(self.global_value(node, f"{_describe(obj)}.{attr}", getattr(obj, attr))))
        if attr not in ("shape", "size", "ndim"):
            raise self.unsupported(node, f"attribute '.{attr}' is not supported on kernel values "
                                         "(arrays have .shape, .size and .ndim)")

        def get_attr(run: Run, frame: Frame, mask: Mask) -> Any:
            return _array_attribute(base(run, frame, mask), attr)
        return with_deps(get_attr, deps(base))

    def expr_BinOp(self, node: ast.BinOp) -> Node:
        op = BINARY.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__} is not supported")
        left, right = self.expr(node.left), self.expr(node.right)
        if isinstance(left, Const) and isinstance(right, Const):
            return Const(_fold(op, left.value, right.value))
        lf, rf = run_expr(left), run_expr(right)
        inst = self.inst(node, None, deps(left) | deps(right))
        divide = isinstance(node.op, ast.Div)

        def binop(run: Run, frame: Frame, mask: Mask) -> Any:
            v = op(lf(run, frame, mask), rf(run, frame, mask))
            run.issue(inst, mask, _arith_op(v, divide))
            return v
        return with_deps(binop, {inst.dst})

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Node:
        op = UNARY[type(node.op)]
        operand = self.expr(node.operand)
        if isinstance(operand, Const):
            return Const(op(operand.value))
        inst = self.inst(node, None, deps(operand))

        def unop(run: Run, frame: Frame, mask: Mask) -> Any:
            v = op(operand(run, frame, mask))
            run.issue(inst, mask, _arith_op(v, False))
            return v
        return with_deps(unop, {inst.dst})

    def expr_Compare(self, node: ast.Compare) -> Node:
        ops = []
        for o in node.ops:
            fn = COMPARE.get(type(o))
            if fn is None:
                raise self.unsupported(node, f"comparison {type(o).__name__} is not supported")
            ops.append(fn)
        parts = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        if all(isinstance(p, Const) for p in parts):
            vals = [p.value for p in parts]
            return Const(np.bool_(all(op(a, b) for op, a, b in zip(ops, vals, vals[1:]))))
        fns = [run_expr(p) for p in parts]
        inst = self.inst(node, Op.ALU, frozenset().union(*(deps(p) for p in parts)), n=len(ops))

        def compare(run: Run, frame: Frame, mask: Mask) -> Any:
            vals = [f(run, frame, mask) for f in fns]
            result = ops[0](vals[0], vals[1])
            for op, a, b in zip(ops[1:], vals[1:], vals[2:]):
                result = result & op(a, b)
            run.issue(inst, mask)
            return result
        return with_deps(compare, {inst.dst})

    def expr_BoolOp(self, node: ast.BoolOp) -> Node:
        is_and = isinstance(node.op, ast.And)
        nodes = [self.expr(v) for v in node.values]
        fns = [run_expr(v) for v in nodes]
        inst = self.inst(node, Op.ALU, frozenset().union(*(deps(v) for v in nodes)))

        def boolop(run: Run, frame: Frame, mask: Mask) -> Any:
            # Short-circuit per lane: later operands run only on lanes still undecided,
            # so `i < n and a[i] > 0` never reads a[i] out of bounds.
            result = _truth(fns[0](run, frame, mask))
            for f in fns[1:]:
                pending = result if is_and else np.logical_not(result)
                if not np.ndim(pending):
                    if not pending:
                        break
                    result = _truth(f(run, frame, mask))
                    continue
                sub = mask.both(pending)
                if not sub:
                    continue
                value = _truth(f(run, frame, sub))
                result = np.where(sub.arr, value, result)
                run.issue(inst, mask)
            return result
        return with_deps(boolop, {inst.dst, *inst.srcs})

    def expr_IfExp(self, node: ast.IfExp) -> Node:
        nodes = [self.expr(n) for n in (node.test, node.body, node.orelse)]
        test, body, orelse = (run_expr(n) for n in nodes)
        select = self.inst(node, Op.ALU, frozenset().union(*(deps(n) for n in nodes)))

        def ifexp(run: Run, frame: Frame, mask: Mask) -> Any:
            c = test(run, frame, mask)
            if not np.ndim(c):
                return body(run, frame, mask) if c else orelse(run, frame, mask)
            c = c.astype(bool, copy=False)
            m_body, m_else = mask.both(c), mask.both(~c)
            run.issue(select, mask)
            if not m_else:
                return body(run, frame, mask)
            if not m_body:
                return orelse(run, frame, mask)
            return np.where(c, body(run, frame, m_body), orelse(run, frame, m_else))
        return with_deps(ifexp, {select.dst} | deps(nodes[1]) | deps(nodes[2]))

    def expr_Tuple(self, node: ast.Tuple) -> Node:
        parts = [self.expr(e) for e in node.elts]
        if all(isinstance(p, Const) for p in parts):
            return Const(tuple(p.value for p in parts))
        fns = [run_expr(p) for p in parts]
        return with_deps(lambda run, frame, mask: tuple(f(run, frame, mask) for f in fns),
                         frozenset().union(*(deps(p) for p in parts)))

    def expr_Subscript(self, node: ast.Subscript) -> Node:
        base = self.expr(node.value)
        index_node = node.slice
        index = self.index(index_node)
        basef = run_expr(base)
        load = self.inst(node, None, deps(base) | deps(index))
        line = load.line

        def subscript(run: Run, frame: Frame, mask: Mask) -> Any:
            b = basef(run, frame, mask)
            idx = index(run, frame, mask)
            if isinstance(b, tuple):
                if len(idx) != 1 or np.ndim(idx[0]):
                    raise TypeError("tuples can only be indexed with one constant index")
                return b[int(idx[0])]
            array, full = _resolve(b, idx)
            if len(full) < array.ndim:
                return arrays.RowView(array, full)
            v = arrays.load(array, full, mask, run.counters.site(line))
            run.issue(load, mask, _memory_op(LOAD_OP, array, full), run.memory_cost(array, full, mask))
            return v
        return with_deps(subscript, {load.dst})

    def index(self, node: ast.expr) -> Expr:
        if isinstance(node, ast.Slice):
            raise self.unsupported(node, "slices are not supported in kernels (index one element)")
        parts = node.elts if isinstance(node, ast.Tuple) else [node]
        for p in parts:
            if isinstance(p, ast.Slice):
                raise self.unsupported(node, "slices are not supported in kernels (index one element)")
        nodes = [self.expr(p) for p in parts]
        fns = [run_expr(p) for p in nodes]
        return with_deps(lambda run, frame, mask: tuple(f(run, frame, mask) for f in fns),
                         frozenset().union(*(deps(p) for p in nodes)))

    def expr_Call(self, node: ast.Call) -> Node:
        from warpscope.emulator.intrinsics import call

        func = self.expr(node.func)
        if not isinstance(func, Const):
            raise self.unsupported(node, "only functions known when the kernel is compiled can be called")
        return call(self, node, func.value)

    def expr_List(self, node: ast.List) -> Node:
        raise self.unsupported(node, "lists are not supported in kernels (use cuda.local.array)")


def _at_line(line: int, fn: Callable[[Run, Frame, Mask], Any]) -> Callable[[Run, Frame, Mask], Any]:
    """``fn`` with any Python error (or out-of-bounds access) reported as a kernel fault at ``line``."""
    def at_line(run: Run, frame: Frame, mask: Mask) -> Any:
        try:
            return fn(run, frame, mask)
        except EmulatorError:
            raise
        except arrays.OutOfBounds as e:
            raise run.fault(line, str(e), lane=e.lane) from None
        except Exception as e:  # noqa: BLE001 - any Python error is the kernel's
            raise run.fault(line, f"{type(e).__name__}: {e}", mask) from None
    return at_line


def _loop(run: Run, frame: Frame, mask: Mask, body: list[Stmt],
          test: Callable[[Mask], Any], enter: Callable[[Mask], None],
          advance: Callable[[], None], test_inst: Inst, step_inst: Inst | None) -> Mask | None:
    """Run a loop while any lane is in it; lanes leave when their test fails or they break."""
    loop = Loop()
    frame.loops.append(loop)
    done: Mask | None = None
    live = mask
    line = test_inst.line
    site = run.counters.site(line)
    try:
        while True:
            cond = test(live)
            run.issue(test_inst, live)
            site.branches += live.warps
            if np.ndim(cond):
                inside = live.both(cond.astype(bool, copy=False))
                if inside is not live:
                    leaving = Mask(live.arr & ~inside.arr)
                    site.divergent_branches += int(np.count_nonzero(inside.warp_any & leaving.warp_any))
                    done = union(done, leaving)
                    if not inside:
                        break
            elif not cond:
                done = union(done, live)
                break
            else:
                inside = live
            enter(inside)
            out = exec_block(body, run, frame, inside)
            loop.broken, broken = None, loop.broken
            loop.continued, continued = None, loop.continued
            done = union(done, broken)
            nxt = union(out, continued)
            if nxt is None:
                break
            live = inside if nxt.threads == inside.threads else nxt
            advance()
            if step_inst is not None:
                run.issue(step_inst, live)  # the counter update
            run.check_budget(line, live)
    finally:
        frame.loops.pop()
    if done is not None and done.threads == mask.threads:
        return mask
    return done


#: the pipe class of a load or store, by the kind of memory it reads or writes
LOAD_OP = {"global": Op.LDG, "shared": Op.LDS, "local": Op.LDL, "const": Op.ALU}
STORE_OP = {"global": Op.STG, "shared": Op.STS, "local": Op.STL}


def _memory_op(ops: dict[str, Op], array: Any, index: tuple[Any, ...]) -> Op:
    """A local array indexed the same on every lane is timed as registers: nvcc keeps such
    arrays in registers once the loops that index them are unrolled, so a store is a
    register write (no instruction: the array's slot takes the value's readiness, loads
    in flight stay in flight) and a load a register move."""
    if array.kind == "local" and not any(np.ndim(i) for i in index):
        return Op.DEF if ops is STORE_OP else Op.ALU
    return ops[array.kind]


def _arith_op(value: Any, divide: bool) -> Op:
    op = arithmetic_op(value)
    return Op.FDIV if divide and op is Op.FMA else op


def _lane_id_or(node: Const) -> Node:
    """``cuda.laneid`` is a per-lane value; every other global stays a constant."""
    if isinstance(node.value, Dim3Index) and node.value.name == "laneid":
        return lambda run, frame, mask: run.chunk.lane_id
    return node


def _resolve(base: Any, index: tuple[Any, ...]) -> tuple[arrays.ArrayRef, tuple[Any, ...]]:
    if isinstance(base, arrays.RowView):
        return base.array, base.index + index
    if isinstance(base, arrays.ArrayRef):
        return base, index
    raise TypeError(f"cannot index a {type(base).__name__}")


def _array_attribute(obj: Any, attr: str) -> Any:
    if not isinstance(obj, (arrays.ArrayRef, arrays.RowView)):
        raise TypeError(f"'{type(obj).__name__}' has no attribute '{attr}'")
    if attr == "shape":
        return tuple(np.int64(d) for d in obj.shape)
    if attr == "size":
        return np.int64(obj.size)
    if attr == "ndim":
        return np.int64(obj.ndim)
    raise TypeError(f"arrays have no attribute '{attr}' in kernels")


def _truth(value: Any) -> Any:
    return value.astype(bool, copy=False) if np.ndim(value) else np.bool_(value)


def _fold(op: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        return op(a, b)


def _as_load(node: ast.expr) -> ast.expr:
    """The target of ``x += v`` read as a value."""
    copy = ast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}), node)
    copy.ctx = ast.Load()  # type: ignore[attr-defined]
    return copy


def _describe(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def _assigned_names(tree: ast.FunctionDef) -> set[str]:
    """Every name the function assigns: local everywhere in it, as in Python."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names
