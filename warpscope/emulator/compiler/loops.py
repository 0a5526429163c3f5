"""Loops: ``for name in range(...)`` and ``while``, with ``break`` and ``continue``; a loop
runs while any lane is still in it, and each lane leaves when its test fails or it breaks."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator.compiler.statements import Statements
from warpscope.emulator.instructions import Inst, Op
from warpscope.emulator.ir import Const, Stmt, deps, exec_block
from warpscope.emulator.runtime import Frame, Loop, Run
from warpscope.emulator.simt import Mask, union


class Loops(Statements):
    """``stmt_For``, ``stmt_While``, ``stmt_Break``, ``stmt_Continue``."""

    def stmt_For(self, node: ast.For) -> Stmt:
        line = self.line(node)
        if node.orelse:
            raise self.unsupported(node, "for ... else is not supported")
        call = node.iter
        func = self.expr(call.func) if isinstance(call, ast.Call) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(func, Const)
            and func.value is builtins.range
            and not call.keywords
            and 1 <= len(call.args) <= 3
        ):
            raise self.unsupported(node, "only 'for name in range(...)' loops are supported")
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

            return run_loop(run, frame, mask, body, test, enter, advance, test_inst, step_inst)

        return run_for

    def stmt_While(self, node: ast.While) -> Stmt:
        line = self.line(node)
        if node.orelse:
            raise self.unsupported(node, "while ... else is not supported")
        test = self.guarded_expr(node.test, line)
        test_inst = self.inst(node, Op.BRA, deps(test))
        body = self.block(node.body)

        def run_while(run: Run, frame: Frame, mask: Mask) -> Mask | None:
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
            )

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
) -> Mask | None:
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
