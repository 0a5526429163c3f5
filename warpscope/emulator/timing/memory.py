"""One SM's view of the memory system: L1 sector cache, its share of L2 and DRAM.

Each stage is a server that takes requests in arrival order at a fixed rate (queueing
gives bandwidth limits; a fixed latency is added on top):

- L1 tag stage: one 128-byte line per cycle; loads look each 32-byte sector up in an LRU
  sector cache of the L1 capacity left over by shared memory (cold at launch start, as
  Nsight Compute flushes caches before each profiled kernel);
- L2: this SM's share of the L2 bandwidth; a sector is an L2 hit when this SM touched it
  before, or when another SM did: the whole grid reads ``grid_sectors`` distinct sectors
  from DRAM once, so of the sectors that are new to this SM only the fraction
  ``first_touch`` (hashed per sector, so it is deterministic) are DRAM reads;
- DRAM: this SM's share of DRAM bandwidth, then the DRAM latency.

Stores write through to L2 (no L1 allocation) and occupy L2 and DRAM bandwidth the same
way; the warp only waits for their acknowledgement at exit (``drain``).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from warpscope.emulator.timing.params import Timing

_HASH = np.uint64(0x9E3779B97F4A7C15)


def first_touch(sectors: np.ndarray, fraction: float) -> np.ndarray:
    """Which sectors count as the grid's first touch: a fixed pseudo-random ``fraction``."""
    if fraction >= 1.0:
        return np.ones(sectors.shape, dtype=bool)
    h = (sectors.astype(np.uint64) * _HASH) >> np.uint64(40)
    return h.astype(np.float64) < fraction * float(1 << 24)


_HASH_INT = int(_HASH)
_MASK64 = (1 << 64) - 1


def _first_touched(sectors: list[int], fraction: float) -> set[int]:
    """``first_touch``'s sectors among a warp access's few, as a set: the same hash in Python's
    integers, wrapped to 64 bits as numpy's are (numpy's calls cost more on a few sectors)."""
    if fraction >= 1.0:
        return set(sectors)
    limit = fraction * float(1 << 24)
    return {s for s in sectors if float((((s & _MASK64) * _HASH_INT) & _MASK64) >> 40) < limit}


class MemorySystem:
    """L1, L2 and DRAM as seen by one SM."""

    def __init__(self, t: Timing, l1_sectors: int, load_fraction: float, store_fraction: float) -> None:
        self.t = t
        self.l1: OrderedDict[int, None] = OrderedDict()
        self.l1_capacity = max(1, l1_sectors)
        self.l2_seen: set[int] = set()
        self.load_fraction, self.store_fraction = load_fraction, store_fraction
        self.l1_free = 0.0
        self.l2_free = 0.0
        self.dram_free = 0.0
        self.l1_step = 1.0 / t.l1_lines_per_cycle
        self.l2_step = 1.0 / t.l2_sectors_per_cycle
        self.dram_step = 1.0 / t.dram_sectors_per_cycle
        self.l2_latency = t.cycles(t.l2_latency_ns)
        self.dram_latency = t.cycles(t.dram_latency_ns)
        # counts, for hit rates and throughput
        self.l1_lookups = self.l1_hits = 0
        self.l2_lookups = self.l2_hits = 0
        self.dram_sectors = 0

    def tag_stage(self, now: int, lines: int) -> float:
        """When a request of ``lines`` 128-byte lines starts in L1 (it leaves the LG queue then)."""
        start = max(float(now), self.l1_free)
        self.l1_free = start + max(1, lines) * self.l1_step
        return start

    def load(self, start: float, lines: int, sectors: np.ndarray | None, use_l1: bool = True) -> int:
        """Cycle the data of a global load (or atomic, ``use_l1`` False) is back."""
        done = start + (lines - 1) * self.l1_step + self.t.l1_latency
        if sectors is None:
            return int(done)
        misses = []
        if use_l1:
            l1 = self.l1
            self.l1_lookups += sectors.size
            hits = 0
            for s in sectors.tolist():
                if s in l1:
                    l1.move_to_end(s)
                    hits += 1
                else:
                    misses.append(s)
                    l1[s] = None
            self.l1_hits += hits
            while len(l1) > self.l1_capacity:
                l1.popitem(last=False)
            if not misses:
                return int(done)
        else:
            misses = sectors.tolist()
        return max(int(done), self._l2(start + self.t.l1_latency // 2, misses, self.load_fraction))

    def store(self, start: float, sectors: np.ndarray | None) -> int:
        """A store's sectors pass through L2 (and DRAM, for the grid's share of new sectors);
        the cycle the last one is written."""
        if sectors is None:
            return 0
        for s in sectors.tolist():
            self.l1.pop(s, None)  # write-through: the L1 copy is invalidated
        return self._l2(start, sectors.tolist(), self.store_fraction)

    def _l2(self, arrive: float, sectors: list[int], fraction: float) -> int:
        """When the last of ``sectors`` is back from L2 (or DRAM) for requests arriving at
        ``arrive``: each stage serves them in order at its rate."""
        seen = self.l2_seen
        new = [s for s in sectors if s not in seen]
        dram = _first_touched(new, fraction) if new else set()
        done = 0.0
        self.l2_lookups += len(sectors)
        l2_free, l2_step, l2_latency = self.l2_free, self.l2_step, self.l2_latency
        dram_free, dram_step, dram_latency = self.dram_free, self.dram_step, self.dram_latency
        from_dram = 0
        for s in sectors:  # ``a if a >= b else b``: max(a, b), without the call
            start = arrive if arrive >= l2_free else l2_free
            l2_free = start + l2_step
            if s in dram:
                d = start if start >= dram_free else dram_free
                dram_free = d + dram_step
                from_dram += 1
                back = d + dram_latency
            else:
                back = start + l2_latency
            if back > done:
                done = back
        self.l2_free, self.dram_free = l2_free, dram_free
        self.dram_sectors += from_dram
        self.l2_hits += len(sectors) - from_dram
        seen.update(new)
        return int(done)
