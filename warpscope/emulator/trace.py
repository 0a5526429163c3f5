"""Per-warp instruction streams for the timing model, recorded while a launch executes.

The functional layer runs whole chunks of blocks at once; the timing model needs, for
the warps of the blocks one SM would run, the sequence of instructions each warp issued,
with what each memory instruction touched. ``Trace`` picks those blocks when a launch
starts (``sampled_blocks``) and appends to their warps' streams as instructions execute:
a warp's stream is the subsequence of the chunk's instructions in which it had at least
one active lane, so divergent paths appear one after the other, as a SIMT warp runs them.

It also marks, for every global array, which 32-byte sectors the whole grid loaded and
stored, so the timing model knows how much of one SM's traffic is the grid's first touch
of a sector (a DRAM access) and how much other SMs already brought into the shared L2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from warpscope.emulator import memory
from warpscope.emulator.instructions import Inst
from warpscope.emulator.simt import WARP, Chunk, Mask

#: blocks simulated when every block has an SM of its own (first, last, evenly between)
SMALL_GRID_SAMPLES = 8
LINE_SECTORS = 4  # 128-byte L1 lines of four 32-byte sectors


def sampled_blocks(n_blocks: int, sms: int) -> list[list[int]]:
    """The blocks each simulated SM runs: SM 0's round-robin share when the grid is larger
    than the GPU (the SM with the most blocks), else a few single-block SMs."""
    if n_blocks > sms:
        return [list(range(0, n_blocks, sms))]
    picks = sorted(
        {
            round(i * (n_blocks - 1) / max(1, SMALL_GRID_SAMPLES - 1))
            for i in range(min(n_blocks, SMALL_GRID_SAMPLES))
        }
    )
    return [[b] for b in picks]


@dataclass
class Access:
    """What one warp's memory instruction touched."""

    units: int  # L1 tag lookups (128-byte lines) or shared wavefronts
    sectors: np.ndarray | None = None  # global sectors (ids), for the cache model


@dataclass
class WarpStream:
    """One warp's instructions in the order it issued them."""

    sm: int
    block: int  # linear block index in the grid
    warp: int  # warp index within the block
    insts: list[int] = field(default_factory=list)
    ops: list[int] = field(default_factory=list)
    accesses: list[Access | None] = field(default_factory=list)


class Trace:
    """The sampled warps' streams of one launch, and the grid's touched global sectors."""

    def __init__(self, n_blocks: int, warps_per_block: int, sms: int) -> None:
        self.sms = sms
        self.n_blocks = n_blocks
        self.warps_per_block = warps_per_block
        self.per_sm = sampled_blocks(n_blocks, sms)
        self.streams: list[WarpStream] = []
        self._first_warp: dict[int, int] = {}
        for sm, blocks in enumerate(self.per_sm):
            for b in blocks:
                self._first_warp[b] = len(self.streams)
                self.streams.extend(WarpStream(sm, b, w) for w in range(warps_per_block))
        self.touched: dict[int, tuple[Any, np.ndarray, np.ndarray]] = {}  # id(data) -> (array, loads, stores)
        self.insts: list[Inst] = []
        # the chunk being run: which of its warps are sampled, and their stream numbers
        self._sel: np.ndarray | None = None
        self._ids: np.ndarray | None = None

    def start_chunk(self, chunk: Chunk) -> None:
        sel: list[int] = []
        ids: list[int] = []
        for b in range(chunk.first_block, chunk.first_block + chunk.blocks):
            first = self._first_warp.get(b)
            if first is not None:
                base = (b - chunk.first_block) * chunk.warps_per_block
                sel.extend(range(base, base + chunk.warps_per_block))
                ids.extend(range(first, first + chunk.warps_per_block))
        self._sel = np.array(sel, dtype=np.int64) if sel else None
        self._ids = np.array(ids, dtype=np.int64) if ids else None

    @property
    def sampling(self) -> bool:
        """Whether the running chunk holds sampled warps."""
        return self._sel is not None

    def record(self, inst: Inst, op: int, mask: Mask, accesses: list[Access] | None) -> None:
        """Append an instruction to the streams of the sampled warps active in ``mask``."""
        if self._sel is None:
            return
        active = mask.warp_any[self._sel]
        streams = self.streams
        for k, i in enumerate(self._ids[active].tolist()):  # type: ignore[index]
            s = streams[i]
            s.insts.append(inst.id)
            s.ops.append(op)
            s.accesses.append(accesses[k] if accesses is not None else None)

    def accesses(
        self, kind: str, array: Any, byte_addresses: Any, itemsize: int, mask: Mask, store: bool
    ) -> list[Access] | None:
        """What each active sampled warp's access touched, in ``record``'s order; marks the
        grid's touched sectors for global arrays (every chunk, sampled or not)."""
        if kind == "global":
            self._mark(array, byte_addresses, mask, store)
        if self._sel is None or kind == "const":
            return None
        active = mask.arr.reshape(-1, WARP)[self._sel]
        keep = active.any(axis=1)
        rows = np.broadcast_to(byte_addresses, mask.arr.shape).reshape(-1, WARP)[self._sel][keep]
        rows = np.where(active[keep], rows, -1)
        if kind == "shared":
            return [Access(int(w)) for w in memory.wavefronts_per_warp(rows, itemsize)]
        return _per_warp(memory.sector_ids(rows, itemsize), kind == "global")

    def _mark(self, array: Any, byte_addresses: Any, mask: Mask, store: bool) -> None:
        alloc = array.alloc  # views (slices, record fields) mark their allocation's sectors
        entry = self.touched.get(alloc.key)
        if entry is None:
            n = alloc.nbytes // memory.SECTOR_BYTES + 2
            entry = self.touched[alloc.key] = (array, np.zeros(n, bool), np.zeros(n, bool))
        addr = np.broadcast_to(byte_addresses, mask.arr.shape)[mask.arr]
        entry[2 if store else 1][(addr - alloc.base) // memory.SECTOR_BYTES] = True

    def grid_sectors(self, store: bool) -> int:
        """Distinct global sectors the whole grid loaded (or stored)."""
        return int(sum(int(e[2 if store else 1].sum()) for e in self.touched.values()))


def _per_warp(sectors: np.ndarray, keep_ids: bool) -> list[Access]:
    """Each row's distinct sector ids (sorted, -1 = inactive dropped) and distinct 128-byte
    lines, for all rows at once: one sort of the whole (warps, lanes) array instead of a
    ``np.unique`` per warp."""
    ordered = np.sort(sectors, axis=1)
    valid = ordered >= 0
    new = valid.copy()
    new[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    line = ordered // LINE_SECTORS
    new_line = valid.copy()
    new_line[:, 1:] &= line[:, 1:] != line[:, :-1]
    lines = new_line.sum(axis=1).tolist()
    if not keep_ids:
        return [Access(n) for n in lines]
    counts = new.sum(axis=1)
    ids = np.split(ordered[new], np.cumsum(counts)[:-1].tolist())
    return [Access(n, i) for n, i in zip(lines, ids)]
