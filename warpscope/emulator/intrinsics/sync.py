"""Block barriers (``device.syncthreads`` and its count/and/or forms) and memory fences."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.instructions import Op
from warpscope.emulator.intrinsics.registry import arguments, register
from warpscope.emulator.ir import Compiling, Const, Node, deps, run_expr, truth, with_deps
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask


def _syncthreads_kind(kind: str) -> Callable[..., Any]:
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        pred_node = arguments(c, node, args, ("predicate",))[0] if kind else None
        pred = run_expr(pred_node) if kind else None
        bar = c.inst(line, Op.BAR, deps(pred_node))

        def syncthreads(run: Run, frame: Frame, mask: Mask) -> Any:
            ch = run.chunk
            expected: np.ndarray | None = None
            if np.array_equal(mask.arr, run.alive):  # every live thread: no block to count
                complete = run.barrier(line, mask, None, None)
            else:
                arrived = np.bincount(ch.block_of_lane[mask.arr], minlength=ch.blocks)
                expected = np.bincount(ch.block_of_lane[run.alive], minlength=ch.blocks)
                complete = run.barrier(line, mask, arrived, expected)
            if run.race is not None:
                run.race.barrier(mask, complete)
            site = run.counters.site(line)
            site.barriers += mask.warps
            run.issue(bar, mask)
            if pred is None:
                return None
            p = np.broadcast_to(truth(pred(run, frame, mask)), mask.arr.shape) & mask.arr
            count = np.bincount(ch.block_of_lane[p], minlength=ch.blocks)
            per_lane = count[ch.block_of_lane]
            if kind == "count":
                return per_lane.astype(np.int64)
            if kind == "and":
                if expected is None:
                    expected = np.bincount(ch.block_of_lane[run.alive], minlength=ch.blocks)
                return (per_lane == expected[ch.block_of_lane]).astype(np.int64)
            return (per_lane > 0).astype(np.int64)

        return with_deps(syncthreads, {bar.dst})

    return build


register(device.syncthreads)(_syncthreads_kind(""))
register(device.syncthreads_count)(_syncthreads_kind("count"))
register(device.syncthreads_and)(_syncthreads_kind("and"))
register(device.syncthreads_or)(_syncthreads_kind("or"))


@register(device.cg.this_grid)
def _this_grid(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Node:
    if args:
        raise c.unsupported(node, "cuda.cg.this_grid() takes no arguments")
    return Const(device.grid_group)


@register(device.GridGroup.sync)
def _grid_sync(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Node:
    """A grid-wide barrier: the launch runs every block in one chunk (as a cooperative launch
    has every block resident), so every live thread of the grid must arrive together."""
    if args:
        raise c.unsupported(node, "grid.sync() takes no arguments")
    c.grid_sync = True
    bar = c.inst(line, Op.BAR)

    def grid_sync(run: Run, frame: Frame, mask: Mask) -> Any:
        alive = int(np.count_nonzero(run.alive))
        complete = True
        if mask.threads != alive:
            # Part of the grid here (a grid barrier in a branch): the grid barrier is a block
            # barrier, then one arrival per block, so as on a GPU the others pass it by
            # exiting or meet it later, as at a divergent syncthreads; a block none of whose
            # live threads come never arrives, and the GPU hangs.
            ch = run.chunk
            arrived = np.bincount(ch.block_of_lane[mask.arr], minlength=ch.blocks)
            expected = np.bincount(ch.block_of_lane[run.alive], minlength=ch.blocks)
            absent = (arrived == 0) & (expected > 0)
            if absent.any():
                raise run.fault(
                    line,
                    f"grid sync reached by {mask.threads} of the grid's {alive} live threads, none "
                    f"of block {ch.where(int(np.argmax(absent[ch.block_of_lane] & run.alive)))[0]}'s "
                    "(a grid barrier inside a branch that leaves out whole blocks: a GPU hangs)",
                    mask,
                )
            complete = run.barrier(line, mask, arrived, expected)
        if run.race is not None:
            run.race.barrier(mask, complete)
        run.counters.site(line).barriers += mask.warps
        run.issue(bar, mask)
        return None

    return grid_sync


@register(device.threadfence, device.threadfence_block, device.threadfence_system)
def _fence(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Node:
    """Fences order memory; the emulator's memory is sequential, so they only issue."""
    fence = c.inst(line, Op.ALU)

    def no_op(run: Run, frame: Frame, mask: Mask) -> Any:
        run.issue(fence, mask)
        return None

    return no_op
