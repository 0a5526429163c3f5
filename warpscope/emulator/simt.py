"""The threads of a launch chunk laid out as warps, active masks, and what they count.

A chunk is a run of consecutive blocks executed together: every per-thread value is a
numpy array with one slot per lane, blocks padded to whole warps (padding lanes are never
active), so ``array.reshape(-1, 32)`` is one row per warp.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

WARP = 32
#: a mask with at most one active lane in this many is ``Mask.sparse``
SPARSE = 16
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class Mask:
    """The lanes executing an instruction; warp and thread counts computed once per mask."""

    __slots__ = ("_lanes", "_selects", "_threads", "_warp_any", "_warps", "arr", "traced")

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        self._lanes: np.ndarray | None = None
        self._warp_any: np.ndarray | None = None
        self._warps = -1
        self._threads = -1
        self._selects: dict[int, np.ndarray] = {}
        # the trace's sampled warps active here, for the chunk's selection (``Trace.record``)
        self.traced: tuple[np.ndarray, np.ndarray] | None = None

    def select(self, itemsize: int) -> np.ndarray:
        """All-ones bits on active lanes, zeros elsewhere, as unsigned integers of ``itemsize``
        bytes: a branch-free blend (numpy's ``where`` mispredicts on scattered lanes)."""
        bits = self._selects.get(itemsize)
        if bits is None:
            bits = self._selects[itemsize] = -(self.arr.view(np.uint8).astype(_UINT[itemsize]))
        return bits

    @property
    def warp_any(self) -> np.ndarray:
        """One bool per warp: has at least one active lane."""
        if self._warp_any is None:
            self._warp_any = np.asarray(self.arr.reshape(-1, WARP).any(axis=1))
        return self._warp_any

    @property
    def warps(self) -> int:
        if self._warps < 0:
            self._warps = int(np.count_nonzero(self.warp_any))
        return self._warps

    @property
    def threads(self) -> int:
        if self._threads < 0:
            self._threads = int(np.count_nonzero(self.arr))
        return self._threads

    @property
    def lanes(self) -> np.ndarray:
        """The active lanes' numbers, ascending (read-only)."""
        if self._lanes is None:
            self._lanes = np.flatnonzero(self.arr)
            self._lanes.flags.writeable = False
        return self._lanes

    @property
    def sparse(self) -> bool:
        """Few lanes active (at most one in ``SPARSE``): worth working on them alone."""
        return self.threads * SPARSE <= self.arr.size

    def __bool__(self) -> bool:
        return self.threads > 0

    def both(self, other: np.ndarray) -> Mask:
        """Lanes active here and set in ``other`` (this mask itself when that is all of them)."""
        arr = self.arr & other
        m = Mask(arr)
        return self if m.threads == self.threads else m

    def first_lane(self) -> int:
        return int(np.argmax(self.arr))


def union(a: Mask | None, b: Mask | None) -> Mask | None:
    if a is None or not a:
        return b if b else None
    if b is None or not b:
        return a
    return Mask(a.arr | b.arr)


@dataclass
class SiteCounts:
    """What the instructions of one source line did, over the whole launch."""

    warp_instructions: int = 0
    thread_instructions: int = 0
    branches: int = 0
    divergent_branches: int = 0
    global_load_requests: int = 0
    global_store_requests: int = 0
    global_load_sectors: int = 0
    global_store_sectors: int = 0
    global_load_bytes: int = 0
    global_store_bytes: int = 0
    global_atomic_requests: int = 0
    shared_load_requests: int = 0
    shared_store_requests: int = 0
    shared_load_wavefronts: int = 0
    shared_store_wavefronts: int = 0
    shared_load_ideal_wavefronts: int = 0
    shared_store_ideal_wavefronts: int = 0
    shared_atomic_requests: int = 0
    local_load_requests: int = 0
    local_store_requests: int = 0
    barriers: int = 0
    shuffles: int = 0
    #: floating-point adds, subtracts and multiplies per precision, by active thread (an FMA
    #: is a multiply and an add at source level: 2, as Nsight Compute counts an FFMA)
    fp32_flop: int = 0
    fp64_flop: int = 0
    fp16_flop: int = 0

    def add(self, other: SiteCounts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Counters:
    """Per-line counts of a launch, and the running total the instruction budget checks."""

    sites: dict[int, SiteCounts] = field(default_factory=dict)
    warp_instructions: int = 0

    def site(self, line: int) -> SiteCounts:
        s = self.sites.get(line)
        if s is None:
            s = self.sites[line] = SiteCounts()
        return s

    def total(self) -> SiteCounts:
        out = SiteCounts()
        for s in self.sites.values():
            out.add(s)
        return out


class Chunk:
    """Consecutive blocks of one launch, as lanes: indices, block of each lane, liveness."""

    def __init__(
        self, grid: tuple[int, int, int], block: tuple[int, int, int], first_block: int, blocks: int
    ) -> None:
        self.grid, self.block = grid, block
        self.first_block, self.blocks = first_block, blocks
        threads = block[0] * block[1] * block[2]
        self.warps_per_block = -(-threads // WARP)
        self.lanes = blocks * self.warps_per_block * WARP
        self.block_of_lane, self.tid, self.lane_id, self.alive = _layout(block, blocks)
        linear = np.arange(first_block, first_block + blocks, dtype=np.int64)  # per block, then per lane
        slots = self.warps_per_block * WARP
        self.bid: tuple[np.ndarray, ...]
        if grid[1] == grid[2] == 1:  # a one-dimensional grid: y and z are 0 on every lane
            x = np.repeat(linear, slots)
            x.flags.writeable = False  # fixed for the chunk: index arithmetic on it is remembered
            self.bid = (x, _zeros(self.lanes), _zeros(self.lanes))
        else:
            per_block = (linear % grid[0], linear // grid[0] % grid[1], linear // (grid[0] * grid[1]))
            self.bid = tuple(np.repeat(b, slots) for b in per_block)
            for b in self.bid:
                b.flags.writeable = False
        self.entry = Mask(self.alive.copy())
        self._grid: dict[int, np.ndarray] = {}

    def grid_index(self, axis: int) -> np.ndarray:
        """Each lane's global thread index on ``axis`` (``cuda.grid``), computed once per chunk
        and read-only: a loop counting from it (``for i in range(start, n, stride)``) is then
        known as it moved by a scalar (``affine.moved``)."""
        index = self._grid.get(axis)
        if index is None:
            index = self._grid[axis] = self.bid[axis] * self.block[axis] + self.tid[axis]
            index.flags.writeable = False
        return index

    def where(self, lane: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(block index, thread index) of a lane, for error messages."""
        return (
            tuple(int(b[lane]) for b in self.bid),  # type: ignore[return-value]
            tuple(int(t[lane]) for t in self.tid),
        )


@functools.lru_cache(maxsize=4)
def _layout(
    block: tuple[int, int, int], blocks: int
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray]:
    """What every chunk of ``blocks`` blocks of this shape has alike (read-only, shared by the
    chunks of a launch): each lane's block in the chunk, thread index, lane in its warp, and
    whether it is a thread (not a padding lane)."""
    threads = block[0] * block[1] * block[2]
    slots = -(-threads // WARP) * WARP
    local = np.tile(np.arange(slots, dtype=np.int64), blocks)  # thread index in block
    block_of_lane = np.repeat(np.arange(blocks, dtype=np.int64), slots)
    if block[1] == block[2] == 1:  # a one-dimensional block: y and z are 0 on every lane
        x = local if slots == block[0] else local % block[0]
        tid = (x, _zeros(local.size), _zeros(local.size))
    else:
        tid = (local % block[0], local // block[0] % block[1], local // (block[0] * block[1]))
    lane_id = local % WARP
    alive = local < threads  # padding lanes never run
    for a in (block_of_lane, *tid, lane_id, alive):
        a.flags.writeable = False
    return block_of_lane, tid, lane_id, alive


@functools.lru_cache(maxsize=16)
def _zeros(lanes: int) -> np.ndarray:
    """A read-only int64 zero per lane (the y and z indices of one-dimensional launches)."""
    z = np.zeros(lanes, np.int64)
    z.flags.writeable = False
    return z


#: chunks up to this many lanes are kept for the next launch of the same configuration (a
#: loop launching a small kernel: building one is most of an empty launch's fixed cost)
SMALL_CHUNK = 8192


def chunk_for(
    grid: tuple[int, int, int], block: tuple[int, int, int], first_block: int, blocks: int
) -> Chunk:
    """``Chunk(...)``, shared between launches where small (its arrays are then read-only)."""
    slots = -(-(block[0] * block[1] * block[2]) // WARP) * WARP
    if blocks * slots > SMALL_CHUNK:
        return Chunk(grid, block, first_block, blocks)
    return _small_chunk(grid, block, first_block, blocks)


@functools.lru_cache(maxsize=64)
def _small_chunk(
    grid: tuple[int, int, int], block: tuple[int, int, int], first_block: int, blocks: int
) -> Chunk:
    chunk = Chunk(grid, block, first_block, blocks)
    for a in (*chunk.bid, chunk.entry.arr):
        a.flags.writeable = False
    return chunk
