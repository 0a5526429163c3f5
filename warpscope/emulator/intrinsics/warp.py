"""Warp-level intrinsics: ``syncwarp``, shuffles, votes, ``activemask``, ``lanemask_lt``;
every live lane a mask names must be executing the call, or the kernel faults as on a GPU."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import device_api as device
from warpscope.emulator.instructions import Op
from warpscope.emulator.intrinsics.registry import BUILDERS, all_deps, arguments, register
from warpscope.emulator.ir import Compiling, deps, run_expr, truth, with_deps
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import WARP, Mask

FULL_MASK = 0xFFFFFFFF


def lane_bits(arr: np.ndarray) -> np.ndarray:
    """One 32-bit mask per warp from one bool per lane."""
    return (arr.reshape(-1, WARP).astype(np.uint64) << np.arange(WARP, dtype=np.uint64)).sum(axis=1)


def named_lanes(members: Any) -> np.uint64:
    """The lanes a vote or match takes part in: a uniform mask as given, a per-lane one (each
    lane naming its own) as the whole warp, the check having passed."""
    return np.uint64(int(members) & FULL_MASK) if not np.ndim(members) else np.uint64(FULL_MASK)


def check_members(run: Run, line: int, mask: Mask, members: Any, what: str) -> None:
    """Every live lane named in ``members`` must be executing this warp intrinsic."""
    active = lane_bits(mask.arr)
    alive = lane_bits(run.alive)
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
        raise run.fault(
            line,
            f"{what} with mask 0x{int(np.broadcast_to(named, active.shape)[w]):08x} "
            f"but lanes 0x{int(missing[w]):08x} of the warp are not executing it "
            "(diverged or exited)",
            lane=lane,
        )


@register(device.syncwarp, keywords=True)
def _syncwarp(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    (m,) = arguments(c, node, args, ("mask",), {"mask": np.int64(FULL_MASK)})
    mf = run_expr(m)
    inst = c.inst(line, Op.ALU, deps(m))

    def syncwarp(run: Run, frame: Frame, mask: Mask) -> Any:
        check_members(run, line, mask, mf(run, frame, mask), "syncwarp")
        if run.race is not None:
            run.race.syncwarp(mask)
        run.issue(inst, mask)
        return None

    return syncwarp


def _shuffle(kind: str) -> Callable[..., Any]:
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        third = {"idx": "src_lane", "up": "delta", "down": "delta", "xor": "lane_mask"}[kind]
        nodes = arguments(c, node, args, ("mask", "value", third))
        m, v, x = (run_expr(a) for a in nodes)
        inst = c.inst(line, Op.SHFL, all_deps(nodes))

        def shuffle(run: Run, frame: Frame, mask: Mask) -> Any:
            check_members(
                run, line, mask, m(run, frame, mask), f"shfl_{kind}_sync" if kind != "idx" else "shfl_sync"
            )
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
    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        nodes = arguments(c, node, args, ("mask", "predicate"))
        m, p = (run_expr(a) for a in nodes)
        inst = c.inst(line, Op.ALU, all_deps(nodes))

        def vote(run: Run, frame: Frame, mask: Mask) -> Any:
            members = m(run, frame, mask)
            check_members(run, line, mask, members, f"{kind}_sync")
            run.issue(inst, mask)
            named = named_lanes(members)
            pred = np.broadcast_to(truth(p(run, frame, mask)), mask.arr.shape) & mask.arr
            voted = lane_bits(pred) & named
            # vote.sync returns a 32-bit signed integer in numba (lane 31's bit is the sign)
            if kind == "ballot":
                per_warp = voted.astype(np.uint32).view(np.int32)
            elif kind == "any":
                per_warp = (voted != 0).astype(np.int32)
            elif kind == "eq":
                voting = lane_bits(mask.arr) & named
                per_warp = ((voted == 0) | (voted == voting)).astype(np.int32)
            else:
                per_warp = (voted == (lane_bits(mask.arr) & named)).astype(np.int32)
            return np.repeat(per_warp, WARP)

        return with_deps(vote, {inst.dst})

    return build


@register(device.activemask)
def _activemask(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    arguments(c, node, args, ())
    inst = c.inst(line, Op.ALU)

    def activemask(run: Run, frame: Frame, mask: Mask) -> Any:
        run.issue(inst, mask)
        return np.repeat(lane_bits(mask.arr).astype(np.int64), WARP)

    return activemask


@register(device.lanemask_lt)
def _lanemask_lt(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
    arguments(c, node, args, ())
    return lambda run, frame, mask: (np.int64(1) << run.chunk.lane_id) - 1


BUILDERS.update(
    {
        device.shfl_sync: _shuffle("idx"),
        device.shfl_up_sync: _shuffle("up"),
        device.shfl_down_sync: _shuffle("down"),
        device.shfl_xor_sync: _shuffle("xor"),
        device.ballot_sync: _vote("ballot"),
        device.all_sync: _vote("all"),
        device.any_sync: _vote("any"),
        device.eq_sync: _vote("eq"),
    }
)


def _match(kind: str) -> Callable[..., Any]:
    """``match_any_sync``: each lane gets the mask of named lanes holding its value;
    ``match_all_sync``: (the named lanes' mask, True) where all hold one value, else (0, False).
    The masks are int32, as numba-cuda types them (lane 31's bit makes them negative: the H100
    gives -268435456 for lanes 28-31)."""

    def build(c: Compiling, node: ast.Call, args: list[Any], line: int) -> Any:
        nodes = arguments(c, node, args, ("mask", "value"))
        m, v = (run_expr(a) for a in nodes)
        inst = c.inst(line, Op.ALU, all_deps(nodes))

        def match(run: Run, frame: Frame, mask: Mask) -> Any:
            members = m(run, frame, mask)
            check_members(run, line, mask, members, f"match_{kind}_sync")
            run.issue(inst, mask)
            named = named_lanes(members)
            voting = lane_bits(mask.arr) & named  # per warp: the lanes taking part
            rows = np.broadcast_to(v(run, frame, mask), mask.arr.shape).reshape(-1, WARP)
            part = ((voting[:, None] >> np.arange(WARP, dtype=np.uint64)) & np.uint64(1)).astype(bool)
            same = (rows[:, :, None] == rows[:, None, :]) & part[:, None, :]
            peers = (same.astype(np.uint64) << np.arange(WARP, dtype=np.uint64)).sum(axis=2)
            if kind == "any":
                return np.where(part, peers, 0).astype(np.uint32).view(np.int32).reshape(-1)
            whole = (peers == voting[:, None]) | ~part
            agreed = whole.all(axis=1)
            bits = np.where(agreed, voting, 0).astype(np.uint32).view(np.int32)
            return np.repeat(bits, WARP), np.repeat(agreed, WARP)

        return with_deps(match, {inst.dst})

    return build


BUILDERS[device.match_any_sync] = _match("any")
BUILDERS[device.match_all_sync] = _match("all")
