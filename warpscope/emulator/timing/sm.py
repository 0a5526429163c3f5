"""One streaming multiprocessor, cycle by cycle: four schedulers issuing from resident warps.

Warps take hardware slots as their block is started; slot ``s`` belongs to sub-partition
``s % 4``. Each cycle each sub-partition picks one eligible warp (policy ``gty``:
greedy-then-youngest, ``gto``: greedy-then-oldest, ``lrr``: loose round robin) and issues
its next instruction. A warp is not eligible while its operands are not ready (the
producing instruction's class says which scoreboard it waits on), while the pipe it needs
is busy, while its sub-partition's memory-instruction queue is full, at a barrier, right
after a branch, before its first instruction is fetched, and while draining at exit.

Every resident warp is in exactly one state every cycle; the states and their order of
precedence are Nsight Compute's (``STATES``). Cycles in which no warp can issue are
skipped in one step to the next time something changes, so the cost follows the number
of issued instructions, not of cycles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter

import numpy as np

from warpscope.emulator.instructions import Inst, Op
from warpscope.emulator.timing.memory import MemorySystem
from warpscope.emulator.timing.params import Timing
from warpscope.emulator.trace import WarpStream
from warpscope.model.stalls import WARP_STATES

# warp state codes: indices into WARP_STATES, in its order
(
    SELECTED,
    NOT_SELECTED,
    WAIT,
    LONG_SB,
    SHORT_SB,
    BARRIER,
    MATH_THROTTLE,
    MIO_THROTTLE,
    LG_THROTTLE,
    BRANCH,
    NO_INSTRUCTION,
    DRAIN,
) = range(12)
STATES = WARP_STATES
NOT_RESIDENT = len(STATES)  # timeline only
NEVER = 1 << 62
POLICIES = ("gty", "gto", "lrr")
_AGE, _SLOT = attrgetter("age"), attrgetter("slot")

_PIPE: dict[int, int] = {Op.ALU: 0, Op.FMA: 1, Op.FP64: 2, Op.XU: 3, Op.FDIV: 3, Op.CVT: 4}
_MIO = (Op.LDS, Op.STS, Op.ATOMS, Op.SHFL)
_LG = (Op.LDG, Op.STG, Op.ATOMG, Op.LDL, Op.STL)
# what an instruction may wait on before it issues: a pipe (0-4, as _PIPE), a queue, nothing
_FMA_KIND, _XU_KIND, _MIO_KIND, _LG_KIND, _OTHER_KIND = 1, 3, 5, 6, 7
_KIND: dict[int, int] = {
    **dict.fromkeys(Op, _OTHER_KIND),
    **_PIPE,
    **dict.fromkeys(_MIO, _MIO_KIND),
    **dict.fromkeys(_LG, _LG_KIND),
}


@dataclass
class Block:
    index: int
    warps: list[Warp] = field(default_factory=list)
    live: int = 0
    release: int = 0  # when the last warp's resources are free
    at_barrier: list[Warp] = field(default_factory=list)


class Warp:
    __slots__ = (
        "accesses",
        "age",
        "block",
        "dsts",
        "kinds",
        "left",
        "ns",
        "ops",
        "pc",
        "ready",
        "since",
        "slot",
        "smsp",
        "srcs",
        "start",
        "state",
        "stores_done",
        "stream",
        "when",
        "why",
    )

    def __init__(
        self, slot: int, age: int, block: Block, stream: WarpStream, table: list[Inst], start: int
    ) -> None:
        self.slot, self.smsp, self.age, self.block = slot, slot % 4, age, block
        self.stream = stream
        insts = [table[i] for i in stream.insts]
        self.ops = stream.ops
        self.kinds = [_KIND[op] for op in stream.ops]
        self.srcs = [i.srcs for i in insts]
        self.dsts = [i.dst for i in insts]
        self.ns = [i.n for i in insts]
        self.accesses = stream.accesses
        self.pc = 0
        self.left = 0  # issues left of a multi-instruction site
        self.ready: dict[int, tuple[int, int]] = {}
        self.when, self.why = start, NO_INSTRUCTION
        self.state, self.since = NO_INSTRUCTION, start
        self.stores_done = 0
        self.start = start


@dataclass
class SMResult:
    """What one simulated SM measured."""

    cycles: int = 0  # first block start to last warp retired
    issued: int = 0
    state_cycles: list[int] = field(default_factory=lambda: [0] * len(STATES))
    resident_warp_cycles: int = 0
    smsp_active_cycles: int = 0
    eligible_warp_cycles: int = 0
    blocks: int = 0
    l1_lookups: int = 0
    l1_hits: int = 0
    l2_lookups: int = 0
    l2_hits: int = 0
    dram_sectors: int = 0
    # rows (warp slot, block, warp, sub-partition, start cycle, end cycle, state), an int64 array
    timeline: np.ndarray = field(default_factory=lambda: np.zeros((0, 7), np.int64))
    timeline_complete: bool = True


class SM:
    """Runs the warp streams of the blocks one SM is given, in block order."""

    def __init__(
        self,
        t: Timing,
        table: list[Inst],
        blocks: list[list[WarpStream]],
        max_blocks: int,
        max_warps: int,
        memory: MemorySystem,
        policy: str = "gty",
        dispatch_interval: float = 0.0,
        first_dispatch: int = 0,
        timeline_limit: int = 200_000,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"scheduler policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        self.t, self.table, self.mem, self.policy = t, table, memory, policy
        self.pending = list(reversed(blocks))
        self.max_blocks, self.max_warps = max_blocks, max_warps
        self.dispatch_interval = dispatch_interval
        self.next_dispatch = first_dispatch
        self.free_slots = list(range(max_warps - 1, -1, -1))
        self.freeing: list[tuple[int, int]] = []  # (cycle, warp slot) of draining warps
        self.retiring: list[int] = []  # cycles at which finished blocks release resources
        self.resident: list[Block] = []
        self.smsp: list[list[Warp]] = [[] for _ in range(4)]
        self.pipe_free = [[0] * 5 for _ in range(4)]
        self.mio_queue: list[list[float]] = [[] for _ in range(4)]
        self.lg_queue: list[list[float]] = [[] for _ in range(4)]
        self.shared_free = 0.0
        self.shared_step = 1.0 / t.shared_wavefronts_per_cycle
        self.shuffle_step = 1.0 / t.shuffle_per_cycle
        self.last_issued: list[Warp | None] = [None] * 4
        # per sub-partition, a lower bound of its warps' ``when``: a sub-partition none of whose
        # warps can be eligible at ``now`` is skipped without looking at them (every change to a
        # warp's ``when`` outside its sub-partition's own scan lowers this bound)
        self.smsp_wake = [NEVER] * 4
        self.ages = 0
        self.last_retire = 0
        self.cold = True
        self.r = SMResult()
        self._state_cycles = self.r.state_cycles
        self._timeline: list[tuple[int, int, int, int, int, int, int]] = []
        self.xu_refinement = t.xu_refinement
        self.timeline_limit = timeline_limit
        self.smsp_resident = [0] * 4
        self.smsp_since = [0] * 4
        self.interval = {
            0: 128 // t.alu_lanes,
            1: max(1, 128 // t.fma_lanes),
            2: max(1, 128 // t.fp64_lanes),
            3: max(1, 128 // t.xu_lanes),
            4: max(1, 128 // t.cvt_lanes),
        }
        # when an arithmetic result is ready, and what a warp waiting on it is stalled on
        refined = (t.fma_latency, WAIT)  # a MUFU's last refinement instruction is an FMA
        self.result_latency: dict[int, tuple[int, int]] = {
            Op.FMA: (t.fma_latency, WAIT),
            Op.ALU: (t.alu_latency, WAIT),
            Op.FP64: (t.fp64_latency, WAIT),
            Op.CVT: (t.conversion_latency, SHORT_SB),
            Op.XU: refined if t.xu_refinement else (t.xu_latency, SHORT_SB),
            Op.FDIV: refined if t.xu_refinement else (t.fdiv_latency, SHORT_SB),
        }

    # -- the main loop ---------------------------------------------------------------
    def run(self) -> SMResult:
        now = 0
        first = None
        while True:
            # blocks start only from ``next_dispatch`` on; before it, releasing resources can
            # wait (slots are sorted before they are taken, so when they return is all that counts)
            if self.pending and now >= self.next_dispatch:
                self._dispatch(now)
                if first is None and self.resident:
                    first = now
            elif not self.resident and not self.pending:
                now = max(now, self.last_retire)
                break
            progressed, wake = self._cycle(now)
            if progressed:
                now += 1
                continue
            if self.pending:
                self._release_resources(now)
                wake = min(wake, max(self.next_dispatch, self._capacity_at(now), now + 1))
            if wake >= NEVER:
                raise RuntimeError("timing model: no warp can ever issue again (a barrier no warp reaches?)")
            now = max(now + 1, wake)
        r = self.r
        r.cycles = now - (first or 0)
        # the intervals' fields streamed into one array (np.array of the tuples: twice as slow)
        tl = self._timeline
        r.timeline = np.fromiter(chain.from_iterable(tl), np.int64, count=7 * len(tl)).reshape(-1, 7)
        m = self.mem
        r.l1_lookups, r.l1_hits, r.l2_lookups, r.l2_hits, r.dram_sectors = (
            m.l1_lookups,
            m.l1_hits,
            m.l2_lookups,
            m.l2_hits,
            m.dram_sectors,
        )
        return r

    def _warps_next(self) -> int:
        return len(self.pending[-1]) if self.pending else 0

    def _release_resources(self, now: int) -> None:
        self.retiring = [c for c in self.retiring if c > now]
        if self.freeing and min(c for c, _ in self.freeing) <= now:
            self.free_slots.extend(slot for c, slot in self.freeing if c <= now)
            self.freeing = [(c, slot) for c, slot in self.freeing if c > now]

    def _has_room(self) -> bool:
        return (
            len(self.resident) + len(self.retiring) < self.max_blocks
            and len(self.free_slots) >= self._warps_next()
        )

    def _capacity_at(self, now: int) -> int:
        """The first cycle at which the next block fits (resources of draining warps return)."""
        times = sorted({c for c, _ in self.freeing} | set(self.retiring))
        if self._has_room():
            return now
        for c in times:
            blocks = len(self.resident) + sum(1 for r in self.retiring if r > c)
            slots = len(self.free_slots) + sum(1 for f, _ in self.freeing if f <= c)
            if blocks < self.max_blocks and slots >= self._warps_next():
                return c
        return NEVER

    def _cycle(self, now: int) -> tuple[bool, int]:
        """Issue what can issue at ``now``; (whether anything was eligible, next wake-up time).

        The model's hot loop: the math-pipe hazard is checked inline, and ``_set`` is called
        only where a warp's state changes."""
        wake = NEVER
        any_eligible = False
        refinement = 1 + self.t.xu_refinement
        smsp_wake = self.smsp_wake
        for p in range(4):
            soonest = smsp_wake[p]
            if soonest > now:
                if soonest < wake:
                    wake = soonest
                continue
            soonest = NEVER
            eligible = []
            free = self.pipe_free[p]
            for w in self.smsp[p]:
                when = w.when
                if when > now:
                    if when < soonest:
                        soonest = when
                    continue
                kind = w.kinds[w.pc]
                if kind < _MIO_KIND:
                    if kind == _XU_KIND and w.left < refinement:
                        kind = _FMA_KIND  # a refinement instruction runs on the FMA pipe
                    hazard = free[kind]
                    if hazard <= now:
                        eligible.append(w)
                        continue
                    why = MATH_THROTTLE
                elif kind == _OTHER_KIND:
                    eligible.append(w)
                    continue
                else:
                    hazard, why = self._queue_hazard(w, kind, now)
                    if hazard <= now:
                        eligible.append(w)
                        continue
                if w.state != why:
                    self._set(w, why, now)
                w.when, w.why = hazard, why
                if hazard < soonest:
                    soonest = hazard
            if not eligible:
                smsp_wake[p] = soonest
                if soonest < wake:
                    wake = soonest
                continue
            any_eligible = True
            self.r.eligible_warp_cycles += len(eligible)
            if len(eligible) > 1:
                pick = self._pick(p, eligible)
                soonest = now  # the others stay eligible
            else:
                pick = eligible[0]
            smsp_wake[p] = soonest
            for w in eligible:
                if w is not pick and w.state != NOT_SELECTED:
                    self._set(w, NOT_SELECTED, now)
            self._issue(pick, now)
            if pick.when < smsp_wake[p]:
                smsp_wake[p] = pick.when
        return any_eligible, wake

    def _pick(self, p: int, eligible: list[Warp]) -> Warp:
        last = self.last_issued[p]
        if self.policy == "lrr":
            after = last.slot if last is not None else -1
            later = [w for w in eligible if w.slot > after]
            return min(later or eligible, key=_SLOT)
        if last is not None and last in eligible:
            return last
        if self.policy == "gto":
            return min(eligible, key=_AGE)
        return max(eligible, key=_AGE)

    # -- one warp ---------------------------------------------------------------------
    def _queue_hazard(self, w: Warp, kind: int, now: int) -> tuple[int, int]:
        """When ``w``'s memory instruction finds room in its sub-partition's queue (> now:
        throttled), and the stall reason until then."""
        if kind == _MIO_KIND:
            return self._queue_free(self.mio_queue[w.smsp], now, self.t.mio_queue, MIO_THROTTLE)
        return self._queue_free(self.lg_queue[w.smsp], now, self.t.lg_queue, LG_THROTTLE)

    @staticmethod
    def _queue_free(queue: list[float], now: int, depth: int, why: int) -> tuple[int, int]:
        while queue and queue[0] <= now:
            queue.pop(0)
        if len(queue) < depth:
            return now, 0
        return math.ceil(queue[0]), why

    def _issue(self, w: Warp, now: int) -> None:
        """``w`` issues its next instruction at ``now``: what it occupies, when its result is
        ready, and when the warp may issue again (by pipe class, each in its own method).

        The commonest case, the last (or only) arithmetic instruction of a site followed by an
        instruction that is not a variable definition, runs inline: ``_issue_arithmetic``,
        ``_advance`` and ``_schedule`` in one, with the same effects."""
        self._set(w, SELECTED, now)
        self.last_issued[w.smsp] = w
        self.r.issued += 1
        pc = w.pc
        op = w.ops[pc]
        if w.left > 1:  # not the last instruction of its site
            self._issue_within_site(w, op, now)
            return
        ops = w.ops
        pipe = _PIPE.get(op)
        if pipe is not None and pc + 1 < len(ops) and ops[pc + 1] is not Op.DEF:
            if (op is Op.XU or op is Op.FDIV) and self.xu_refinement:
                pipe = 1  # the last refinement instruction runs on the FMA pipe
            self.pipe_free[w.smsp][pipe] = now + self.interval[pipe]
            latency, kind = self.result_latency[op]
            ready = w.ready
            ready[w.dsts[pc]] = (now + latency, kind)
            pc += 1
            w.pc = pc
            nxt = ops[pc]
            w.left = 1 + self.xu_refinement if nxt is Op.XU or nxt is Op.FDIV else w.ns[pc]
            # _schedule(w, now + 1, now + 1, NOT_SELECTED)
            when, why = now + 1, NOT_SELECTED
            for src in w.srcs[pc]:
                r = ready.get(src)
                if r is not None and r[0] > when:
                    when, why = r
            w.when, w.why = when, why
            if when < self.smsp_wake[w.smsp]:
                self.smsp_wake[w.smsp] = when
            self._set(w, why if when > now + 1 else NOT_SELECTED, now + 1)
            return
        ready_at, reason = now + 1, NOT_SELECTED
        if pipe is not None:
            self._issue_arithmetic(w, op, now)
        elif op in _MIO:
            self._issue_mio(w, op, now)
        elif op in _LG:
            self._issue_lg(w, op, now)
        elif op is Op.BAR:
            self._advance(w, now)
            self._barrier(w, now)
            return
        elif op is Op.BRA:
            ready_at, reason = now + self.t.branch_cycles, BRANCH
        self._advance(w, now)
        if w.pc >= len(w.ops):
            self._exit(w, now + 1)
            return
        self._schedule(w, now + 1, ready_at, reason)

    def _issue_within_site(self, w: Warp, op: int, now: int) -> None:
        """One of several instructions of a site (an unrolled body, MUFU and its refinement):
        the warp stays on the site."""
        t = self.t
        sequence = op is Op.XU or op is Op.FDIV
        first = w.left == self._issues(op, w.ns[w.pc])
        w.left -= 1
        if sequence and first:  # MUFU: the refinement waits for its result
            self.pipe_free[w.smsp][3] = now + self.interval[3]
            w.when, w.why = now + t.mufu_latency, SHORT_SB
        elif sequence:  # refinement: dependent FMA-pipe instructions
            self.pipe_free[w.smsp][1] = now + self.interval[1]
            w.when, w.why = now + t.fma_latency, WAIT
        else:
            w.when, w.why = now + 1, NOT_SELECTED
        self._set(w, w.why, now + 1)

    def _issue_arithmetic(self, w: Warp, op: int, now: int) -> None:
        """ALU, FMA, FP64, conversion and transcendental pipes: busy for an issue interval, the
        result ready after the pipe's latency."""
        pipe = _PIPE[op]
        if (op is Op.XU or op is Op.FDIV) and self.t.xu_refinement:
            pipe = 1  # the last refinement instruction runs on the FMA pipe
        self.pipe_free[w.smsp][pipe] = now + self.interval[pipe]
        latency, kind = self.result_latency[op]
        w.ready[w.dsts[w.pc]] = (now + latency, kind)

    def _issue_mio(self, w: Warp, op: int, now: int) -> None:
        """Shared memory and shuffles: the MIO queue, then the shared pipe's wavefronts."""
        t = self.t
        access = w.accesses[w.pc]
        units = access.units if access is not None else 1
        start = max(float(now + 1), self.shared_free)
        step = self.shuffle_step if op is Op.SHFL else self.shared_step
        self.shared_free = start + units * step
        self.mio_queue[w.smsp].append(start)
        if op is not Op.STS:
            latency = t.shuffle_latency if op is Op.SHFL else t.shared_latency * (2 if op is Op.ATOMS else 1)
            w.ready[w.dsts[w.pc]] = (int(start + (units - 1) * step) + latency, SHORT_SB)

    def _issue_lg(self, w: Warp, op: int, now: int) -> None:
        """Global and local memory: the LG queue, the L1 tag stage, then the memory system."""
        t = self.t
        access = w.accesses[w.pc]
        lines = access.units if access is not None else 1
        sectors = access.sectors if access is not None else None
        start = self.mem.tag_stage(now + 1, lines)
        self.lg_queue[w.smsp].append(start)
        if op is Op.STG:
            written = self.mem.store(start, sectors)
            w.stores_done = max(w.stores_done, int(start) + t.store_ack_cycles, written)
        elif op is Op.STL:
            w.stores_done = max(w.stores_done, int(start) + t.l1_latency)
        else:
            done = self.mem.load(start, lines, sectors, use_l1=op is not Op.ATOMG)
            w.ready[w.dsts[w.pc]] = (done, LONG_SB)

    def _advance(self, w: Warp, now: int) -> None:
        """Move past the issued instruction and any variable definitions after it."""
        pc = w.pc + 1
        ops, ready = w.ops, w.ready
        while pc < len(ops) and ops[pc] is Op.DEF:
            best = (0, WAIT)
            for s in w.srcs[pc]:
                r = ready.get(s)
                if r is not None and r[0] > best[0]:
                    best = r
            ready[w.dsts[pc]] = best
            pc += 1
        w.pc = pc
        if pc < len(ops):
            w.left = self._issues(ops[pc], w.ns[pc])

    def _issues(self, op: int, n: int) -> int:
        """Issue slots a site takes: its instruction count, or MUFU plus refinement."""
        if op is Op.XU or op is Op.FDIV:
            return 1 + self.t.xu_refinement
        return n

    def _schedule(self, w: Warp, now: int, earliest: int, reason: int) -> None:
        """From cycle ``now``: when ``w`` may issue its next instruction (not before
        ``earliest``, for ``reason``) and what it waits on until then; the latest of its
        operands decides, as only the last dependency to resolve is seen stalling."""
        when, why = earliest, reason
        ready = w.ready
        for s in w.srcs[w.pc]:
            r = ready.get(s)
            if r is not None and r[0] > when:
                when, why = r
        w.when, w.why = when, why
        if when < self.smsp_wake[w.smsp]:
            self.smsp_wake[w.smsp] = when
        self._set(w, why if when > now else NOT_SELECTED, now)

    def _barrier(self, w: Warp, now: int) -> None:
        b = w.block
        b.at_barrier.append(w)
        w.when, w.why = NEVER, BARRIER
        self._set(w, BARRIER, now + 1)
        self._release(b, now)

    def _release(self, b: Block, now: int) -> None:
        if b.at_barrier and len(b.at_barrier) >= b.live:
            waiting, b.at_barrier = b.at_barrier, []
            for x in waiting:
                if x.pc >= len(x.ops):
                    self._exit(x, now + 1)
                else:
                    self._schedule(x, now + 1, now + 1, NOT_SELECTED)

    def _exit(self, w: Warp, now: int) -> None:
        """Issued its last instruction: drain outstanding stores, then free the slot."""
        done = max(now + self.t.exit_cycles, w.stores_done)
        self._set(w, DRAIN, now)
        w.when, w.why = NEVER, DRAIN
        self._set(w, NOT_RESIDENT, done)
        self.smsp[w.smsp].remove(w)
        self._smsp_leave(w.smsp, done)
        self.freeing.append((done, w.slot))
        self.r.resident_warp_cycles += done - w.start
        self.last_retire = max(self.last_retire, done)
        b = w.block
        b.release = max(b.release, done)
        b.live -= 1
        if b.live == 0:
            self.resident.remove(b)
            self.retiring.append(max(b.release, done))
        else:
            self._release(b, now)

    # -- blocks -------------------------------------------------------------------------
    def _dispatch(self, now: int) -> None:
        self._release_resources(now)
        while self.pending and now >= self.next_dispatch and self._has_room():
            streams = self.pending.pop()
            block = Block(streams[0].block if streams else -1)
            start = now + (self.t.cold_start_cycles if self.cold else self.t.warp_start_cycles)
            self.cold = False
            self.free_slots.sort(reverse=True)
            for s in streams:
                slot = self.free_slots.pop()
                w = Warp(slot, self.ages, block, s, self.table, now)
                self.ages += 1
                w.when, w.why = start, NO_INSTRUCTION
                if start < self.smsp_wake[w.smsp]:
                    self.smsp_wake[w.smsp] = start
                if w.ops and w.ops[0] is Op.DEF:
                    w.pc = -1
                    self._advance(w, now)
                w.left = self._issues(w.ops[w.pc], w.ns[w.pc]) if w.pc < len(w.ops) else 0
                block.warps.append(w)
                self.smsp[w.smsp].append(w)
                self._smsp_enter(w.smsp, now)
            block.live = len(block.warps)
            self.resident.append(block)
            self.r.blocks += 1
            self.next_dispatch = now + max(1, round(self.dispatch_interval))
            for w in list(block.warps):
                if w.pc >= len(w.ops):
                    self._exit(w, start)

    def _smsp_enter(self, p: int, now: int) -> None:
        if self.smsp_resident[p] == 0:
            self.smsp_since[p] = now
        self.smsp_resident[p] += 1

    def _smsp_leave(self, p: int, when: int) -> None:
        self.smsp_resident[p] -= 1
        if self.smsp_resident[p] == 0:
            self.r.smsp_active_cycles += when - self.smsp_since[p]

    # -- accounting -----------------------------------------------------------------------
    def _set(self, w: Warp, state: int, at: int) -> None:
        """``w`` is in ``state`` from cycle ``at`` on."""
        old, since = w.state, w.since
        if state == old or at < since:
            return
        if at > since:
            if old < NOT_RESIDENT:
                self._state_cycles[old] += at - since
            tl = self._timeline
            if len(tl) < self.timeline_limit:
                tl.append((w.slot, w.block.index, w.stream.warp, w.smsp, since, at, old))
            else:
                self.r.timeline_complete = False
        w.state, w.since = state, at
