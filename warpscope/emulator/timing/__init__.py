"""Warp-scheduler timing model: when each warp of one SM issues, and why it waits.

Fed by the functional layer's per-warp instruction streams (``warpscope.emulator.trace``),
it runs one SM cycle by cycle (``sm.SM``) with per-architecture parameters
(``params.TIMINGS``) and a memory system of queues and a sector cache (``memory``), and
scales to the whole grid: a grid larger than the GPU is timed from the SM with the most
blocks (SM 0's round-robin share, ceil(blocks / SMs) of them, taken from across the grid);
a smaller one from up to eight single-block SMs (first block, last block, evenly between),
the slowest deciding the duration.
"""

from __future__ import annotations

import copy
import functools
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from warpscope.emulator.instructions import Inst, Op
from warpscope.emulator.timing import compiled
from warpscope.emulator.timing.memory import MemorySystem
from warpscope.emulator.timing.params import TIMINGS, Timing, timing_for
from warpscope.emulator.timing.sm import POLICIES, SM, STATES, SMResult
from warpscope.emulator.trace import Flat, Trace, WarpStream
from warpscope.occupancy.calculator import Occupancy, evaluate

__all__ = ["POLICIES", "STATES", "TIMINGS", "Timing", "TimingResult", "simulate", "timing_for"]

MIN_L1_BYTES = 16 * 1024
#: launches of up to this many traced warp instructions keep their result for a later launch
#: whose trace is the same (a loop launching a small kernel: the same streams, the same answer)
MEMO_MAX_TRACED = 20_000
_MEMO: OrderedDict[tuple[object, ...], tuple[list[Inst], Timing, TimingResult]] = OrderedDict()
_MEMO_SIZE = 64
#: the instruction tables of kernels timed before, by identity (``_first_timed``)
_TIMED: OrderedDict[int, list[Inst]] = OrderedDict()


@dataclass
class TimingResult:
    """The timed launch: totals over the simulated SMs, scaled to the grid where needed."""

    arch: str
    policy: str
    clock_hz: float
    cycles: int  # the slowest simulated SM, first block start to last retire
    duration_ns: float  # launch overhead + cycles at the clock
    sms: int  # SMs of the device
    active_sms: int  # SMs that get at least one block
    simulated: list[SMResult] = field(default_factory=list)
    max_warps: int = 64
    launch_overhead_ns: float = 0.0
    wall_s: float = 0.0  # host time the simulation took

    def total(self, name: str) -> int:
        return sum(getattr(r, name) for r in self.simulated)

    @property
    def issued(self) -> int:
        return self.total("issued")

    def state_cycles(self) -> dict[str, int]:
        return {s: sum(r.state_cycles[i] for r in self.simulated) for i, s in enumerate(STATES)}


def simulate(
    trace: Trace,
    table: list[Inst],
    arch: str,
    block_threads: int,
    registers: int,
    static_shared: int,
    dynamic_shared: int,
    barriers: int,
    policy: str = "gty",
    jit: bool | None = None,
) -> TimingResult:
    """Time a traced launch on ``arch`` (``jit``: through the compiled model, ``compiled``;
    None: where numba is installed and the launch is large enough to repay loading it).

    A small launch whose trace, kernel and configuration equal an earlier one's (``_MEMO``)
    gets that launch's result without simulating again: the model is deterministic. A
    kernel's first timed launch is not hashed (``_TIMED``): only a kernel launched again can
    repeat a trace."""
    if jit is None:
        jit = compiled.use_compiled(trace.traced)
    if trace.traced > MEMO_MAX_TRACED or _first_timed(table):
        return _simulate(
            trace, table, arch, block_threads, registers, static_shared, dynamic_shared, barriers, policy, jit
        )
    t = timing_for(arch)  # its parameters: the same object on a hit (hashing them costs more)
    key = (
        trace.digest(),
        arch,
        block_threads,
        registers,
        static_shared,
        dynamic_shared,
        barriers,
        policy,
        jit,
    )
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is table and hit[1] is t:
        _MEMO.move_to_end(key)
        return copy.copy(hit[2])
    result = _simulate(
        trace, table, arch, block_threads, registers, static_shared, dynamic_shared, barriers, policy, jit
    )
    _MEMO[key] = (table, t, result)
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return copy.copy(result)


def _first_timed(table: list[Inst]) -> bool:
    """Whether no launch of the kernel whose instruction table is ``table`` was timed before
    (remembered for the last ``_MEMO_SIZE`` kernels; the table is the compiled kernel's own)."""
    key = id(table)
    if _TIMED.get(key) is table:
        _TIMED.move_to_end(key)
        return False
    _TIMED[key] = table
    while len(_TIMED) > _MEMO_SIZE:
        _TIMED.popitem(last=False)
    return True


