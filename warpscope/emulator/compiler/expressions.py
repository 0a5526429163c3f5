"""Expressions: names, constants, operators, attributes, subscripts and calls, each compiled
to a ``Const`` when its value is known at compile time or a warp-wide closure."""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import arrays, intrinsics
from warpscope.emulator.compiler.base import CompilerBase
from warpscope.emulator.compiler.ops import LOAD_OP, arith_op, memory_op
from warpscope.emulator.device_api import Dim3Index
from warpscope.emulator.functions import DeviceFunction, JitFunction
from warpscope.emulator.instructions import Op
from warpscope.emulator.ir import Const, Expr, Node, deps, exec_block, run_expr, scalar, truth, with_deps
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask

BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
#: the operators Nsight Compute's roofline counts as floating-point work (FADD, FMUL, FFMA)
FLOP_OPS = (ast.Add, ast.Sub, ast.Mult)
COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: np.logical_not,
    ast.Invert: operator.invert,
}


class Expressions(CompilerBase):
    """``expr_*`` for every expression a kernel may contain."""

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
        if isinstance(value, (bool, int, float, complex, np.generic)):
            return scalar(value)
        if isinstance(value, tuple) and all(isinstance(v, (bool, int, float, np.generic)) for v in value):
            return scalar(value)
        if isinstance(value, np.ndarray):
            return arrays.ConstArray(np.asarray(value), name)
        if intrinsics.is_known(value):
            return value
        raise self.unsupported(node, f"global '{name}' ({type(value).__name__}) cannot be used in a kernel")

    def expr_Attribute(self, node: ast.Attribute) -> Node:
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            obj = base.value
            if isinstance(obj, Dim3Index):
                return intrinsics.dim3_component(obj.name, attr, self, node)
            if isinstance(obj, arrays.ArrayRef):
                return Const(arrays.attribute(obj, attr))
            if not hasattr(obj, attr):
                raise self.unsupported(node, f"'{_describe(obj)}' has no attribute '{attr}'")
            return _lane_id_or(Const(self.global_value(node, f"{_describe(obj)}.{attr}", getattr(obj, attr))))
        if attr not in ("shape", "size", "ndim"):
            raise self.unsupported(
                node,
                f"attribute '.{attr}' is not supported on kernel values "
                "(arrays have .shape, .size and .ndim)",
            )

        def get_attr(run: Run, frame: Frame, mask: Mask) -> Any:
            return arrays.attribute(base(run, frame, mask), attr)

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
        flop = isinstance(node.op, FLOP_OPS)

        def binop(run: Run, frame: Frame, mask: Mask) -> Any:
            v = op(lf(run, frame, mask), rf(run, frame, mask))
            run.issue(inst, mask, arith_op(v, divide))
            if flop:
                run.count_flop(inst, mask, v)
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
            run.issue(inst, mask, arith_op(v, False))
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
            result = truth(fns[0](run, frame, mask))
            for f in fns[1:]:
                pending = result if is_and else np.logical_not(result)
                if not np.ndim(pending):
                    if not pending:
                        break
                    result = truth(f(run, frame, mask))
                    continue
                sub = mask.both(pending)
                if not sub:
                    continue
                value = truth(f(run, frame, sub))
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
        return with_deps(
            lambda run, frame, mask: tuple(f(run, frame, mask) for f in fns),
            frozenset().union(*(deps(p) for p in parts)),
        )

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
            array, full = arrays.resolve(b, idx)
            if len(full) < array.ndim:
                return arrays.RowView(array, full)
            v = arrays.load(array, full, mask, run.counters.site(line))
            run.issue(load, mask, memory_op(LOAD_OP, array, full), run.memory_cost(array, full, mask))
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
        return with_deps(
            lambda run, frame, mask: tuple(f(run, frame, mask) for f in fns),
            frozenset().union(*(deps(p) for p in nodes)),
        )

    def expr_Call(self, node: ast.Call) -> Node:
        func = self.expr(node.func)
        if not isinstance(func, Const):
            raise self.unsupported(node, "only functions known when the kernel is compiled can be called")
        fn = func.value
        if isinstance(fn, DeviceFunction):
            return self.inline(node, fn)
        if isinstance(fn, JitFunction):
            raise self.unsupported(
                node, f"{fn.name} is a kernel: launching kernels from kernels is not supported"
            )
        return intrinsics.call(self, node, fn)

    def expr_List(self, node: ast.List) -> Node:
        raise self.unsupported(node, "lists are not supported in kernels (use cuda.local.array)")

    def inline(self, node: ast.Call, fn: DeviceFunction) -> Node:
        """A device function's body compiled into the caller, its parameters bound to the arguments."""
        if node.keywords:
            raise self.unsupported(node, f"keyword arguments are not supported for {fn.name}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "*args in calls is not supported")
        if fn.py_func in self.inlining:
            raise self.unsupported(node, f"{fn.name} calls itself: recursion is not supported")
        args = [self.expr(a) for a in node.args]
        compiled = type(self)(
            fn.py_func, kernel=False, shared=self.shared, inlining=self.inlining, table=self.table
        ).compile()
        if len(args) != len(compiled.params):
            raise self.unsupported(
                node, f"{fn.name} takes {len(compiled.params)} arguments, given {len(args)}"
            )
        fns = [run_expr(a) for a in args]
        # the parameters take the arguments' readiness, as registers passed in
        params = [
            self.inst(node, Op.DEF, deps(a), n=0, dst=slot) for a, slot in zip(args, compiled.param_slots)
        ]

        def inline(run: Run, frame: Frame, mask: Mask) -> Any:
            inner = Frame(
                live=mask.threads,
                kernel=False,
                vars={p: f(run, frame, mask) for p, f in zip(compiled.params, fns)},
            )
            for d in params:
                run.define(d, mask)
            exec_block(compiled.body, run, inner, mask)
            return inner.ret

        return with_deps(inline, compiled.return_deps)


def _lane_id_or(node: Const) -> Node:
    """``cuda.laneid`` is a per-lane value; every other global stays a constant."""
    if isinstance(node.value, Dim3Index) and node.value.name == "laneid":
        return lambda run, frame, mask: run.chunk.lane_id
    return node


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
