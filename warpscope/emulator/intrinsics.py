"""What each callable a kernel may name does, warp-wide: math, casts, cuda.* intrinsics.

``call`` maps the function object a kernel calls (resolved when it is compiled) to a
closure; anything not in these tables is rejected with the kernel's line.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from warpscope.emulator import arrays
from warpscope.emulator.api import Dim3Index, cuda
from warpscope.emulator.compiler import Const, SharedDecl, deps, run_expr, static_shared_end, with_deps
from warpscope.emulator.instructions import Op, arithmetic_op
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import WARP, Mask

if TYPE_CHECKING:
    from warpscope.emulator.compiler import Compiler

FULL_MASK = 0xFFFFFFFF


def _int(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """math.floor/ceil/trunc return integers in numba, as in Python."""
    return lambda x: np.asarray(f(x)).astype(np.int64) if np.ndim(x) else np.int64(f(x))


def _vectorize(f: Callable[..., float]) -> Callable[..., Any]:
    vec = np.vectorize(f, otypes=[np.float64])
    return lambda *a: vec(*a) if any(np.ndim(x) for x in a) else np.float64(f(*a))


def _pow(a: Any, b: Any) -> Any:
    """math.pow is floating point even on integers (numpy's integer power would wrap)."""
    kind = np.result_type(np.asarray(a).dtype, np.asarray(b).dtype)
    return np.power(a, b, dtype=kind if kind.kind == "f" else np.float64)


ELEMENTWISE: dict[Any, Callable[..., Any]] = {
    math.sqrt: np.sqrt, math.exp: np.exp, math.expm1: np.expm1, math.log: np.log,
    math.log2: np.log2, math.log10: np.log10, math.log1p: np.log1p, math.sin: np.sin,
    math.cos: np.cos, math.tan: np.tan, math.asin: np.arcsin, math.acos: np.arccos,
    math.atan: np.arctan, math.atan2: np.arctan2, math.sinh: np.sinh, math.cosh: np.cosh,
    math.tanh: np.tanh, math.asinh: np.arcsinh, math.acosh: np.arccosh, math.atanh: np.arctanh,
    math.pow: lambda a, b: _pow(a, b),
    math.fabs: np.fabs, math.floor: _int(np.floor), math.ceil: _int(np.ceil),
    math.trunc: _int(np.trunc), math.fmod: np.fmod, math.hypot: np.hypot,
    math.copysign: np.copysign, math.isnan: np.isnan, math.isinf: np.isinf,
    math.isfinite: np.isfinite, math.degrees: np.degrees, math.radians: np.radians,
    math.erf: _vectorize(math.erf), math.erfc: _vectorize(math.erfc),
    math.gamma: _vectorize(math.gamma), math.lgamma: _vectorize(math.lgamma),
    builtins.abs: np.abs,
    cuda.fma: lambda a, b, c: a * b + c,
    cuda.selp: lambda p, a, b: np.where(p, a, b),
    cuda.popc: lambda x: np.bitwise_count(x).astype(np.int64),
    cuda.brev: lambda x: _brev(x),
    cuda.clz: lambda x: _clz(x),
    cuda.ffs: lambda x: _ffs(x),
}

CASTS: dict[Any, Any] = {
    builtins.int: np.int64, builtins.float: np.float64, builtins.bool: np.bool_,
    **{t: t for t in (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                      np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128)},
}

NO_OPS = {cuda.threadfence, cuda.threadfence_block, cuda.threadfence_system}

#: functions the GPU computes on its transcendental unit (MUFU and its refinement code)
TRANSCENDENTAL = {math.sqrt, math.exp, math.expm1, math.log, math.log2, math.log10, math.log1p,
                  math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.atan2,
                  math.sinh, math.cosh, math.tanh, math.asinh, math.acosh, math.atanh, math.pow,
                  math.hypot, math.erf, math.erfc, math.gamma, math.lgamma, math.fmod}


def _all_deps(args: list[Any]) -> frozenset[int]:
    return frozenset().union(*(deps(a) for a in args))


def _value_op(fn: Any, args: tuple[Any, ...], value: Any) -> Op:
    """The pipe a call's instruction runs on, from the function and the value types."""
    if fn in TRANSCENDENTAL:
        return Op.XU
    if fn == "cast" and args:
        src = np.asarray(args[0]).dtype
        dst = np.asarray(value).dtype
        if src.kind != dst.kind and "f" in (src.kind, dst.kind) or src != dst and src.kind == dst.kind == "f":
            return Op.CVT  # I2F, F2I, F2F run on the conversion (XU) pipe
    return arithmetic_op(value)


def is_known(value: Any) -> bool:
    """Whether a global may be named in a kernel (modules, intrinsics, device functions)."""
    from types import ModuleType

    from warpscope.emulator.kernel import DeviceFunction, Kernel

    if isinstance(value, (ModuleType, Dim3Index, DeviceFunction, Kernel, np.dtype, np.ufunc)):
        return True
    if value is cuda or value in (cuda.shared, cuda.local, cuda.const, cuda.atomic):
        return True
    try:
        return value in ELEMENTWISE or value in CASTS or value in NO_OPS or value in _BUILDERS \
            or value in (builtins.range, builtins.min, builtins.max, builtins.len, builtins.round)
    except TypeError:
        return False


def dim3_component(name: str, attr: str, c: Compiler, node: ast.AST) -> Any:
    """``cuda.threadIdx.x`` and friends, ``cuda.laneid``."""
    axis = "xyz".find(attr)
    if name == "laneid" or axis < 0 or len(attr) != 1:
        raise c.unsupported(node, f"cuda.{name}.{attr} is not a thing (use .x, .y or .z)")
    if name == "threadIdx":
        return lambda run, frame, mask: run.chunk.tid[axis]
    if name == "blockIdx":
        return lambda run, frame, mask: run.chunk.bid[axis]
    if name == "blockDim":
        return lambda run, frame, mask: np.int64(run.chunk.block[axis])
    return lambda run, frame, mask: np.int64(run.chunk.grid[axis])


def call(c: Compiler, node: ast.Call, fn: Any) -> Any:
    """The closure for a call of ``fn``, a value known at compile time."""
    from warpscope.emulator.kernel import DeviceFunction, Kernel

    if node.keywords and fn not in _KEYWORDS_OK:
        raise c.unsupported(node, f"keyword arguments are not supported for {_name(fn)}")
    line = c.line(node)
    args = [c.expr(a) for a in node.args]
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise c.unsupported(node, "*args in calls is not supported")
    if isinstance(fn, Kernel):
        raise c.unsupported(node, f"{fn.name} is a kernel: launching kernels from kernels is not supported")
    if isinstance(fn, DeviceFunction):
        return _inline(c, node, fn, args)
    builder = _BUILDERS.get(fn) if _hashable(fn) else None
    if builder is not None:
        return builder(c, node, args, line)
    if _hashable(fn) and fn in CASTS:
        return _elementwise(c, node, args, line, _cast(CASTS[fn]), "cast")
    if isinstance(fn, np.dtype):
        return _elementwise(c, node, args, line, _cast(fn.type), "cast")
    if _hashable(fn) and fn in ELEMENTWISE:
        return _elementwise(c, node, args, line, ELEMENTWISE[fn], fn)
    if isinstance(fn, np.ufunc):
        return _elementwise(c, node, args, line, fn)
    if _hashable(fn) and fn in NO_OPS:
        fence = c.inst(line, Op.ALU)

        def no_op(run: Run, frame: Frame, mask: Mask) -> Any:
            run.issue(fence, mask)
            return None
        return no_op
    if fn is cuda.jit:
        raise c.unsupported(node, "cuda.jit cannot be called inside a kernel")
    raise c.unsupported(node, f"{_name(fn)}() is not supported in kernels")


# -- helpers -----------------------------------------------------------------------

def _hashable(fn: Any) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


def _name(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__name__", type(fn).__name__)
    return f"{module}.{name}" if module and module not in ("builtins",) else name


def _cast(t: Any) -> Callable[[Any], Any]:
    return lambda x: np.asarray(x).astype(t) if np.ndim(x) else t(x)


def _elementwise(c: Compiler, node: ast.Call, args: list[Any], line: int,
                 f: Callable[..., Any], kind: Any = None) -> Any:
    if all(isinstance(a, Const) for a in args):
        with np.errstate(all="ignore"):
            return Const(f(*(a.value for a in args)))
    fns = [run_expr(a) for a in args]
    inst = c.inst(line, None, _all_deps(args))

    def elementwise(run: Run, frame: Frame, mask: Mask) -> Any:
        values = tuple(g(run, frame, mask) for g in fns)
        v = f(*values)
        run.issue(inst, mask, _value_op(kind, values, v))
        return v
    return with_deps(elementwise, {inst.dst})


def _const_arg(c: Compiler, node: ast.AST, value: Any, what: str) -> Any:
    if not isinstance(value, Const):
        raise c.unsupported(node, f"{what} must be known when the kernel is compiled")
    return value.value


def _dtype(c: Compiler, node: ast.AST, value: Any) -> np.dtype:
    try:
        return np.dtype(value)
    except TypeError:
        raise c.unsupported(node, f"{value!r} is not a dtype (use np.float32, np.int32, ...)") from None


def _shape(c: Compiler, node: ast.AST, value: Any) -> tuple[int, ...]:
    shape = value if isinstance(value, tuple) else (value,)
    if not all(np.ndim(d) == 0 and np.issubdtype(np.asarray(d).dtype, np.integer) for d in shape):
        raise c.unsupported(node, "array shapes must be integers known when the kernel is compiled")
    return tuple(int(d) for d in shape)


def _args(c: Compiler, node: ast.Call, args: list[Any], names: tuple[str, ...],
          defaults: dict[str, Any] | None = None) -> list[Any]:
    """Positional and keyword arguments in ``names`` order (numba's keyword names)."""
    given = dict(zip(names, args))
    for kw in node.keywords:
        if kw.arg not in names or kw.arg in given:
            raise c.unsupported(node, f"unexpected keyword argument '{kw.arg}'")
        given[kw.arg] = c.expr(kw.value)
    for name, value in (defaults or {}).items():
        given.setdefault(name, Const(value))
    missing = [n for n in names if n not in given]
    if missing or len(args) > len(names):
        raise c.unsupported(node, f"expected arguments ({', '.join(names)})")
    return [given[n] for n in names]


# -- arrays -------------------------------------------------------------------------

def _shared_array(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    shape_node, dtype_node = _args(c, node, args, ("shape", "dtype"))
    shape = _shape(c, node, _const_arg(c, node, shape_node, "the shape"))
    dtype = _dtype(c, node, _const_arg(c, node, dtype_node, "the dtype"))
    dynamic = int(np.prod(shape)) == 0
    offset = 0 if dynamic else -(-static_shared_end(c.shared) // dtype.itemsize) * dtype.itemsize
    decl = SharedDecl(shape, dtype, offset, dynamic, line)
    c.shared.append(decl)
    key = id(decl)
    name = _target_name(node) or "shared"

    def shared_array(run: Run, frame: Frame, mask: Mask) -> Any:
        array = run.shared.get(key)
        if array is None:
            array = run.shared[key] = _allocate_shared(run, decl, name, c)
        return array
    return shared_array


def _allocate_shared(run: Run, decl: SharedDecl, name: str, c: Compiler) -> arrays.SharedArray:
    blocks = run.chunk.blocks
    if not decl.dynamic:
        data = np.zeros((blocks, *decl.shape), dtype=decl.dtype)
        return arrays.SharedArray(data, name, decl.offset, run.chunk.block_of_lane)
    # dynamic shared memory: every such array is the same bytes (as in CUDA and numba),
    # placed after the static arrays
    if run.dynamic_buffer is None:
        run.dynamic_buffer = np.zeros((blocks, run.dynamic_shared), dtype=np.uint8)
    count = run.dynamic_shared // decl.dtype.itemsize
    data = run.dynamic_buffer[:, :count * decl.dtype.itemsize].view(decl.dtype).reshape(blocks, count)
    start = -(-static_shared_end(c.shared) // 16) * 16
    return arrays.SharedArray(data, name, start, run.chunk.block_of_lane)


def _local_array(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    shape_node, dtype_node = _args(c, node, args, ("shape", "dtype"))
    shape = _shape(c, node, _const_arg(c, node, shape_node, "the shape"))
    dtype = _dtype(c, node, _const_arg(c, node, dtype_node, "the dtype"))
    key = id(node)
    name = _target_name(node) or "local"

    def local_array(run: Run, frame: Frame, mask: Mask) -> Any:
        array = run.local.get(key)
        if array is None:
            array = run.local[key] = arrays.LocalArray(
                np.zeros((run.chunk.lanes, *shape), dtype=dtype), name)
        return array
    return local_array


def _const_array_like(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    (arr,) = _args(c, node, args, ("ary",))
    value = _const_arg(c, node, arr, "the array")
    if not isinstance(value, arrays.ConstArray):
        raise c.unsupported(node, "cuda.const.array_like takes a module-level numpy array")
    return Const(value)


def _target_name(node: ast.AST) -> str | None:
    """The name an array is assigned to (``tile = cuda.shared.array(...)``), for messages."""
    return getattr(node, "warpscope_target", None)


# -- indices ------------------------------------------------------------------------

def _grid(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    (n_node,) = _args(c, node, args, ("ndim",))
    n = int(_const_arg(c, node, n_node, "cuda.grid's argument"))
    if n not in (1, 2, 3):
        raise c.unsupported(node, "cuda.grid takes 1, 2 or 3")

    inst = c.inst(line, Op.ALU, n=n)

    def grid(run: Run, frame: Frame, mask: Mask) -> Any:
        ch = run.chunk
        run.issue(inst, mask)
        vals = tuple(ch.bid[a] * ch.block[a] + ch.tid[a] for a in range(n))
        return vals[0] if n == 1 else vals
    return with_deps(grid, {inst.dst})


def _gridsize(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    (n_node,) = _args(c, node, args, ("ndim",))
    n = int(_const_arg(c, node, n_node, "cuda.gridsize's argument"))

    def gridsize(run: Run, frame: Frame, mask: Mask) -> Any:
        ch = run.chunk
        vals = tuple(np.int64(ch.grid[a] * ch.block[a]) for a in range(n))
        return vals[0] if n == 1 else vals
    return gridsize


# -- barriers and warp intrinsics -----------------------------------------------------

def _syncthreads_kind(kind: str) -> Callable[..., Any]:
    def build(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
        pred_node = _args(c, node, args, ("predicate",))[0] if kind else None
        pred = run_expr(pred_node) if kind else None
        bar = c.inst(line, Op.BAR, deps(pred_node))

        def syncthreads(run: Run, frame: Frame, mask: Mask) -> Any:
            ch = run.chunk
            arrived = np.bincount(ch.block_of_lane[mask.arr], minlength=ch.blocks)
            expected = np.bincount(ch.block_of_lane[run.alive], minlength=ch.blocks)
            partial = (arrived > 0) & (arrived < expected)
            if partial.any():
                b = int(np.argmax(partial))
                lane = int(np.argmax(mask.arr & (ch.block_of_lane == b)))
                raise run.fault(line, f"syncthreads reached by {arrived[b]} of the block's {expected[b]} "
                                      "threads (a barrier inside a branch that splits the block)", lane=lane)
            site = run.counters.site(line)
            site.barriers += mask.warps
            run.issue(bar, mask)
            if pred is None:
                return None
            p = np.broadcast_to(_truth(pred(run, frame, mask)), mask.arr.shape) & mask.arr
            count = np.bincount(ch.block_of_lane[p], minlength=ch.blocks)
            per_lane = count[ch.block_of_lane]
            if kind == "count":
                return per_lane.astype(np.int64)
            if kind == "and":
                return (per_lane == expected[ch.block_of_lane]).astype(np.int64)
            return (per_lane > 0).astype(np.int64)
        return with_deps(syncthreads, {bar.dst})
    return build


def _truth(v: Any) -> Any:
    return v.astype(bool, copy=False) if np.ndim(v) else np.bool_(v)


def _lane_bits(arr: np.ndarray) -> np.ndarray:
    """One 32-bit mask per warp from one bool per lane."""
    return (arr.reshape(-1, WARP).astype(np.uint64) << np.arange(WARP, dtype=np.uint64)).sum(axis=1)


def _check_members(run: Run, line: int, mask: Mask, members: Any, what: str) -> None:
    """Every live lane named in ``members`` must be executing this warp intrinsic."""
    active = _lane_bits(mask.arr)
    alive = _lane_bits(run.alive)
    if np.ndim(members):
        first = mask.arr.reshape(-1, WARP).argmax(axis=1)
        named = members.reshape(-1, WARP)[np.arange(active.size), first].astype(np.uint64)
    else:
        named = np.uint64(int(members) & FULL_MASK)
    missing = named & alive & ~active
    bad = (active != 0) & (missing != 0)
    if bad.any():
        w = int(np.argmax(bad))
        lane = w * WARP + int(np.argmax(mask.arr.reshape(-1, WARP)[w]))
        raise run.fault(line, f"{what} with mask 0x{int(np.broadcast_to(named, active.shape)[w]):08x} "
                              f"but lanes 0x{int(missing[w]):08x} of the warp are not executing it "
                              "(diverged or exited)", lane=lane)


def _syncwarp(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    (m,) = _args(c, node, args, ("mask",), {"mask": np.int64(FULL_MASK)})
    mf = run_expr(m)
    inst = c.inst(line, Op.ALU, deps(m))

    def syncwarp(run: Run, frame: Frame, mask: Mask) -> Any:
        _check_members(run, line, mask, mf(run, frame, mask), "syncwarp")
        run.issue(inst, mask)
        return None
    return syncwarp


def _shuffle(kind: str) -> Callable[..., Any]:
    def build(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
        third = {"idx": "src_lane", "up": "delta", "down": "delta", "xor": "lane_mask"}[kind]
        nodes = _args(c, node, args, ("mask", "value", third))
        m, v, x = (run_expr(a) for a in nodes)
        inst = c.inst(line, Op.SHFL, _all_deps(nodes))

        def shuffle(run: Run, frame: Frame, mask: Mask) -> Any:
            _check_members(run, line, mask, m(run, frame, mask), f"shfl_{kind}_sync" if kind != "idx" else "shfl_sync")
            value, arg = v(run, frame, mask), x(run, frame, mask)
            site = run.counters.site(line)
            site.shuffles += mask.warps
            run.issue(inst, mask)
            lane = run.chunk.lane_id
            if kind == "idx":
                src = np.asarray(arg) % WARP + 0 * lane
            elif kind == "up":
                src = np.where(lane - arg >= 0, lane - arg, lane)
            elif kind == "down":
                src = np.where(lane + arg < WARP, lane + arg, lane)
            else:
                src = lane ^ arg
            if not np.ndim(value):
                return value
            rows = value.reshape(-1, WARP)
            src = np.broadcast_to(src, lane.shape).reshape(-1, WARP)
            return np.take_along_axis(rows, src.astype(np.int64), axis=1).reshape(-1)
        return with_deps(shuffle, {inst.dst})
    return build


def _vote(kind: str) -> Callable[..., Any]:
    def build(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
        nodes = _args(c, node, args, ("mask", "predicate"))
        m, p = (run_expr(a) for a in nodes)
        inst = c.inst(line, Op.ALU, _all_deps(nodes))

        def vote(run: Run, frame: Frame, mask: Mask) -> Any:
            members = m(run, frame, mask)
            _check_members(run, line, mask, members, f"{kind}_sync")
            run.issue(inst, mask)
            named = np.uint64(int(members) & FULL_MASK) if not np.ndim(members) else np.uint64(FULL_MASK)
            pred = np.broadcast_to(_truth(p(run, frame, mask)), mask.arr.shape) & mask.arr
            voted = _lane_bits(pred) & named
            if kind == "ballot":
                per_warp = voted.astype(np.int64)
            elif kind == "any":
                per_warp = (voted != 0).astype(np.int64)
            else:
                per_warp = (voted == (_lane_bits(mask.arr) & named)).astype(np.int64)
            return np.repeat(per_warp, WARP)
        return with_deps(vote, {inst.dst})
    return build


def _activemask(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    _args(c, node, args, ())
    inst = c.inst(line, Op.ALU)

    def activemask(run: Run, frame: Frame, mask: Mask) -> Any:
        run.issue(inst, mask)
        return np.repeat(_lane_bits(mask.arr).astype(np.int64), WARP)
    return activemask


def _lanemask_lt(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    _args(c, node, args, ())
    return lambda run, frame, mask: (np.int64(1) << run.chunk.lane_id) - 1


# -- atomics ------------------------------------------------------------------------

_SCAN: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.add, "max": np.maximum, "min": np.minimum,
    "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor,
}


def _atomic(op: str) -> Callable[..., Any]:
    def build(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
        names = ("ary", "idx", "old", "val") if op == "cas" else ("ary", "idx", "val")
        nodes = _args(c, node, args, names)
        fns = [run_expr(a) for a in nodes]
        inst = c.inst(line, None, _all_deps(nodes))

        def atomic(run: Run, frame: Frame, mask: Mask) -> Any:
            from warpscope.emulator.compiler import _resolve

            values = [f(run, frame, mask) for f in fns]
            target, idx = values[0], values[1]
            index = idx if isinstance(idx, tuple) else (idx,)
            array, full = _resolve(target, index)
            try:
                full = arrays.checked_index(array, full, mask, write=True)
            except arrays.OutOfBounds as e:
                raise run.fault(line, str(e).replace("write", "atomic"), lane=e.lane) from None
            site = run.counters.site(line)
            if array.kind == "global":
                site.global_atomic_requests += mask.warps
            elif array.kind == "shared":
                site.shared_atomic_requests += mask.warps
            else:
                raise TypeError(f"atomics need a global or shared array, not {array.kind} {array.name}")
            run.issue(inst, mask, Op.ATOMG if array.kind == "global" else Op.ATOMS,
                      run.memory_cost(array, full, mask))
            return _apply_atomic(op, array, full, values[2:], mask)
        return with_deps(atomic, {inst.dst})
    return build


def _apply_atomic(op: str, array: arrays.ArrayRef, index: tuple[Any, ...], operands: list[Any],
                  mask: Mask) -> Any:
    """Atomics of the active lanes, applied one lane after another in lane order; each lane
    gets the value it saw (as if the hardware serialised them in that order)."""
    lanes = np.flatnonzero(mask.arr)
    picked = tuple(np.broadcast_to(i, mask.arr.shape)[lanes] for i in index)
    if array.kind == "shared":
        picked = array.lead(lanes) + picked
    data = array.data
    flat = np.ravel_multi_index(picked, data.shape)
    order = np.argsort(flat, kind="stable")
    keys = flat[order]
    sel = tuple(p[order] for p in picked)
    current = data[sel]
    vals = [np.broadcast_to(np.asarray(v, dtype=data.dtype) if not np.ndim(v) else v.astype(data.dtype),
                            mask.arr.shape)[lanes][order] for v in operands]
    starts = np.ones(keys.size, dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    seg = np.cumsum(starts) - 1
    if op in _SCAN:
        v = -vals[0] if op == "sub" else vals[0]
        incl = _segmented_scan(_SCAN[op], v, seg)
        excl_prev = np.where(starts, current, _SCAN[op](current, np.roll(incl, 1)))
        old_sorted = excl_prev
        final_pos = np.flatnonzero(np.append(starts[1:], True))
        data[tuple(s[final_pos] for s in sel)] = _SCAN[op](current[final_pos], incl[final_pos])
    elif op == "exch":
        old_sorted = np.where(starts, current, np.roll(vals[0], 1))
        final_pos = np.flatnonzero(np.append(starts[1:], True))
        data[tuple(s[final_pos] for s in sel)] = vals[0][final_pos]
    else:  # cas: lane by lane within each address (rounds = most lanes on one address)
        old_sorted = np.empty_like(current)
        rank = np.arange(keys.size) - np.flatnonzero(starts)[seg]
        seg_value = current[starts].copy()
        for r in range(int(rank.max()) + 1 if rank.size else 0):
            turn = rank == r
            s = seg[turn]
            before = seg_value[s]
            old_sorted[turn] = before
            swap = before == vals[0][turn]
            seg_value[s] = np.where(swap, vals[1][turn], before)
        first = np.flatnonzero(starts)
        data[tuple(s[first] for s in sel)] = seg_value
    old = np.empty(mask.arr.shape, dtype=data.dtype)
    old[lanes[order]] = old_sorted
    return old


def _segmented_scan(op: Any, values: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Inclusive scan of ``values`` within runs of equal ``seg`` (Hillis-Steele, log2 n steps)."""
    out = values.copy()
    step = 1
    while step < out.size:
        same = np.zeros(out.size, dtype=bool)
        same[step:] = seg[step:] == seg[:-step]
        shifted = np.empty_like(out)
        shifted[step:] = out[:-step]
        out = np.where(same, op(out, shifted), out) if step < out.size else out
        step *= 2
    return out


# -- bit operations -------------------------------------------------------------------

def _bits(x: Any) -> int:
    return np.asarray(x).dtype.itemsize * 8


def _bit_length(u: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(u.shape, dtype=np.int64)
    for i in range(n):
        out = np.where((u >> np.uint64(i)) & np.uint64(1), i + 1, out)
    return out


def _clz(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << n) - 1)
    out = n - _bit_length(u, n)
    return out if np.ndim(x) else np.int64(out)


def _ffs(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << n) - 1)
    low = u & (~u + np.uint64(1))
    out = _bit_length(low, n)
    return out if np.ndim(x) else np.int64(out)


def _brev(x: Any) -> Any:
    n = _bits(x)
    u = np.asarray(x).astype(np.uint64)
    out = np.zeros_like(u)
    for i in range(n):
        out |= ((u >> np.uint64(i)) & np.uint64(1)) << np.uint64(n - 1 - i)
    return out.astype(np.asarray(x).dtype) if np.ndim(x) else np.asarray(x).dtype.type(out)


# -- builtins that are not elementwise --------------------------------------------------------

def _minmax(f: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def build(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
        if len(args) < 2:
            raise c.unsupported(node, "min/max take two or more numbers in kernels")

        def reduce(*vals: Any) -> Any:
            out = vals[0]
            for v in vals[1:]:
                out = f(out, v)
            return out
        return _elementwise(c, node, args, line, reduce)
    return build


def _len(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    (a,) = args
    fa = run_expr(a)

    def length(run: Run, frame: Frame, mask: Mask) -> Any:
        v = fa(run, frame, mask)
        if isinstance(v, tuple):
            return np.int64(len(v))
        return np.int64(v.shape[0])
    return length


def _round(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    if len(args) == 1:
        return _elementwise(c, node, args, line, lambda x: _cast(np.int64)(np.round(x)))
    return _elementwise(c, node, args, line, lambda x, n: np.round(x, int(n)))


def _range(c: Compiler, node: ast.Call, args: list[Any], line: int) -> Any:
    raise c.unsupported(node, "range() can only be used as 'for name in range(...)'")


def _inline(c: Compiler, node: ast.Call, fn: Any, args: list[Any]) -> Any:
    if fn.py_func in c.inlining:
        raise c.unsupported(node, f"{fn.name} calls itself: recursion is not supported")
    from warpscope.emulator.compiler import Compiler as _Compiler, exec_block

    compiled = _Compiler(fn.py_func, kernel=False, shared=c.shared, inlining=c.inlining,
                         table=c.table).compile()
    if len(args) != len(compiled.params):
        raise c.unsupported(node, f"{fn.name} takes {len(compiled.params)} arguments, given {len(args)}")
    fns = [run_expr(a) for a in args]
    # the parameters take the arguments' readiness, as registers passed in
    params = [c.inst(node, Op.DEF, deps(a), n=0, dst=slot) for a, slot in zip(args, compiled.param_slots)]

    def inline(run: Run, frame: Frame, mask: Mask) -> Any:
        inner = Frame(live=mask.threads, kernel=False,
                      vars={p: f(run, frame, mask) for p, f in zip(compiled.params, fns)})
        for d in params:
            run.define(d, mask)
        exec_block(compiled.body, run, inner, mask)
        return inner.ret
    return with_deps(inline, compiled.return_deps)


_BUILDERS: dict[Any, Callable[..., Any]] = {
    cuda.shared.array: _shared_array, cuda.local.array: _local_array,
    cuda.const.array_like: _const_array_like,
    cuda.grid: _grid, cuda.gridsize: _gridsize,
    cuda.syncthreads: _syncthreads_kind(""), cuda.syncthreads_count: _syncthreads_kind("count"),
    cuda.syncthreads_and: _syncthreads_kind("and"), cuda.syncthreads_or: _syncthreads_kind("or"),
    cuda.syncwarp: _syncwarp,
    cuda.shfl_sync: _shuffle("idx"), cuda.shfl_up_sync: _shuffle("up"),
    cuda.shfl_down_sync: _shuffle("down"), cuda.shfl_xor_sync: _shuffle("xor"),
    cuda.ballot_sync: _vote("ballot"), cuda.all_sync: _vote("all"), cuda.any_sync: _vote("any"),
    cuda.activemask: _activemask, cuda.lanemask_lt: _lanemask_lt,
    **{getattr(cuda.atomic, op): _atomic(op) for op in
       ("add", "sub", "max", "min", "exch", "cas", "and_", "or_", "xor")},
    builtins.min: _minmax(np.minimum), builtins.max: _minmax(np.maximum),
    builtins.len: _len, builtins.round: _round, builtins.range: _range,
}

_KEYWORDS_OK = {cuda.shared.array, cuda.local.array, cuda.syncwarp}