def _simulate(
    trace: Trace,
    table: list[Inst],
    arch: str,
    block_threads: int,
    registers: int,
    static_shared: int,
    dynamic_shared: int,
    barriers: int,
    policy: str,
    jit: bool,
) -> TimingResult:
    started = time.perf_counter()
    t = timing_for(arch)
    occ = _occupancy(arch, block_threads, registers, static_shared, dynamic_shared, barriers)
    max_blocks = max(1, occ.active_blocks_per_sm) if not occ.error else 1
    max_warps = occ.arch.max_warps_per_sm if not occ.error else 64
    shared_per_block = (
        static_shared + dynamic_shared + (occ.arch.reserved_shared_per_block if not occ.error else 0)
    )
    l1_bytes = max(MIN_L1_BYTES, t.l1_bytes - (max_blocks * shared_per_block if shared_per_block else 0))
    n_blocks = trace.n_blocks
    active_sms = min(t.sms, n_blocks)
    big_grid = n_blocks > t.sms
    grid_loads, grid_stores = trace.grid_sectors(store=False), trace.grid_sectors(store=True)
    flat = trace.flat() if jit else None  # the compiled model's input
    streams = None if jit else trace.streams  # the reference model's
    sectors = compiled.Sectors(flat.sectors) if flat is not None else None
    gathered = compiled.Gathered(table, flat) if flat is not None and len(trace.per_sm) > 1 else None
    wpb = trace.warps_per_block
    parts = list(_parts(trace.per_sm, wpb))
    fractions = None if flat is None else _flat_fractions(grid_loads, grid_stores, flat, parts, active_sms)
    results: list[SMResult] = []
    jobs: list[functools.partial[SMResult]] = []  # the compiled model's SMs, run together below
    for k, (blocks, part) in enumerate(zip(trace.per_sm, parts)):
        mine = [] if streams is None else streams[part.start : part.stop]
        if fractions is not None:
            load_fraction, store_fraction = fractions[k]
        else:
            load_fraction = _fraction(grid_loads, mine, (Op.LDG, Op.ATOMG), active_sms)
            store_fraction = _fraction(grid_stores, mine, (Op.STG,), active_sms)
        dispatch_interval = t.sms / t.blocks_per_cycle if big_grid else 0.0
        first_dispatch = 0 if big_grid else int(blocks[0] / t.blocks_per_cycle)
        if flat is not None and sectors is not None:
            jobs.append(
                functools.partial(
                    compiled.run,
                    t,
                    table,
                    compiled.Part(flat, sectors, part, blocks, wpb, gathered),
                    max_blocks,
                    max_warps,
                    l1_bytes // 32,
                    load_fraction,
                    store_fraction,
                    policy,
                    dispatch_interval,
                    first_dispatch,
                )
            )
            continue
        memory = MemorySystem(t, l1_bytes // 32, load_fraction, store_fraction)
        sm = SM(
            t,
            table,
            [mine[b : b + wpb] for b in range(0, len(mine), wpb)],
            max_blocks,
            max_warps,
            memory,
            policy,
            dispatch_interval=dispatch_interval,
            first_dispatch=first_dispatch,
        )
        results.append(sm.run())
    if jobs:
        results = compiled.run_all(jobs, trace.traced)
    cycles = max((r.cycles for r in results), default=0)
    result = TimingResult(
        arch=t.arch,
        policy=policy,
        clock_hz=t.clock_hz,
        cycles=cycles,
        duration_ns=t.launch_overhead_ns + cycles / t.clock_hz * 1e9,
        sms=t.sms,
        active_sms=active_sms,
        simulated=results,
        max_warps=max_warps,
        launch_overhead_ns=t.launch_overhead_ns,
    )
    if not jit:
        compiled.spent_in_reference(time.perf_counter() - started, trace.traced)
    return result


@functools.lru_cache(maxsize=256)
def _occupancy(
    arch: str, block_threads: int, registers: int, static_shared: int, dynamic_shared: int, barriers: int
) -> Occupancy:
    """The occupancy calculator's answer, once per launch configuration (a launch's fixed
    cost: a loop launching one kernel thousands of times asks the same question each time)."""
    return evaluate(arch, block_threads, registers, static_shared, dynamic_shared, barriers=barriers)


def _fraction(grid_sectors: int, streams: list[WarpStream], ops: tuple[Op, ...], sms: int) -> float:
    """Of the sectors new to one SM, the share that is the grid's first touch (DRAM)."""
    seen: set[int] = set()
    for s in streams:
        for op, a in zip(s.ops, s.accesses):
            if a is not None and a.sectors is not None and op in ops:
                seen.update(a.sectors.tolist())
    if not seen:
        return 1.0
    return float(np.clip(grid_sectors / (len(seen) * sms), 0.0, 1.0))


def _parts(per_sm: list[list[int]], warps_per_block: int) -> Iterator[range]:
    """Each simulated SM's streams: its blocks' warps, in order, numbered on from the last SM's."""
    first = 0
    for blocks in per_sm:
        yield range(first, first + len(blocks) * warps_per_block)
        first += len(blocks) * warps_per_block


def _flat_fractions(
    grid_loads: int, grid_stores: int, flat: Flat, parts: list[range], sms: int
) -> list[tuple[float, float]]:
    """``_fraction`` of loads and of stores, per SM whose streams are ``parts``, on the flat
    trace (the compiled model's input): one sort of every access's sectors, keyed by SM and
    direction, for all of them (no loop over instructions or SMs)."""
    n = len(parts)
    if not flat.sectors.size:
        return [(1.0, 1.0)] * n
    if flat.ops.size <= FEW_FRACTION_POSITIONS:
        return _few_fractions(grid_loads, grid_stores, flat, parts, sms)
    # per position: 0 a load (LDG, ATOMG), 1 a store (STG), its SM; positions with no sectors out
    direction = _DIRECTION[flat.ops]
    chosen = np.flatnonzero((direction >= 0) & (flat.sec_off[:, 0] >= 0))
    bounds = flat.start[[p.stop for p in parts]]
    group = np.searchsorted(bounds, chosen, side="right") * 2 + direction[chosen]
    offsets = flat.sec_off[chosen]
    lengths = offsets[:, 1] - offsets[:, 0]
    total = int(lengths.sum())
    seen = np.zeros(2 * n, np.int64)
    if total:
        # every sector of those accesses (each run of ``lengths`` from its own start), tagged
        # with its group in the high bits: distinct (group, sector) pairs by one sort
        index = np.repeat(offsets[:, 0] - (np.cumsum(lengths) - lengths), lengths) + np.arange(total)
        sectors = flat.sectors[index]
        tags = np.repeat(group, lengths)
        if int(sectors.max()) < 1 << _GROUP_SHIFT and 2 * n < 1 << (63 - _GROUP_SHIFT):
            ordered = np.sort((tags << _GROUP_SHIFT) | sectors)
            new = np.ones(ordered.size, bool)
            new[1:] = ordered[1:] != ordered[:-1]
            seen = np.bincount(ordered[new] >> _GROUP_SHIFT, minlength=2 * n)
        else:  # sector ids too wide to share a word with the group: sorted as pairs
            order = np.lexsort((sectors, tags))
            s_o, t_o = sectors[order], tags[order]
            new = np.ones(order.size, bool)
            new[1:] = (s_o[1:] != s_o[:-1]) | (t_o[1:] != t_o[:-1])
            seen = np.bincount(t_o[new], minlength=2 * n)
    counts = seen.tolist()
    return [
        (_share(grid_loads, counts[2 * k], sms), _share(grid_stores, counts[2 * k + 1], sms))
        for k in range(n)
    ]


#: traced positions up to which ``_flat_fractions`` counts on Python sets (``_few_fractions``):
#: c65's one-warp launch 17.5 µs on numpy, 5.2 here; c84's 19.1 and 12.4
FEW_FRACTION_POSITIONS = 128


def _few_fractions(
    grid_loads: int, grid_stores: int, flat: Flat, parts: list[range], sms: int
) -> list[tuple[float, float]]:
    """``_flat_fractions`` of a small trace, each SM's distinct sectors in two sets."""
    direction = _DIRECTION[flat.ops].tolist()
    runs = flat.sec_off.tolist()
    sectors = flat.sectors.tolist()
    start = flat.start.tolist()
    out = []
    for part in parts:
        seen: tuple[set[int], set[int]] = (set(), set())
        for at in range(start[part.start], start[part.stop]):
            d = direction[at]
            lo, hi = runs[at]
            if d >= 0 and lo >= 0:
                seen[d].update(sectors[lo:hi])
        out.append((_share(grid_loads, len(seen[0]), sms), _share(grid_stores, len(seen[1]), sms)))
    return out


def _share(grid_sectors: int, distinct: int, sms: int) -> float:
    """``_fraction``'s answer from an SM's count of distinct sectors."""
    return min(max(grid_sectors / (distinct * sms), 0.0), 1.0) if distinct else 1.0


#: bits of a sector id below its group in ``_flat_fractions``' sort keys
_GROUP_SHIFT = 56
#: per op: 0 a load that counts towards the grid's first touches (LDG, ATOMG), 1 a store
#: (STG), -1 neither
_DIRECTION = np.full(max(Op) + 1, -1, np.int64)
_DIRECTION[[Op.LDG, Op.ATOMG]] = 0
_DIRECTION[Op.STG] = 1
