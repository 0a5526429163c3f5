"""The state of one chunk of a launch while its kernel runs: frames, loops, liveness."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from warpscope.emulator.arrays import LocalArray, SharedArray, address_parts, global_parts, weighted
from warpscope.emulator.errors import KernelFault
from warpscope.emulator.instructions import Inst, Op
from warpscope.emulator.race import RaceCheck
from warpscope.emulator.simt import WARP, Chunk, Counters, Mask
from warpscope.emulator.trace import Accesses, Trace

#: result dtype of a floating-point add, subtract or multiply -> the counter it adds to
_FLOP_KIND = {
    np.dtype(np.float32): "fp32_flop",
    np.dtype(np.float64): "fp64_flop",
    np.dtype(np.float16): "fp16_flop",
}


@dataclass
class Loop:
    """Lanes that left the innermost loop with ``break``, or skipped to its next iteration."""

    broken: Mask | None = None
    continued: Mask | None = None


@dataclass
class Frame:
    """Variables of one kernel or inlined device-function call."""

    live: int  # lanes that may still read these variables
    kernel: bool  # returning from a kernel ends the lane
    vars: dict[str, Any] = field(default_factory=dict)
    loops: list[Loop] = field(default_factory=list)
    ret: Any = None  # device functions: the value returned, per lane
    # lanes a variable has a value on, when not every live lane (it was first set in a branch)
    defined_on: dict[str, Mask] = field(default_factory=dict)

    def assign(self, name: str, value: Any, mask: Mask) -> None:
        """Set a variable for the active lanes.

        The other lanes keep their value, except where they have none: a variable first set
        under this same mask (a loop counter, a branch's temporary) is replaced whole, which
        keeps values that are the same on every lane as one scalar.
        """
        if mask.threads == self.live:
            self.vars[name] = value
            self.defined_on.pop(name, None)
        elif name not in self.vars:
            self.vars[name] = value
            self.defined_on[name] = mask
        elif self.defined_on.get(name) is mask:
            self.vars[name] = value
        else:
            self.vars[name] = merge(mask, value, self.vars[name])
            self.defined_on.pop(name, None)


#: lanes from which ``merge`` blends bits rather than calling ``np.where``: below, numpy's
#: calls cost more than ``where``'s mispredicted branches (half the lanes active at random:
#: 1.0 against 3.3 µs at 128 lanes, 7.3 against 8.8 at 8,192; the blend wins at 65,536)
BLEND_MIN = 32_768


def merge(mask: Mask, new: Any, old: Any) -> Any:
    """``new`` on the active lanes, ``old`` elsewhere (tuples element by element)."""
    if isinstance(new, tuple):
        return tuple(merge(mask, n, o) for n, o in zip(new, old))
    if not isinstance(new, (np.ndarray, np.generic)) or not isinstance(old, (np.ndarray, np.generic)):
        return new  # arrays and views: a name bound to one array for every lane
    if mask.arr.size < BLEND_MIN:
        return np.where(mask.arr, new, old)
    if (
        isinstance(new, np.ndarray)
        and isinstance(old, np.ndarray)
        and new.dtype == old.dtype
        and new.shape == old.shape == mask.arr.shape
        and new.dtype.kind in "fiub"
        and new.dtype.itemsize in (1, 2, 4, 8)
    ):  # the same bits as np.where, without its branch per lane
        if mask.sparse:  # few lanes: copy the old and set those
            out = old.copy()
            lanes = mask.lanes
            out[lanes] = new[lanes]
            return out
        bits = f"u{new.dtype.itemsize}"
        n, o = new.view(bits), old.view(bits)
        return (o ^ ((n ^ o) & mask.select(new.dtype.itemsize))).view(new.dtype)
    return np.where(mask.arr, new, old)


@dataclass
class BarrierWarning:
    """Something a GPU runs through that deserves a look, at one line of the kernel: a
    barrier in divergent code (from sm_70; ``kind`` "barrier"), or a read just past the end of
    an array (``kind`` "past_end", see ``arrays.PAST_END``)."""

    line: int
    blocks: int  # barrier: times a block arrived at it partly; past_end: threads that read
    block: tuple[int, int, int]
    thread: tuple[int, int, int]  # a thread that arrived (read)
    what: str
    kind: str = "barrier"

    def describe(self, file: str, kernel: str) -> str:
        b, t = (", ".join(map(str, v)) for v in (self.block, self.thread))
        if self.kind == "past_end":
            times = f" ({self.blocks:,} thread{'s' if self.blocks != 1 else ''})"
        else:
            times = f" (in {self.blocks:,} blocks)" if self.blocks > 1 else ""
        return f"{file}:{self.line}: kernel {kernel}, block ({b}) thread ({t}){times}: {self.what}"


class Run:
    """One chunk of blocks executing one kernel."""

    def __init__(
        self,
        kernel: str,
        file: str,
        chunk: Chunk,
        counters: Counters,
        budget: int,
        dynamic_shared: int,
        trace: Trace | None = None,
        race: RaceCheck | None = None,
        independent: bool = True,
    ) -> None:
        self.kernel, self.file = kernel, file
        self.chunk, self.counters, self.budget = chunk, counters, budget
        self.alive = chunk.alive.copy()
        self.shared: dict[int, SharedArray] = {}
        self.local: dict[Any, LocalArray] = {}
        self.dynamic_shared = dynamic_shared
        self.dynamic_buffer: np.ndarray | None = None
        self.trace = trace
        self.race = race
        # barriers: from sm_70 (``independent``) a barrier counts threads wherever they arrive,
        # but a warp's threads at two different barriers never meet (bar.sync is per warp)
        self.independent = independent
        self.waiting: np.ndarray | None = None  # live lanes whose warp-mates wait at a barrier
        self.waiting_line = 0
        self.passed: np.ndarray | None = None  # barriers each lane passed, once they differ
        self.barrier_warnings: dict[int, BarrierWarning] = {}
        self.past_end_lanes: np.ndarray | None = None  # of the last load, where it read past
        if race is not None:
            race.start_chunk(chunk)
        if trace is not None:
            trace.start_chunk(chunk)

    def issue(self, inst: Inst, mask: Mask, op: Op | None = None, accesses: Accesses | None = None) -> None:
        """Count the warp instructions of ``inst`` executed under ``mask`` (and trace them)."""
        counters = self.counters
        site = counters.sites.get(inst.line)
        if site is None:
            site = counters.site(inst.line)
        n = inst.n
        warps = n * mask.warps
        site.warp_instructions += warps
        site.thread_instructions += n * mask.threads
        counters.warp_instructions += warps
        if self.trace is not None:
            chosen = inst.op if op is None else op
            assert chosen is not None, "an instruction whose pipe depends on its result is issued with it"
            self.trace.record(inst, chosen, mask, accesses)

    def count_flop(self, inst: Inst, mask: Mask, value: Any) -> None:
        """A floating-point add, subtract or multiply: one flop per active thread, by precision."""
        kind = _FLOP_KIND.get(getattr(value, "dtype", None))
        if kind is not None:
            site = self.counters.site(inst.line)
            setattr(site, kind, getattr(site, kind) + mask.threads)

    def define(self, inst: Inst, mask: Mask) -> None:
        """A variable took a value: no instruction, but the timing model follows the value."""
        if self.trace is not None:
            self.trace.record(inst, Op.DEF, mask, None)

    def memory_cost(
        self, array: Any, index: tuple[Any, ...], mask: Mask, store: bool = False
    ) -> Accesses | None:
        """Per sampled warp, what a load, store or atomic touched (None when not tracing)."""
        trace = self.trace
        if trace is None or array.kind == "const" or (array.kind != "global" and not trace.sampling):
            return None
        if array.kind == "global":
            if all(type(i) is np.int64 for i in index):  # one element on every lane (checked)
                address = array.base + sum(int(i) * w for i, w in zip(index, array.strides))
                got = trace.uniform_global(array, address, mask, store)
                if got is not False:
                    return got
            part, scalar, moved = global_parts(array, index, mask)
            if moved is not None and not trace.sampling:  # its sectors known: no address needed
                trace.mark_moved(array, moved, store)
                return None
        elif array.kind == "shared":
            part, scalar = address_parts(index, array.strides, array.offset)
            moved = None
        else:  # local memory is interleaved: element i of the 32 lanes is one 128-byte row
            size = array.itemsize
            element = weighted(index, array.strides, 0) // size
            if not np.ndim(element):
                uniform = trace.uniform_local(int(element), size, mask)
                if uniform is not None:
                    return uniform
            addresses = element * (WARP * size) + self.chunk.lane_id * size
            return trace.accesses(array.kind, array, addresses, array.itemsize, mask, store)
        if part is None:  # the same address on every lane
            return trace.accesses(array.kind, array, np.int64(scalar), array.itemsize, mask, store, moved)
        return trace.accesses(array.kind, array, part, array.itemsize, mask, store, moved, scalar)

    def global_costs(
        self, array: Any, addresses: list[Any], mask: Mask, store: bool = False
    ) -> list[Accesses | None]:
        """``memory_cost`` of global loads (or stores) made one after another under ``mask``
        whose byte addresses are known (per access, a row of the lanes' or one number):
        nothing summed again."""
        if self.trace is None:
            return [None] * len(addresses)
        return self.trace.global_rows(array, addresses, mask, store=store)

    def issue_times(self, inst: Inst, mask: Mask, times: int) -> None:
        """``issue`` of ``inst`` under ``mask``, ``times`` times over: untraced only (a trace
        records each instruction in its place)."""
        assert self.trace is None, "a traced instruction is issued in its place"
        counters = self.counters
        site = counters.site(inst.line)
        warps = inst.n * mask.warps * times
        site.warp_instructions += warps
        site.thread_instructions += inst.n * mask.threads * times
        counters.warp_instructions += warps

    def check_budget(self, line: int, mask: Mask) -> None:
        if self.counters.warp_instructions > self.budget:
            raise self.fault(
                line,
                f"instruction budget of {self.budget:,} warp instructions exceeded "
                "(a loop that never ends?); raise it with --budget",
                mask,
            )

    def fault(self, line: int, what: str, mask: Mask | None = None, lane: int | None = None) -> KernelFault:
        if lane is None and mask is not None and mask:
            lane = mask.first_lane()
        block, thread = self.chunk.where(lane) if lane is not None else (None, None)
        return KernelFault(self.kernel, self.file, line, what, block, thread)

    def out_of_bounds(self, line: int, error: Any) -> KernelFault:
        """An ``arrays.OutOfBounds`` as the kernel's fault, saying how many threads faulted:
        memcheck reports every one; the emulator stops at the access, so it counts the threads
        of the blocks running together (a chunk) that were out of bounds there."""
        what = str(error)
        faulted = getattr(error, "faulted", None)
        if faulted is not None and np.ndim(faulted):
            n = int(np.count_nonzero(faulted))
            blocks = int(np.count_nonzero(np.bincount(self.chunk.block_of_lane[faulted])))
            ran = self.chunk.blocks
            what += (
                f"; {n:,} thread{'s' if n != 1 else ''} of {blocks:,} block{'s' if blocks != 1 else ''} "
                f"faulted at this access (of the {ran:,} block{'s' if ran != 1 else ''} run with it)"
            )
        return self.fault(line, what, lane=error.lane)

    def end_lanes(self, mask: Mask) -> None:
        """Lanes that returned from the kernel: they take part in no later barrier or shuffle."""
        self.alive &= ~mask.arr
        if self.waiting is not None:
            self.waiting = self.waiting & ~mask.arr

    def barrier(self, line: int, mask: Mask, arrived: np.ndarray | None, expected: np.ndarray | None) -> bool:
        """``syncthreads`` reached by ``mask`` (``arrived``/``expected``: threads per block of
        the chunk at it, and live; None: every live thread is there). Returns whether every live
        thread of the chunk is there.

        Where only part of a block arrives (a barrier in divergent code) the others reach
        another barrier or exit later: a warning, as the GPU runs it, unless threads of one
        warp end up at two different barriers, which hangs an H100 (a fault)."""
        ch = self.chunk
        if self.waiting is not None:
            clash = mask.arr & self.waiting
            if clash.any():
                raise self.fault(
                    line,
                    f"syncthreads reached by threads whose warp-mates wait at the syncthreads of "
                    f"line {self.waiting_line}: threads of one warp at two different barriers never "
                    "meet (a GPU hangs here)",
                    lane=int(np.argmax(clash)),
                )
        partial: np.ndarray | None = None
        complete = True
        if arrived is not None and expected is not None:
            partial = (arrived > 0) & (arrived < expected)
            if not partial.any():
                partial = None
            complete = partial is None and int(arrived.sum()) == int(expected.sum())
        if self.passed is not None or partial is not None:
            before = np.zeros(ch.lanes, dtype=np.int64) if self.passed is None else self.passed
            self.passed = before + mask.arr
        if partial is not None:
            assert arrived is not None and expected is not None
            here = partial[ch.block_of_lane]
            missing = self.alive & ~mask.arr & here
            if self.independent:  # live warp-mates of arriving threads elsewhere
                split = missing & np.repeat(mask.warp_any, 32)
                if split.any():
                    self.waiting = split if self.waiting is None else self.waiting | split
                    self.waiting_line = line
            self._warn_divergent(line, mask, partial, arrived, expected, missing)
        elif complete and self.passed is not None:
            per_block = self.passed.reshape(ch.blocks, -1)
            alive = self.alive.reshape(ch.blocks, -1)
            low = np.where(alive, per_block, np.iinfo(np.int64).max).min(axis=1)
            high = np.where(alive, per_block, -1).max(axis=1)
            uneven = alive.any(axis=1) & (low != high)
            if uneven.any():
                b = int(np.argmax(uneven))
                lane = b * per_block.shape[1] + int(np.argmin(np.where(alive[b], per_block[b], 1 << 62)))
                self._warn(
                    line,
                    lane,
                    int(np.count_nonzero(uneven)),
                    f"every thread reached this syncthreads, but some had passed {int(high[b] - low[b])} "
                    "barrier(s) fewer than others: on a GPU they meet an earlier barrier here, so "
                    "values exchanged through it may differ",
                )
            self.passed = None
        return complete

    def _warn_divergent(
        self,
        line: int,
        mask: Mask,
        partial: np.ndarray,
        arrived: np.ndarray,
        expected: np.ndarray,
        missing: np.ndarray,
    ) -> None:
        b = int(np.argmax(partial))
        lane = int(np.argmax(mask.arr & (self.chunk.block_of_lane == b)))
        other = int(np.argmax(missing & (self.chunk.block_of_lane == b)))
        _, away = self.chunk.where(other)
        how = (
            "from sm_70 a barrier counts threads wherever they arrive, so whole warps may wait at "
            "different syncthreads"
            if self.independent
            else "before sm_70 a barrier counts warps: one thread of each warp completes it"
        )
        self._warn(
            line,
            lane,
            int(np.count_nonzero(partial)),
            f"syncthreads reached by {arrived[b]} of the block's {expected[b]} live threads (thread "
            f"({', '.join(map(str, away))}) is elsewhere): a barrier in divergent code; {how}, and "
            "each thread must pass as many barriers as the others (the emulator ran the arriving "
            "threads on: values they read after it that the others write before their barrier "
            "may differ from a GPU's)",
        )

    def past_end(self, line: int, lanes: np.ndarray, what: str) -> None:
        """The ``lanes`` of a load at ``line`` read just past their array's end
        (``arrays.PAST_END``): a warning, as the GPU carries on."""
        self.past_end_lanes = lanes
        n = int(np.count_nonzero(lanes))
        w = self.barrier_warnings.get(line)
        if w is not None:
            w.blocks += n
            return
        block, thread = self.chunk.where(int(np.argmax(lanes)))
        what += (
            "; a GPU reads whatever lies there (the allocation's padding or the next allocation: "
            "numba-cuda's allocations are 512-byte granules laid end to end) and carries on, so "
            "the emulator gave those threads 0 and ran on — a real bug all the same"
        )
        self.barrier_warnings[line] = BarrierWarning(line, n, block, thread, what, "past_end")

    def _warn(self, line: int, lane: int, blocks: int, what: str) -> None:
        w = self.barrier_warnings.get(line)
        if w is not None:
            w.blocks += blocks
            return
        block, thread = self.chunk.where(lane)
        self.barrier_warnings[line] = BarrierWarning(line, blocks, block, thread, what)
