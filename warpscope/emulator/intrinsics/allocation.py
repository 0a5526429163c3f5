"""``device.shared.array``, ``device.local.array``, ``device.const.array_like``: arrays a kernel
declares, laid out as CUDA lays them out (static shared arrays in order, dynamic after)."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from warpscope.emulator import arrays
from warpscope.emulator import device_api as device
from warpscope.emulator.intrinsics.registry import arguments, const_arg, dtype_of, register, shape_of
from warpscope.emulator.ir import Compiling, Const, SharedDecl, static_shared_end
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask


@register(device.shared.array, keywords=True)
def _shared_array(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    shape_node, dtype_node = arguments(c, node, args, ("shape", "dtype"))
    shape = shape_of(c, node, const_arg(c, node, shape_node, "the shape"))
    dtype = dtype_of(c, node, const_arg(c, node, dtype_node, "the dtype"))
    dynamic = int(np.prod(shape)) == 0
    offset = 0 if dynamic else -(-static_shared_end(c.shared) // dtype.itemsize) * dtype.itemsize
    decl = SharedDecl(shape, dtype, offset, dynamic, line)
    c.shared.append(decl)
    key = id(decl)
    name = _target_name(node) or "shared"
    decls = c.shared  # the kernel's: a dynamic array lies after every static one

    def shared_array(run: Run, frame: Frame, mask: Mask) -> Any:
        array = run.shared.get(key)
        if array is None:
            array = run.shared[key] = _allocate_shared(run, decl, name, decls)
        return array

    return shared_array


def _allocate_shared(run: Run, decl: SharedDecl, name: str, decls: list[SharedDecl]) -> arrays.SharedArray:
    blocks = run.chunk.blocks
    if not decl.dynamic:
        data = np.zeros((blocks, *decl.shape), dtype=decl.dtype)
        return arrays.SharedArray(data, name, decl.offset, run.chunk.block_of_lane)
    # dynamic shared memory: every such array is the same bytes (as in CUDA and numba),
    # placed after the static arrays
    if run.dynamic_buffer is None:
        run.dynamic_buffer = np.zeros((blocks, run.dynamic_shared), dtype=np.uint8)
    count = run.dynamic_shared // decl.dtype.itemsize
    data = run.dynamic_buffer[:, : count * decl.dtype.itemsize].view(decl.dtype).reshape(blocks, count)
    start = -(-static_shared_end(decls) // 16) * 16
    return arrays.SharedArray(data, name, start, run.chunk.block_of_lane)


@register(device.local.array, keywords=True)
def _local_array(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    shape_node, dtype_node = arguments(c, node, args, ("shape", "dtype"))
    shape = shape_of(c, node, const_arg(c, node, shape_node, "the shape"))
    dtype = dtype_of(c, node, const_arg(c, node, dtype_node, "the dtype"))
    key = object()  # this compilation's call: a device function inlined twice has two arrays
    name = _target_name(node) or "local"

    def local_array(run: Run, frame: Frame, mask: Mask) -> Any:
        array = run.local.get(key)
        if array is None:
            array = run.local[key] = arrays.LocalArray.allocate(run.chunk.lanes, shape, dtype, name)
        return array

    return local_array


@register(device.const.array_like)
def _const_array_like(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    (arr,) = arguments(c, node, args, ("ary",))
    value = const_arg(c, node, arr, "the array")
    if not isinstance(value, arrays.ConstArray):
        raise c.unsupported(node, "device.const.array_like takes a module-level numpy array")
    return Const(value)


def _target_name(node: ast.AST) -> str | None:
    """The name an array is assigned to (``tile = device.shared.array(...)``), for messages."""
    return getattr(node, "warpscope_target", None)
