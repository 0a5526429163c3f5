"""``device.atomic.*``: applied lane after lane in lane order, each lane getting the value it
saw, counted as global or shared atomic requests."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import arrays
from warpscope.emulator import device_api as device
from warpscope.emulator.errors import KernelMistake
from warpscope.emulator.instructions import Op
from warpscope.emulator.intrinsics.registry import all_deps, arguments, register
from warpscope.emulator.ir import Compiling, run_expr, with_deps
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask


def _keep_nan(pick: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``pick(memory, operand)`` ignoring a NaN operand but keeping a NaN already in memory:
    what the H100 gives for numba's ``atomic.max``/``min`` on floats (max(63.0, nan) is 63.0;
    a NaN in the array stays: tools/gpu/measured/issue39_probe.txt)."""

    def combine(memory: Any, operand: Any) -> Any:
        out = pick(memory, operand)
        if np.asarray(memory).dtype.kind != "f":
            return out
        return np.where(np.isnan(memory), memory, out)

    return combine


#: how the operands of one address combine among themselves (a scan over lanes)
_SCAN: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add,
    "sub": np.add,
    "max": np.fmax,  # a NaN operand is ignored (fmax is maximum on integers)
    "min": np.fmin,
    "nanmax": np.fmax,  # NaN is a missing value, in memory too
    "nanmin": np.fmin,
    "and_": np.bitwise_and,
    "or_": np.bitwise_or,
    "xor": np.bitwise_xor,
}
#: how the combined operands meet the value in memory, where that differs from ``_SCAN``
_COMBINE: dict[str, Callable[[Any, Any], Any]] = {"max": _keep_nan(np.fmax), "min": _keep_nan(np.fmin)}


def _atomic(op: str) -> Callable[..., Any]:
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        names = {
            "cas": ("ary", "idx", "old", "val"),
            "compare_and_swap": ("ary", "old", "val"),  # on ary[0]
        }.get(op, ("ary", "idx", "val"))
        nodes = arguments(c, node, args, names)
        fns = [run_expr(a) for a in nodes]
        inst = c.inst(line, None, all_deps(nodes))
        step = "cas" if op == "compare_and_swap" else op

        def atomic(run: Run, frame: Frame, mask: Mask) -> Any:
            values = [f(run, frame, mask) for f in fns]
            if op == "compare_and_swap":
                values.insert(1, np.int64(0))
            target, idx = values[0], values[1]
            index = idx if isinstance(idx, tuple) else (idx,)
            array, full = arrays.resolve(target, index)
            try:
                full = arrays.checked_index(array, full, mask, write=True)
            except arrays.OutOfBounds as e:
                e.args = (str(e).replace("write", "atomic"),)
                raise run.out_of_bounds(line, e) from None
            site = run.counters.site(line)
            if array.kind == "global":
                site.global_atomic_requests += mask.warps
            elif array.kind == "shared":
                site.shared_atomic_requests += mask.warps
            else:
                raise KernelMistake(f"atomics need a global or shared array, not {array.kind} {array.name}")
            run.issue(
                inst,
                mask,
                Op.ATOMG if array.kind == "global" else Op.ATOMS,
                run.memory_cost(array, full, mask),
            )
            if run.race is not None:
                run.race.access(array, full, None, mask, line, True, atomic=True)
            return _apply_atomic(step, array, full, values[2:], mask)

        return with_deps(atomic, {inst.dst})

    return build


def _apply_atomic(
    op: str, array: arrays.ArrayRef, index: tuple[Any, ...], operands: list[Any], mask: Mask
) -> Any:
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
    vals = [
        np.broadcast_to(
            np.asarray(v, dtype=data.dtype) if not np.ndim(v) else v.astype(data.dtype), mask.arr.shape
        )[lanes][order]
        for v in operands
    ]
    starts = np.ones(keys.size, dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    seg = np.cumsum(starts) - 1
    if op in _SCAN:
        v = -vals[0] if op == "sub" else vals[0]
        incl = _segmented_scan(_SCAN[op], v, seg)
        combine = _COMBINE.get(op, _SCAN[op])
        excl_prev = np.where(starts, current, combine(current, np.roll(incl, 1)))
        old_sorted = excl_prev
        final_pos = np.flatnonzero(np.append(starts[1:], True))
        data[tuple(s[final_pos] for s in sel)] = combine(current[final_pos], incl[final_pos])
    elif op == "exch":
        old_sorted = np.where(starts, current, np.roll(vals[0], 1))
        final_pos = np.flatnonzero(np.append(starts[1:], True))
        data[tuple(s[final_pos] for s in sel)] = vals[0][final_pos]
    else:  # cas, inc, dec: lane by lane within each address (rounds = most lanes on one address)
        step = _STEPS[op]
        old_sorted = np.empty_like(current)
        rank = np.arange(keys.size) - np.flatnonzero(starts)[seg]
        seg_value = current[starts].copy()
        for r in range(int(rank.max()) + 1 if rank.size else 0):
            turn = rank == r
            s = seg[turn]
            before = seg_value[s]
            old_sorted[turn] = before
            seg_value[s] = step(before, *(v[turn] for v in vals))
        first = np.flatnonzero(starts)
        data[tuple(s[first] for s in sel)] = seg_value
    old = np.empty(mask.arr.shape, dtype=data.dtype)
    old[lanes[order]] = old_sorted
    return old


#: the new value of the atomics whose result depends on the old one (CUDA's definitions)
_STEPS: dict[str, Callable[..., Any]] = {
    "cas": lambda old, compare, val: np.where(old == compare, val, old),
    "inc": lambda old, val: np.where(old >= val, 0, old + 1).astype(old.dtype),
    "dec": lambda old, val: np.where((old == 0) | (old > val), val, old - 1).astype(old.dtype),
}


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


for _op in device.ATOMIC_OPS:
    register(getattr(device.atomic, _op))(_atomic(_op))
