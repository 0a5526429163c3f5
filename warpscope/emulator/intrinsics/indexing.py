"""Where a thread is: ``device.threadIdx.x`` and friends, ``device.grid``, ``device.gridsize``."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.instructions import Op
from warpscope.emulator.intrinsics.registry import arguments, const_arg, register
from warpscope.emulator.ir import Compiling, with_deps
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask


def dim3_component(name: str, attr: str, c: Compiling, node: ast.AST) -> Any:
    """``device.threadIdx.x`` and friends, ``device.laneid``."""
    axis = "xyz".find(attr)
    if name == "laneid" or axis < 0 or len(attr) != 1:
        raise c.unsupported(node, f"device.{name}.{attr} is not a thing (use .x, .y or .z)")
    if name == "threadIdx":
        return lambda run, frame, mask: run.chunk.tid[axis]
    if name == "blockIdx":
        return lambda run, frame, mask: run.chunk.bid[axis]
    if name == "blockDim":
        return lambda run, frame, mask: np.int64(run.chunk.block[axis])
    return lambda run, frame, mask: np.int64(run.chunk.grid[axis])


@register(device.grid)
def _grid(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    (n_node,) = arguments(c, node, args, ("ndim",))
    n = int(const_arg(c, node, n_node, "device.grid's argument"))
    if n not in (1, 2, 3):
        raise c.unsupported(node, "device.grid takes 1, 2 or 3")

    inst = c.inst(line, Op.ALU, n=n)

    def grid(run: Run, frame: Frame, mask: Mask) -> Any:
        ch = run.chunk
        run.issue(inst, mask)
        vals = tuple(ch.grid_index(a) for a in range(n))
        return vals[0] if n == 1 else vals

    return with_deps(grid, {inst.dst})


@register(device.gridsize)
def _gridsize(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    (n_node,) = arguments(c, node, args, ("ndim",))
    n = int(const_arg(c, node, n_node, "device.gridsize's argument"))

    def gridsize(run: Run, frame: Frame, mask: Mask) -> Any:
        ch = run.chunk
        vals = tuple(np.int64(ch.grid[a] * ch.block[a]) for a in range(n))
        return vals[0] if n == 1 else vals

    return gridsize
