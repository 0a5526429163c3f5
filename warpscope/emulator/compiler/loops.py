"""Loops: ``for name in range(...)`` and ``while``, with ``break`` and ``continue``; a loop
runs while any lane is still in it, and each lane leaves when its test fails or it breaks."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import affine, arrays
from warpscope.emulator.compiler.codegen import Gen, gen_of
from warpscope.emulator.compiler.expressions import load_element
from warpscope.emulator.compiler.statements import Statements
from warpscope.emulator.errors import KernelMistake, NotEmulated
from warpscope.emulator.instructions import Inst, Op
from warpscope.emulator.ir import Const, Stmt, at_line, deps, exec_block, with_deps
from warpscope.emulator.runtime import Frame, Loop, Run
from warpscope.emulator.simt import Mask, union


class Loops(Statements):
    """``stmt_For``, ``stmt_While``, ``stmt_Break``, ``stmt_Continue``."""

    def stmt_For(self, node: ast.For) -> Stmt:
        line = self.line(node)
        call = node.iter
        func = self.expr(call.func) if isinstance(call, ast.Call) else None
        if not (isinstance(call, ast.Call) and isinstance(func, Const) and func.value is builtins.range):
            return self.for_each(node, line)
        if call.keywords or not 1 <= len(call.args) <= 3:
            raise self.unsupported(node, "range() takes 1 to 3 positional arguments")
        if len(call.args) == 3 and isinstance(step := self.expr(call.args[2]), Const) and step.value == 0:
            raise self.unsupported(node, "range() step must not be zero")
        bounds = [self.guarded_expr(a, line) for a in call.args]
        counter_slot = (
            self.var(node.target.id) if isinstance(node.target, ast.Name) else self.table.new_slot()
        )
        bound_deps = frozenset().union(*(deps(b) for b in bounds))
        first = self.inst(node, Op.ALU, bound_deps, dst=counter_slot)
        test_inst = self.inst(node, Op.BRA, bound_deps | {counter_slot})
        step_inst = self.inst(node, Op.ALU, bound_deps | {counter_slot}, dst=counter_slot)
        target = self.target(node.target, None)
        body = self.block(node.body)
        orelse = self.block(node.orelse)

        insts = (first, test_inst, step_inst)

        def run_for(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            values = [b(run, frame, mask) for b in bounds]
            return range_loop(run, frame, mask, values, insts, target, body, orelse)

        def gen(g: Gen) -> None:
            values = ", ".join([g.guarded(b) for b in bounds])
            g.line("_at = 0")
            blocks = [g.block(body, "loop")] + ([g.block(orelse, "loop_else")] if orelse else [])
            g.line(
                f"mask = {g.ref(range_loop)}(run, frame, mask, [{values}], {g.ref(insts)}, {g.ref(target)}, "
                f"[{blocks[0]}], [{', '.join(blocks[1:])}])"
            )
            g.line("if mask is None:")
            g.line("    return None")

        return gen_of(run_for, gen)

    def for_each(self, node: ast.For, line: int) -> Stmt:
        """``for x in t`` over a tuple, an array (its rows or elements, each read from memory),
        ``zip(...)`` or ``enumerate(...)`` of them (or of a ``range`` with bounds the same on
        every thread): as numba types them, the length is the same for every thread."""
        compiled = self.sequence(node.iter, line)
        sequence = at_line(line, compiled, node.iter, self.file)
        counter_slot = self.table.new_slot()
        seq_deps = deps(compiled)
        first = self.inst(node, Op.ALU, seq_deps, dst=counter_slot)
        test_inst = self.inst(node, Op.BRA, seq_deps | {counter_slot})
        step_inst = self.inst(node, Op.ALU, {counter_slot}, dst=counter_slot)
        load = self.inst(node, None, seq_deps | {counter_slot})
        target = self.target(node.target, frozenset({load.dst}))
        body = self.block(node.body)
        orelse = self.block(node.orelse)

        def run_for_each(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            n, item = sequence(run, frame, mask)
            counter = [0]
            run.issue(first, mask)

            def enter(live: Mask) -> None:
                target(run, frame, live, item(counter[0], live, load))

            def advance() -> None:
                counter[0] += 1

            return run_loop(
                run,
                frame,
                mask,
                body,
                lambda live: np.bool_(counter[0] < n),
                enter,
                advance,
                test_inst,
                step_inst,
                orelse,
            )

        return run_for_each

    def sequence(self, node: ast.expr, line: int) -> Any:
        """What a ``for`` iterates: a closure giving (length, item(k, mask, load inst))."""
        if isinstance(node, ast.Call):
            func = self.expr(node.func)
            fn = func.value if isinstance(func, Const) else None
            if fn is builtins.zip or fn is builtins.enumerate:
                if node.keywords or not node.args or (fn is builtins.enumerate and len(node.args) > 2):
                    raise self.unsupported(node, f"{fn.__name__}() with these arguments is not supported")
                parts = [self.sequence(a, line) for a in node.args[: 1 if fn is builtins.enumerate else None]]
                start = self.guarded_expr(node.args[1], line) if len(node.args) == 2 else None
                is_zip = fn is builtins.zip

                def joined(run: Run, frame: Frame, mask: Mask) -> Any:
                    got = [p(run, frame, mask) for p in parts]
                    n = min(g[0] for g in got)
                    if is_zip:
                        return n, lambda k, live, load: tuple(g[1](k, live, load) for g in got)
                    first = np.int64(0) if start is None else start(run, frame, mask)
                    return n, lambda k, live, load: (first + np.int64(k), got[0][1](k, live, load))

                return with_deps(joined, frozenset().union(*(deps(p) for p in parts)))
            if fn is builtins.range:
                if node.keywords or not 1 <= len(node.args) <= 3:
                    raise self.unsupported(node, "range() takes 1 to 3 positional arguments")
                bounds = [self.guarded_expr(a, line) for a in node.args]

                def span(run: Run, frame: Frame, mask: Mask) -> Any:
                    values = [b(run, frame, mask) for b in bounds]
                    if any(np.ndim(v) for v in values):
                        raise NotEmulated(
                            "a range inside zip() or enumerate() needs bounds the same on every thread"
                        )
                    r = range(*(int(v) for v in values))
                    return len(r), lambda k, live, load: np.int64(r[k])

                return span
        value = self.guarded_expr(node, line)

        def items(run: Run, frame: Frame, mask: Mask) -> Any:
            v = value(run, frame, mask)
            if isinstance(v, tuple):
                return len(v), lambda k, live, load: v[k]
            if isinstance(v, (arrays.ArrayRef, arrays.RowView)) and v.ndim >= 1:
                return int(v.shape[0]), lambda k, live, load: load_element(
                    run, live, v, (np.int64(k),), line, load
                )
            raise KernelMistake(f"cannot iterate over a {type(v).__name__} (a tuple or an array)")

        return with_deps(items, deps(value))

    def stmt_While(self, node: ast.While) -> Stmt:
        line = self.line(node)
        test = self.guarded_expr(node.test, line)
        test_inst = self.inst(node, Op.BRA, deps(test))
        body = self.block(node.body)
        orelse = self.block(node.orelse)

        def run_while(run: Run, frame: Frame, mask: Mask) -> Mask | None:
            return while_loop(run, frame, mask, test, test_inst, body, orelse)

        def gen(g: Gen) -> None:
            blocks = [g.block(body, "loop")] + ([g.block(orelse, "loop_else")] if orelse else [])
            g.line(
                f"mask = {g.ref(while_loop)}(run, frame, mask, {g.ref(test)}, {g.ref(test_inst)}, "
                f"[{blocks[0]}], [{', '.join(blocks[1:])}])"
            )
            g.line("if mask is None:")
            g.line("    return None")

        return gen_of(run_while, gen)

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


def range_loop(
    run: Run,
    frame: Frame,
    mask: Mask,
    values: list[Any],
    insts: tuple[Inst, Inst, Inst],
    target: Callable[[Run, Frame, Mask, Any], None],
    body: list[Stmt],
    orelse: list[Stmt],
) -> Mask | None:
    """``for name in range(*values)``: the counter set (``insts``: its first value, the loop
    test, the step), then ``run_loop``."""
    first, test_inst, step_inst = insts
    start, stop = (np.int64(0), values[0]) if len(values) == 1 else (values[0], values[1])
    step = values[2] if len(values) == 3 else np.int64(1)
    counter = [start]
    up = not np.ndim(step) and step > 0
    # a counter from a thread index no one writes (``range(cuda.grid(1), n, stride)``) is kept
    # as that index moved by a scalar: its accesses are then known as one pattern, moved
    from_start = isinstance(start, np.ndarray) and not start.flags.writeable and isinstance(step, np.int64)
    moved_by = [np.int64(0)]
    run.issue(first, mask)  # the counter's first value

    def test(live: Mask) -> Any:
        c = counter[0]
        if up:
            return c < stop
        return np.where(step > 0, c < stop, c > stop) if np.ndim(step) else c > stop

    def enter(live: Mask) -> None:
        target(run, frame, live, counter[0])

    def advance() -> None:
        if from_start:
            moved_by[0] = moved_by[0] + step
            counter[0] = affine.moved(start, moved_by[0])
        else:
            counter[0] = counter[0] + step

    return run_loop(run, frame, mask, body, test, enter, advance, test_inst, step_inst, orelse)


def while_loop(
    run: Run, frame: Frame, mask: Mask, test: Any, test_inst: Inst, body: list[Stmt], orelse: list[Stmt]
) -> Mask | None:
    """``while test:``, ``run_loop`` with nothing to set or step."""
    return run_loop(
        run,
        frame,
        mask,
        body,
        lambda live: test(run, frame, live),
        lambda live: None,
        lambda: None,
        test_inst,
        None,
        orelse,
    )


def run_loop(
    run: Run,
    frame: Frame,
    mask: Mask,
    body: list[Stmt],
    test: Callable[[Mask], Any],
    enter: Callable[[Mask], None],
    advance: Callable[[], None],
    test_inst: Inst,
    step_inst: Inst | None,
    orelse: list[Stmt] | None = None,
) -> Mask | None:
    """Run a loop while any lane is in it; lanes leave when their test fails or they break.
    Lanes whose test failed (not those that broke) then run the loop's ``else`` block."""
    loop = Loop()
    frame.loops.append(loop)
    done: Mask | None = None  # lanes that broke out
    exhausted: Mask | None = None  # lanes whose test failed
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
                    exhausted = union(exhausted, leaving)
                    if not inside:
                        break
            elif not cond:
                exhausted = union(exhausted, live)
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
    if orelse and exhausted is not None:
        exhausted = exec_block(orelse, run, frame, exhausted)
    done = union(done, exhausted)
    if done is not None and done.threads == mask.threads:
        return mask
    return done
