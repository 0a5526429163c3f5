"""Statements: assignments (to names, tuples and array elements), ``if``, ``return``."""

from __future__ import annotations

import ast
import copy
import functools
from collections import ChainMap
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import arrays, fma
from warpscope.emulator.compiler.codegen import Gen, gen_of
from warpscope.emulator.compiler.expressions import BINARY, FLOP_OPS, Expressions, is_product
from warpscope.emulator.compiler.ops import STORE_OP, arith_op, memory_op
from warpscope.emulator.device_api import GridGroup
from warpscope.emulator.errors import KernelMistake
from warpscope.emulator.functions import InnerFunction
from warpscope.emulator.instructions import Op
from warpscope.emulator.ir import NO_DEPS, Const, Stmt, deps, exec_block, run_expr
from warpscope.emulator.numeric import numba_binary
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask, union
from warpscope.emulator.source import FunctionSource

#: values a name assigned once may stand for at compile time (never numbers: those are
#: registers the timing model follows)
COMPILE_TIME_OBJECTS = (GridGroup, np.dtype, arrays.ArrayRef)


class Statements(Expressions):
    """``stmt_*`` for straight-line statements and ``if``; ``target`` for what they assign to."""

    def stmt_Expr(self, node: ast.Expr) -> Stmt:
        value = run_expr(self.expr(node.value))

        def run_expr_stmt(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            value(run, frame, mask)
            return mask

        return gen_of(run_expr_stmt, lambda g: g.expr(value))

    def stmt_Assert(self, node: ast.Assert) -> Stmt:
        """numba-cuda checks ``assert`` only in a kernel compiled with ``debug=True`` and
        ``opt=False``; otherwise it compiles to nothing, as here."""
        return nothing()

    def stmt_Assign(self, node: ast.Assign) -> Stmt:
        if isinstance(node.value, ast.Call) and isinstance(node.targets[0], ast.Name):
            node.value.warpscope_target = node.targets[0].id  # type: ignore[attr-defined]
        value_node = self.expr(node.value)
        value = run_expr(value_node)
        target = node.targets[0]
        if (
            len(node.targets) == 1
            and isinstance(target, ast.Name)
            and isinstance(value_node, Const)
            and isinstance(value_node.value, COMPILE_TIME_OBJECTS)
            and self.assign_counts.get(target.id) == 1
        ):
            # g = cuda.cg.this_grid(), f = cuda.const.array_like(F): the name stands for the
            # object itself, so g.sync() and f.size are known when the kernel is compiled
            self.constants[target.id] = value_node.value
            return nothing()
        if isinstance(value_node, Const) or isinstance(node.value, ast.Name):
            move = self.inst(node, Op.ALU, deps(value_node))  # a register move (or an immediate)
            targets = [self.target(t, frozenset({move.dst})) for t in node.targets]

            def run_move(run: Run, frame: Frame, mask: Mask) -> Mask | None:
                run.issue(move, mask)
                v = value(run, frame, mask)
                for t in targets:
                    t(run, frame, mask, v)
                return mask

            def gen_move(g: Gen) -> None:
                g.line(f"run.issue({g.ref(move)}, mask)")
                v = g.expr(value_node)
                for t in targets:
                    g.target(t, v)

            return gen_of(run_move, gen_move)
        targets = [self.target(t, deps(value_node)) for t in node.targets]

        def run_assign(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            v = value(run, frame, mask)
            for t in targets:
                t(run, frame, mask, v)
            return mask

        def gen_assign(g: Gen) -> None:
            v = g.expr(value_node)
            for t in targets:
                g.target(t, v)

        return gen_of(run_assign, gen_assign)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> Stmt:
        if node.value is None:
            return nothing()
        return self.stmt_Assign(ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno))

    def stmt_AugAssign(self, node: ast.AugAssign) -> Stmt:
        plain = BINARY.get(type(node.op))
        if plain is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__} is not supported")
        op = numba_binary(type(node.op), plain)
        fuse = isinstance(node.op, (ast.Add, ast.Sub)) and is_product(node.value)
        value_node = self.product(node.value) if fuse else self.expr(node.value)  # type: ignore[arg-type]
        current_node = self.expr(_as_load(node.target))
        value, current = run_expr(value_node), run_expr(current_node)
        inst = self.inst(node, None, deps(value_node) | deps(current_node))
        target = self.target(node.target, frozenset({inst.dst}))
        divide = isinstance(node.op, ast.Div)
        flop = isinstance(node.op, FLOP_OPS)
        subtract = isinstance(node.op, ast.Sub)

        def run_aug(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            c = current(run, frame, mask)
            v = augmented(run, mask, inst, op, fuse, subtract, divide, flop, c, value(run, frame, mask))
            target(run, frame, mask, v)
            return mask

        def gen(g: Gen) -> None:
            c = g.expr(current_node)
            v = g.expr(value_node)
            g.target(target, g.call(augmented, inst, op, fuse, subtract, divide, flop, c=c, v=v))

        return gen_of(run_aug, gen)

    def target(self, node: ast.expr, srcs: frozenset[int] | None) -> Callable[[Run, Frame, Mask, Any], None]:
        """A closure that stores a value into an assignment target; the value waits on ``srcs``
        (None: the target's slot is written by the instruction itself, as a loop counter)."""
        if isinstance(node, ast.Name):
            name = node.id
            if srcs is None:

                def set_name(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                    frame.assign(name, value, mask)

                def gen_name(g: Gen, v: str) -> None:
                    g.line(f"frame.assign({name!r}, {v}, mask)")

                return gen_of(set_name, gen_name)
            define = self.inst(node, Op.DEF, srcs, n=0, dst=self.var(name))

            def set_defined(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                frame.assign(name, value, mask)
                run.define(define, mask)

            def gen_defined(g: Gen, v: str) -> None:
                g.line(f"frame.assign({name!r}, {v}, mask)")
                g.line(f"run.define({g.ref(define)}, mask)")

            return gen_of(set_defined, gen_defined)
        if isinstance(node, (ast.Tuple, ast.List)):
            parts = [self.target(e, srcs) for e in node.elts]

            def set_tuple(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                if not isinstance(value, tuple) or len(value) != len(parts):
                    raise KernelMistake(f"cannot unpack {type(value).__name__} into {len(parts)} names")
                for p, v in zip(parts, value):
                    p(run, frame, mask, v)

            return set_tuple
        if isinstance(node, ast.Attribute):  # rec.x = v: the record's field by name
            field = ast.Subscript(value=node.value, slice=ast.Constant(node.attr), ctx=ast.Store())
            return self.target(ast.copy_location(field, node), srcs)
        if isinstance(node, ast.Subscript):
            keys = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if any(isinstance(k, ast.Slice) for k in keys):
                raise self.unsupported(
                    node, "slices are not supported as assignment targets in kernels (assign elements)"
                )
            base_node = self.expr(node.value)
            base = run_expr(base_node)
            index = self.index(node.slice)
            # a store to a register-resident local array (see _memory_op) writes the array's slot
            array_slot = (
                self.var(node.value.id)
                if isinstance(node.value, ast.Name) and node.value.id in self.locals
                else None
            )
            store = self.inst(node, None, deps(base_node) | deps(index) | (srcs or NO_DEPS), dst=array_slot)
            store.register_index = self.names_set_once(node.slice)
            line = store.line

            def set_item(run: Run, frame: Frame, mask: Mask, value: Any) -> None:
                target, idx = base(run, frame, mask), index(run, frame, mask)
                if (  # one element every lane names, a value of its type
                    type(target) is arrays.GlobalArray
                    and arrays.store_one(target, idx, value, mask, run.counters, run.race, line)
                ):
                    run.issue(store, mask, STORE_OP["global"], run.memory_cost(target, idx, mask, store=True))
                    return
                array, idx = arrays.resolve(target, idx)
                at = arrays.store(array, idx, value, mask, run.counters.site(line), run.race, line)
                run.issue(
                    store,
                    mask,
                    memory_op(STORE_OP, array, at, store),
                    run.memory_cost(array, at, mask, store=True),
                )

            return set_item
        raise self.unsupported(node, f"cannot assign to {type(node).__name__}")

    def stmt_If(self, node: ast.If) -> Stmt:
        line = self.line(node)
        test = self.guarded_expr(node.test, line)
        inst = self.inst(node, Op.BRA, deps(test))
        then, orelse = self.block(node.body), self.block(node.orelse)
        run_then, run_else = functools.partial(exec_block, then), functools.partial(exec_block, orelse)

        def run_if(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            return branch(run, frame, mask, test(run, frame, mask), line, inst, run_then, run_else)

        def gen(g: Gen) -> None:
            cond = g.guarded(test)
            g.line("_at = 0")
            blocks = g.ref(inst), g.block(then, "then"), g.block(orelse, "orelse")
            g.line(f"mask = {g.ref(branch)}(run, frame, mask, {cond}, {line}, {', '.join(blocks)})")
            g.line("if mask is None:")
            g.line("    return None")

        return gen_of(run_if, gen)

    def stmt_Return(self, node: ast.Return) -> Stmt:
        line = self.line(node)
        if (
            self.kernel
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        ):
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

    def stmt_FunctionDef(self, node: ast.FunctionDef) -> Stmt:
        """A function defined inside a kernel or device function: numba inlines it where it is
        called; here a device function whose parameters gain the enclosing variables it reads
        (passed at each call, so it sees their values then)."""
        args = node.args
        if node.decorator_list or args.defaults or args.vararg or args.kwarg or args.kwonlyargs:
            raise self.unsupported(node, "an inner function takes plain positional parameters, no decorators")
        params = {a.arg for a in args.args}
        own = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        reads = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
        # an inner function it calls reads the enclosing variables through it
        reads += [
            c
            for n in reads
            if isinstance(self.constants.get(n), InnerFunction)
            for c in self.constants[n].captured
        ]
        captured = tuple(dict.fromkeys(n for n in reads if n in self.locals and n not in params | own))
        tree = copy.deepcopy(node)
        tree.args.args += [ast.arg(arg=n) for n in captured]
        source = FunctionSource(
            node.name,
            self.file,
            tree,
            self.src.line_offset,
            self.src.lines,
            ChainMap(dict(self.constants), self.src.environment),  # (not cached: ``cache``)
        )
        self.constants[node.name] = InnerFunction(source, captured)
        return nothing()

    def stmt_Raise(self, node: ast.Raise) -> Stmt:
        """numba-cuda acts on ``raise`` only in a kernel compiled with ``debug=True``; otherwise
        the raising threads leave the kernel (the exception is set and never read), as here."""
        if not self.kernel:
            raise self.unsupported(node, "raise is supported in kernels only, not in device functions")
        return self.stmt_Return(ast.copy_location(ast.Return(value=None), node))


def nothing() -> Stmt:
    """A statement that does nothing when it runs (an assert, a name for a compile-time object)."""
    return gen_of(lambda run, frame, mask: mask, lambda g: None)


def augmented(
    run: Run,
    mask: Mask,
    inst: Any,
    op: Any,
    fuse: bool,
    subtract: bool,
    divide: bool,
    flop: bool,
    current: Any,
    value: Any,
) -> Any:
    """``current op= value`` for the active lanes, issued and counted; ``fuse``: ``value`` is a
    ``Product`` (``acc += a * b``), one FFMA where both are of one float type."""
    if fuse:
        if fma.contracts(value.dtype, current):
            v = fma.fused(-value.a if subtract else value.a, value.b, current, value.dtype)
        else:
            v = op(current, value.rounded())
    else:
        v = op(current, value)
    run.issue(inst, mask, arith_op(v, divide))
    if flop:
        run.count_flop(inst, mask, v)
    return v


def branch(
    run: Run,
    frame: Frame,
    mask: Mask,
    cond: Any,
    line: int,
    inst: Any,
    then: Callable[[Run, Frame, Mask], Mask | None],
    orelse: Callable[[Run, Frame, Mask], Mask | None],
) -> Mask | None:
    """An ``if`` whose test gave ``cond``: each side runs under its lanes (a side none take
    is skipped), counted as a branch, divergent in warps that take both; the lanes that go on."""
    site = run.counters.site(line)
    run.issue(inst, mask)
    site.branches += mask.warps
    if not np.ndim(cond):
        return then(run, frame, mask) if cond else orelse(run, frame, mask)
    taken = mask.arr & cond.astype(bool, copy=False)
    m_then = Mask(taken)
    if m_then.threads == mask.threads:  # every lane one way: no divergence, the mask kept
        return then(run, frame, mask)
    if not m_then:
        return orelse(run, frame, mask)
    m_else = Mask(mask.arr ^ taken)  # the lanes of ``mask`` not taken (``taken`` is within it)
    site.divergent_branches += int(np.count_nonzero(m_then.warp_any & m_else.warp_any))
    out_then = then(run, frame, m_then)
    out_else = orelse(run, frame, m_else)
    if out_then is m_then and out_else is m_else:
        return mask  # everyone reconverges: keep the mask (and its counts)
    return union(out_then, out_else)


def _as_load(node: ast.expr) -> ast.expr:
    """The target of ``x += v`` read as a value."""
    copy = ast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}), node)
    copy.ctx = ast.Load()  # type: ignore[attr-defined]
    return copy
