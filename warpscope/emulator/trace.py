"""Per-warp instruction streams for the timing model, recorded while a launch executes.

The functional layer runs whole chunks of blocks at once; the timing model needs, for
the warps of the blocks one SM would run, the sequence of instructions each warp issued,
with what each memory instruction touched. ``Trace`` picks those blocks when a launch
starts (``sampled_blocks``) and, as instructions execute, records each with the sampled
warps that had an active lane in it (one event per instruction, arrays per event); a
warp's stream is the subsequence of those events it is in, so divergent paths appear one
after the other, as a SIMT warp runs them. ``flat`` sorts the events into streams with one
stable sort (what the compiled timing model reads); ``streams`` builds ``WarpStream``
objects from it (what the reference model reads).

It also marks, for every global array, which 32-byte sectors the whole grid loaded and
stored, so the timing model knows how much of one SM's traffic is the grid's first touch
of a sector (a DRAM access) and how much other SMs already brought into the shared L2.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import math
import weakref
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from warpscope.emulator import memory
from warpscope.emulator.instructions import Inst, Op
from warpscope.emulator.simt import WARP, Chunk, Mask

#: blocks simulated when every block has an SM of its own (first, last, evenly between)
SMALL_GRID_SAMPLES = 8
LINE_SECTORS = 4  # 128-byte L1 lines of four 32-byte sectors
LINE_BYTES = LINE_SECTORS * memory.SECTOR_BYTES
#: global accesses a chunk's trace remembers (``Trace._global_accesses``): a loop over ``k``
#: of ``A[i, k]`` in float32 comes back to each of its 32 phases of a line
GLOBAL_SEEN = 64
_OPS = list(Op)  # by value
#: traces of up to this many positions are laid out on lists (``Trace._flat_few``)
FEW_POSITIONS = 64


def sampled_blocks(n_blocks: int, sms: int) -> list[list[int]]:
    """The blocks each simulated SM runs: SM 0's round-robin share when the grid is larger
    than the GPU (the SM with the most blocks), else up to ``SMALL_GRID_SAMPLES`` single-block
    SMs: the first block, the last, and evenly between (every block of a grid that small)."""
    if n_blocks > sms:
        return [list(range(0, n_blocks, sms))]
    samples = min(n_blocks, SMALL_GRID_SAMPLES)
    picks = sorted({round(i * (n_blocks - 1) / max(1, samples - 1)) for i in range(samples)})
    return [[b] for b in picks]


@dataclass
class Access:
    """What one warp's memory instruction touched."""

    units: int  # L1 tag lookups (128-byte lines) or shared wavefronts
    sectors: np.ndarray | None = None  # global sectors (ids), for the cache model


@dataclass
class Accesses:
    """What each active sampled warp's memory instruction touched, in ``record``'s order."""

    units: np.ndarray  # per warp: L1 tag lookups (128-byte lines) or shared wavefronts
    counts: np.ndarray | None = None  # per warp: its distinct global sectors (global only)
    sectors: np.ndarray | None = None  # those sector ids, sorted, warp after warp

    def per_warp(self) -> list[Access]:
        if self.counts is None or self.sectors is None:
            return [Access(u) for u in self.units.tolist()]
        out = []
        start = 0
        for u, n in zip(self.units.tolist(), self.counts.tolist()):  # np.split's views, cut here
            out.append(Access(u, self.sectors[start : start + n]))
            start += n
        return out


@dataclass
class WarpStream:
    """One warp's instructions in the order it issued them."""

    sm: int
    block: int  # linear block index in the grid
    warp: int  # warp index within the block
    insts: list[int] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    accesses: list[Access | None] = field(default_factory=list)


@dataclass
class Flat:
    """Every sampled warp's stream end to end (stream after stream, as ``Trace.streams``
    numbers them): one position per instruction a warp issued."""

    start: np.ndarray  # per stream: its first position (and one past the last, at the end)
    insts: np.ndarray
    ops: np.ndarray
    units: np.ndarray  # -1: no access recorded
    sec_off: np.ndarray  # (positions, 2): the access's sectors in ``sectors``; -1: none
    sectors: np.ndarray


class Trace:
    """The sampled warps' streams of one launch, and the grid's touched global sectors."""

    def __init__(self, n_blocks: int, warps_per_block: int, sms: int) -> None:
        self.sms = sms
        self.n_blocks = n_blocks
        self.warps_per_block = warps_per_block
        self.per_sm = sampled_blocks(n_blocks, sms)
        self.info: list[tuple[int, int, int]] = []  # per stream: SM, block, warp in block
        self._first_warp: dict[int, int] = {}
        for sm, blocks in enumerate(self.per_sm):
            for b in blocks:
                self._first_warp[b] = len(self.info)
                self.info.extend((sm, b, w) for w in range(warps_per_block))
        self.touched: dict[int, tuple[Any, np.ndarray, np.ndarray]] = {}  # id(data) -> (array, loads, stores)
        # one event per recorded instruction: its stream ids, instruction, op, accesses
        self._ids_of: list[np.ndarray] = []
        self._n_of: list[int] = []  # their sizes
        self._inst_of: list[int] = []
        self._op_of: list[int] = []
        self._acc_of: list[Accesses | None] = []
        self.traced = 0  # warp instructions recorded, DEFs included
        self._flat: Flat | None = None
        # the chunk being run: which of its warps are sampled, and their stream numbers
        self._sel: np.ndarray | None = None
        self._sel_set: frozenset[int] = frozenset()  # the same warps, for the few-lanes paths
        self._ids: np.ndarray | None = None
        # the chunk's last shared accesses of remembered (read-only) offsets: their lane terms,
        # mask, bank phase (the scalar modulo a word) and what each sampled warp touched
        self._shared_seen: list[tuple[Any, np.ndarray, int, int, Accesses]] = []
        # and its global accesses', by (lane terms, mask, element size, the scalar's phase in a
        # 128-byte line and an element): the lane terms, the mask, the scalar, what each sampled
        # warp touched
        self._global_seen: dict[tuple[int, int, int, int], tuple[Any, Any, int, Accesses]] = {}
        # the last mask's sampled active warps and their lanes (``_sampled_rows``)
        self._rows_of: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None = None

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
        self._sel_set = frozenset(sel)
        self._ids = np.array(ids, dtype=np.int64) if ids else None
        self._shared_seen = []
        self._global_seen = {}

    @property
    def sampling(self) -> bool:
        """Whether the running chunk holds sampled warps."""
        return self._sel is not None

    def record(self, inst: Inst, op: int, mask: Mask, accesses: Accesses | None) -> None:
        """Append an instruction to the streams of the sampled warps active in ``mask``."""
        if self._sel is None:
            return
        ids = self._traced_ids(mask)
        if ids.size:
            self._ids_of.append(ids)
            self._n_of.append(ids.size)
            self._inst_of.append(inst.id)
            self._op_of.append(op)
            self._acc_of.append(accesses)
            self.traced += ids.size
            self._flat = None

    def _traced_ids(self, mask: Mask) -> np.ndarray:
        """The stream ids of the sampled warps active under ``mask`` (while sampling), kept on
        the mask: the same mask recorded again in this chunk names the same warps."""
        sel = self._sel
        assert sel is not None
        known = mask.traced
        if known is not None and known[0] is sel:
            return known[1]
        ids = self._ids[mask.warp_any[sel]]  # type: ignore[index]
        mask.traced = (sel, ids)
        return ids

    def flat(self) -> Flat:
        """The events sorted into streams (a stable sort keeps each warp's issue order)."""
        if self._flat is not None:
            return self._flat
        if self.traced <= FEW_POSITIONS:
            self._flat = self._flat_few()
            return self._flat
        n = self._n_of
        ids = np.concatenate(self._ids_of) if n else np.zeros(0, np.int64)
        # a stable sort keeps each warp's order; on 16-bit keys numpy's is a radix sort (17x faster)
        order = np.argsort(ids.astype(np.uint16) if len(self.info) <= 1 << 16 else ids, kind="stable")
        units = np.full(ids.size, -1, np.int64)
        counts = np.full(ids.size, -1, np.int64)
        # the events' accesses put at their positions by one assignment each, not one slice
        # per event (a launch records thousands)
        events = [(k, a) for k, a in enumerate(self._acc_of) if a is not None]
        parts: list[np.ndarray] = []
        if events:
            sizes = np.array(n, np.int64)
            first = np.cumsum(sizes) - sizes  # each event's first position
            picked = [k for k, _ in events]
            units[_positions(first[picked], sizes[picked])] = np.concatenate([a.units for _, a in events])
            global_ = [
                (k, a.counts, a.sectors) for k, a in events if a.counts is not None and a.sectors is not None
            ]
            if global_:
                picked = [k for k, _, _ in global_]
                counts[_positions(first[picked], sizes[picked])] = np.concatenate([c for _, c, _ in global_])
                parts = [ids_ for _, _, ids_ in global_]
        size = np.maximum(counts, 0)
        end = np.cumsum(size)  # where each access's run of sectors ends in ``sectors``
        none = (counts < 0)[order]
        sec_off = np.empty((ids.size, 2), np.int64)
        sec_off[:, 1] = np.where(none, -1, end[order])  # columns gathered one by one: numpy's
        sec_off[:, 0] = np.where(none, -1, (end - size)[order])  # 2-D gather costs 5x more
        start = np.zeros(len(self.info) + 1, np.int64)
        np.cumsum(np.bincount(ids, minlength=len(self.info)), out=start[1:])
        self._flat = Flat(
            start,
            np.repeat(np.array(self._inst_of, np.int64), n)[order],
            np.repeat(np.array(self._op_of, np.int64), n)[order],
            units[order],
            sec_off,
            np.concatenate(parts) if parts else np.zeros(0, np.int64),
        )
        return self._flat

    def _flat_few(self) -> Flat:
        """``flat`` of a small trace, on lists: each stream's positions appended event by event
        (its issue order) and the streams laid end to end, sector runs numbered in the events'
        order as ``flat`` numbers them (up to ``FEW_POSITIONS``, where numpy's calls cost more:
        a one-warp launch's 42-48 µs on numpy, 21-26 here; past about 100, numpy's are cheaper)."""
        rows: list[list[tuple[int, int, int, int, int]]] = [[] for _ in self.info]
        parts: list[np.ndarray] = []
        total = 0  # sectors numbered so far
        for ids, inst, op, acc in zip(self._ids_of, self._inst_of, self._op_of, self._acc_of):
            if acc is None:
                for i in ids.tolist():
                    rows[i].append((inst, op, -1, -1, -1))
            elif acc.counts is None or acc.sectors is None:
                for i, u in zip(ids.tolist(), acc.units.tolist()):
                    rows[i].append((inst, op, u, -1, -1))
            else:
                parts.append(acc.sectors)
                for i, u, c in zip(ids.tolist(), acc.units.tolist(), acc.counts.tolist()):
                    rows[i].append((inst, op, u, total, total + c))
                    total += c
        start = np.zeros(len(rows) + 1, np.int64)
        start[1:] = np.cumsum([len(r) for r in rows])
        columns = np.array([r for stream in rows for r in stream], np.int64).reshape(-1, 5).T.copy()
        return Flat(
            start,
            columns[0],
            columns[1],
            columns[2],
            np.ascontiguousarray(columns[3:5].T),
            np.concatenate(parts) if parts else np.zeros(0, np.int64),
        )

    @property
    def streams(self) -> list[WarpStream]:
        """Every sampled warp's stream as objects (for the reference timing model: a loop over
        the events, cheaper than ``flat`` for the small launches it times)."""
        out = [WarpStream(sm, block, warp) for sm, block, warp in self.info]
        for ids, inst, op, accesses in zip(self._ids_of, self._inst_of, self._op_of, self._acc_of):
            per = accesses.per_warp() if accesses is not None else None
            for k, i in enumerate(ids.tolist()):
                s = out[i]
                s.insts.append(inst)
                s.ops.append(_OPS[op])
                s.accesses.append(per[k] if per is not None else None)
        return out

    def digest(self) -> bytes:
        """A hash of everything the timing model reads here (the streams, what their memory
        instructions touched, the launch's shape and the grid's sector counts): equal digests,
        equal timing. A small trace's events are hashed as recorded; a larger one's as ``flat``
        lays them out (which the compiled model reads anyway: a loop over 14,000 events took
        5.6 ms, the flat arrays' hash 0.5 ms past ``flat``)."""
        h = hashlib.blake2b(digest_size=20)

        def put(a: Any) -> None:  # length first: no two traces hash the same bytes
            b = np.ascontiguousarray(a, dtype=np.int64).tobytes()
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)

        put(
            [self.n_blocks, self.warps_per_block, self.sms, self.grid_sectors(False), self.grid_sectors(True)]
        )
        if self.traced > FEW_POSITIONS:
            flat = self.flat()
            for column in (flat.start, flat.insts, flat.ops, flat.units, flat.sec_off, flat.sectors):
                put(column)
            return h.digest()
        put(self._inst_of)
        put(self._op_of)
        # every event's warps, then what each access touched, end to end, with the lengths
        # (and which parts each access has) that cut them apart again
        kinds: list[int] = []
        parts: list[Any] = []
        lengths: list[int] = []
        for ids, a in zip(self._ids_of, self._acc_of):
            parts.append(ids)
            lengths.append(ids.size)
            if a is None:
                kinds.append(0)
                continue
            pieces = [a.units] if a.counts is None or a.sectors is None else [a.units, a.counts, a.sectors]
            kinds.append(len(pieces))
            parts += pieces
            lengths += [p.size for p in pieces]
        put(kinds)
        put(lengths)
        put(np.concatenate(parts) if parts else [])
        return h.digest()

    def accesses(
        self,
        kind: str,
        array: Any,
        byte_addresses: Any,
        itemsize: int,
        mask: Mask,
        store: bool,
        moved: tuple[int, np.ndarray] | None = None,
        scalar: Any = 0,
    ) -> Accesses | None:
        """What each active sampled warp's access touched, in ``record``'s order; marks the
        grid's touched sectors for global arrays (every chunk, sampled or not), from ``moved``
        where given (``arrays.repeated_sectors``). The access's addresses are
        ``byte_addresses + scalar``: added only on the lanes that need them."""
        if mask.arr.size <= memory.FEW_WARPS * WARP or mask.threads <= memory.FEW_WARPS * WARP:
            addresses = byte_addresses + scalar if scalar else byte_addresses
            return self._few_accesses(kind, array, addresses, itemsize, mask, store)
        if kind == "global":
            if moved is not None:
                self.mark_moved(array, moved, store)
            else:
                self._mark(array, byte_addresses, scalar, mask, store)
        if self._sel is None or kind == "const":
            return None
        if kind == "shared":
            return self._shared_accesses(byte_addresses, scalar, itemsize, mask)
        if kind == "global":
            # a naturally aligned array's addresses are whole elements, as a local one's are
            # (``Run.memory_cost``): only an element that cannot fit a sector is checked
            aligned = getattr(array, "naturally_aligned", False)
            return self._global_accesses(byte_addresses, scalar, itemsize, mask, aligned)
        return self._sampled(kind, byte_addresses, scalar, itemsize, mask, aligned=True)

    def uniform_local(self, element: int, itemsize: int, mask: Mask) -> Accesses | None:
        """``accesses`` of a local access whose every lane names element ``element`` of its own
        copy: local memory is interleaved, so a warp's lanes touch 32 consecutive elements,
        the same lines in every warp; under a partial mask (divergent code), each active
        sampled warp the lines its active lanes' elements lie in. None where it does not apply
        (an element wider than a sector or not dividing it)."""
        if (
            self._sel is None
            or element < 0
            or itemsize > memory.SECTOR_BYTES
            or memory.SECTOR_BYTES % itemsize
        ):
            return None
        first, last = element * WARP * itemsize, (element + 1) * WARP * itemsize - 1
        lines = last // LINE_BYTES - first // LINE_BYTES + 1
        if mask.threads == mask.arr.size:
            return Accesses(np.full(self._sel.size, lines, np.int64))
        warps, active = self._sampled_rows(mask)
        if lines == 1 or active is None:
            return Accesses(np.full(warps.size, lines, np.int64))
        # several lines: the warp's elements start a line (32 elements of 8 bytes or more), each
        # line holds the elements of a run of lanes; a line counts where one of them is active
        per_line = LINE_BYTES // itemsize
        return Accesses(active.reshape(warps.size, WARP // per_line, per_line).any(axis=2).sum(axis=1))

    def _shared_accesses(self, offsets: Any, scalar: Any, itemsize: int, mask: Mask) -> Accesses:
        """``accesses`` of a shared access, remembered where its lane terms are remembered
        (read-only) and come again under the same mask moved by whole words: the banks rotate,
        and each warp's busiest bank keeps its count (a tiled loop's ``As[ty, i]``)."""
        remembered = isinstance(offsets, np.ndarray) and not offsets.flags.writeable and not np.ndim(scalar)
        if remembered:
            phase = int(scalar) % memory.BANK_BYTES
            for seen in self._shared_seen:
                if seen[0] is offsets and seen[1] is mask.arr and seen[2] == phase and seen[3] == itemsize:
                    return seen[4]
        result = self._sampled("shared", offsets, scalar, itemsize, mask)
        if remembered:
            self._shared_seen = [(offsets, mask.arr, phase, itemsize, result), *self._shared_seen[:3]]
        return result

    def _global_accesses(self, part: Any, scalar: Any, itemsize: int, mask: Mask, aligned: bool) -> Accesses:
        """``accesses`` of a global access, remembered where its lane terms are remembered
        (read-only) and come again under the same mask moved by whole 128-byte lines: each
        sampled warp's lines and sector count stay, its sector ids move by as many sectors
        (``A[i, k]`` in a loop over ``k`` comes back to each phase of a line every few steps)."""
        if not isinstance(part, np.ndarray) or part.flags.writeable or np.ndim(scalar):
            return self._sampled("global", part, scalar, itemsize, mask, aligned)
        at = int(scalar)
        # moved by whole lines, and by whole elements: whether an element straddles sectors,
        # and whether the addresses are checked for it, stay as they were
        key = (id(part), id(mask.arr), itemsize, at % math.lcm(LINE_BYTES, itemsize))
        seen = self._global_seen.get(key)
        if seen is not None and seen[0]() is part and seen[1]() is mask.arr:
            was = seen[3]
            shift = (at - seen[2]) >> memory.SECTOR_SHIFT
            if not shift or was.sectors is None:
                return was
            return Accesses(was.units, was.counts, was.sectors + shift)
        result = self._sampled("global", part, scalar, itemsize, mask, aligned)
        # held weakly: a chunk's lane terms and masks are chunk-sized, and up to 64 entries
        self._global_seen[key] = (weakref.ref(part), weakref.ref(mask.arr), at, result)
        if len(self._global_seen) > GLOBAL_SEEN:
            del self._global_seen[next(iter(self._global_seen))]  # the oldest
        return result

    def _sampled(
        self, kind: str, byte_addresses: Any, scalar: Any, itemsize: int, mask: Mask, aligned: bool = False
    ) -> Accesses:
        """What each active sampled warp's access touched (``accesses``, after the marks);
        ``aligned``: every address is a multiple of ``itemsize`` (``memory.sector_ids``)."""
        warps, active = self._sampled_rows(mask)
        shape = mask.arr.shape
        full = byte_addresses if np.shape(byte_addresses) == shape else np.broadcast_to(byte_addresses, shape)
        rows = full.reshape(-1, WARP)[warps]
        if scalar:
            rows = rows + scalar
        if active is not None:
            rows = np.where(active, rows, -1)
        if kind == "shared":
            return Accesses(np.asarray(memory.wavefronts_per_warp(rows, itemsize), np.int64))
        return _per_warp(memory.sector_ids(rows, itemsize, aligned), kind == "global")

    def _sampled_rows(self, mask: Mask) -> tuple[np.ndarray, np.ndarray | None]:
        """The chunk's sampled warps active under ``mask`` and their lanes' activity (None:
        every lane active), remembered for the last mask (a loop's accesses share theirs)."""
        assert self._sel is not None
        known = self._rows_of
        if known is not None and known[0] is mask.arr and known[1] is self._sel:
            return known[2], known[3]
        warps = self._sel[mask.warp_any[self._sel]]
        active = None if mask.threads == mask.arr.size else mask.arr.reshape(-1, WARP)[warps]
        self._rows_of = (mask.arr, self._sel, warps, active)
        return warps, active

    def _few_accesses(
        self, kind: str, array: Any, byte_addresses: Any, itemsize: int, mask: Mask, store: bool
    ) -> Accesses | None:
        """``accesses`` of a chunk of a few warps, or of a few active lanes in any chunk (a
        bounds check's tail, a branch a few threads take), on lists of the active lanes
        (numpy's calls cost more there)."""
        on = mask.lanes
        if not np.ndim(byte_addresses) and on.size and _one_sector(kind, int(byte_addresses), itemsize):
            return self._uniform_accesses(kind, array, int(byte_addresses), mask, store)
        if np.ndim(byte_addresses):
            shape = mask.arr.shape
            full = byte_addresses if byte_addresses.shape == shape else np.broadcast_to(byte_addresses, shape)
            addresses = full[on]
            picked = addresses.tolist()
        else:
            picked = [int(byte_addresses)] * on.size
            addresses = np.array(picked, dtype=np.int64)
        if kind == "global":
            self._mark_sectors(array, addresses.astype(np.int64, copy=False), store)
        if self._sel is None or kind == "const":
            return None
        return self._few_touched(kind, array, on.tolist(), picked, itemsize)

    def global_rows(self, array: Any, rows: list[Any], mask: Mask, store: bool) -> list[Accesses | None]:
        """``accesses`` of global accesses made one after another under one mask (a thread's
        reduction reading its row element by element), each row the lanes' byte addresses:
        on a few lanes, their lists and the grid's sector marks made once for all."""
        few = mask.arr.size <= memory.FEW_WARPS * WARP or mask.threads <= memory.FEW_WARPS * WARP
        if few and rows and not any(np.ndim(r) for r in rows):
            uniform = self._uniform_rows(array, [int(r) for r in rows], mask, store)
            if uniform is not None:
                return uniform
        if not few or not rows or not all(np.shape(r) == mask.arr.shape for r in rows):
            return [self.accesses("global", array, r, array.itemsize, mask, store) for r in rows]
        on = mask.lanes
        picked = np.stack(rows)[:, on]
        self._mark_sectors(array, picked.reshape(-1), store)
        if self._sel is None:
            return [None] * len(rows)
        lanes = on.tolist()
        return [self._few_touched("global", array, lanes, row, array.itemsize) for row in picked.tolist()]

    def _uniform_rows(
        self, array: Any, addresses: list[int], mask: Mask, store: bool
    ) -> list[Accesses | None] | None:
        """``_uniform_accesses`` of global accesses one after another, each of one address
        every active lane names (a thread's loop over an array): the grid's sectors marked at
        once, one sector per active sampled warp each. None where one may span sectors."""
        itemsize = array.itemsize
        on = mask.lanes
        if not on.size or not all(_one_sector("global", a, itemsize) for a in addresses):
            return None
        at = np.array(addresses, np.int64)
        self._touched(array, store)[(at - array.alloc.base) >> memory.SECTOR_SHIFT] = True
        sectors = at >> memory.SECTOR_SHIFT
        if self._sel is None:
            return [None] * len(addresses)
        present = {lane // WARP for lane in on.tolist()}
        n = sum(1 for w in self._sel.tolist() if w in present)
        ones = _ones(n)
        if n != 1:
            return [Accesses(ones, ones, np.full(n, s, np.int64)) for s in sectors.tolist()]
        sectors.flags.writeable = False  # each access's one sector, a view of them all (read only)
        return [Accesses(ones, ones, sectors[k : k + 1]) for k in range(sectors.size)]

    def _few_touched(
        self, kind: str, array: Any, lanes: list[int], picked: list[int], itemsize: int
    ) -> Accesses:
        """What each sampled warp of a few active ``lanes`` touched, their byte addresses
        ``picked`` (``_few_accesses``, once the grid's sectors are marked)."""
        sampled = self._sel_set
        if not lanes or lanes[-1] // WARP == lanes[0] // WARP:  # one warp's (the usual few): no grouping
            warps = [(lanes, picked)] if lanes and lanes[0] // WARP in sampled else []
        else:  # the lanes ascend: each warp's are a run, found by bisection (a step per warp, not per lane)
            warps = []
            start, end = 0, len(lanes)
            while start < end:
                w = lanes[start] // WARP
                stop = bisect.bisect_left(lanes, (w + 1) * WARP, start, end)
                if w in sampled:
                    warps.append((lanes[start:stop], picked[start:stop]))
                start = stop
        if kind == "shared" and itemsize <= memory.BANK_BYTES:  # memory.wavefronts_per_warp, on lists
            return Accesses(
                np.array(
                    [memory.busiest_bank_of({a // memory.BANK_BYTES for a in addrs}) for _, addrs in warps],
                    dtype=np.int64,
                )
            )
        within = itemsize <= memory.SECTOR_BYTES and not memory.SECTOR_BYTES % itemsize
        # none straddles: whole elements of a naturally aligned array (a local one's too, as
        # ``accesses`` counts them), else checked lane by lane
        aligned = within and (
            kind == "local"
            or (kind == "global" and getattr(array, "naturally_aligned", False))
            or not any(a % itemsize for _, addrs in warps for a in addrs)
        )
        if kind != "shared" and aligned:
            return _few_per_warp(
                [[a >> memory.SECTOR_SHIFT for a in addrs] for _, addrs in warps], kind == "global"
            )
        table = np.full((len(warps), WARP), -1, np.int64)
        for row, (ls, addrs) in zip(table, warps):
            for lane, a in zip(ls, addrs):
                row[lane % WARP] = a
        if kind == "shared":
            return Accesses(np.asarray(memory.wavefronts_per_warp(table, itemsize), np.int64))
        return _per_warp(memory.sector_ids(table, itemsize), kind == "global")

    def uniform_global(
        self, array: Any, address: int, mask: Mask, store: bool
    ) -> Accesses | Literal[False] | None:
        """``accesses`` of a global access whose every active lane names one element at byte
        ``address`` (one thread's, a serial loop's), where ``accesses`` would take it to
        ``_uniform_accesses``: a chunk of a few warps or a few active lanes, the element in one
        sector. False where it would not (the caller takes the general path)."""
        few = mask.arr.size <= memory.FEW_WARPS * WARP or mask.threads <= memory.FEW_WARPS * WARP
        if not few or not mask.threads or not _one_sector("global", address, array.itemsize):
            return False
        return self._uniform_accesses("global", array, address, mask, store)

    def _uniform_accesses(
        self, kind: str, array: Any, address: int, mask: Mask, store: bool
    ) -> Accesses | None:
        """``_few_accesses`` where every active lane names the same ``address`` of one
        sector (``_one_sector``: a serial loop's, one thread's): one sector and one line (one
        bank) per active sampled warp, without building the lanes' lists."""
        if kind == "global":
            self._touched(array, store)[(address - array.alloc.base) >> memory.SECTOR_SHIFT] = True
        if self._sel is None or kind == "const":
            return None
        n = self._traced_ids(mask).size  # the active sampled warps, as ``record`` finds them
        ones = _ones(n)
        if kind != "global":
            return Accesses(ones)
        sector = address >> memory.SECTOR_SHIFT
        sectors = np.array([sector], np.int64) if n == 1 else np.full(n, sector, np.int64)
        return Accesses(ones, ones, sectors)

    def _mark(self, array: Any, byte_addresses: Any, scalar: Any, mask: Mask, store: bool) -> None:
        """Mark the sectors of ``byte_addresses + scalar`` on the active lanes."""
        shape = mask.arr.shape
        whole = np.shape(byte_addresses) == shape
        if mask.threads == mask.arr.size and whole:
            offsets = byte_addresses + (scalar - array.alloc.base)  # every lane: none to pick out
        else:
            full = byte_addresses if whole else np.broadcast_to(byte_addresses, shape)
            offsets = full[mask.arr] + (scalar - array.alloc.base)
        self._touched(array, store)[np.right_shift(offsets, memory.SECTOR_SHIFT, out=offsets)] = True

    def mark_moved(self, array: Any, moved: tuple[int, np.ndarray], store: bool) -> None:
        """Mark the sectors ``arrays.repeated_sectors`` gave: (a first sector, the distinct
        sectors relative to it), without the access's lanes."""
        first, relative = moved
        self._touched(array, store)[first - (array.alloc.base >> memory.SECTOR_SHIFT) + relative] = True

    def _mark_sectors(self, array: Any, addr: np.ndarray, store: bool) -> None:
        self._touched(array, store)[(addr - array.alloc.base) >> memory.SECTOR_SHIFT] = True

    def _touched(self, array: Any, store: bool) -> np.ndarray:
        """Per sector of ``array``'s allocation (views, slices and record fields, mark their
        allocation's), whether the grid loaded (stored) it."""
        alloc = array.alloc
        entry = self.touched.get(alloc.key)
        if entry is None:
            n = alloc.nbytes // memory.SECTOR_BYTES + 2
            entry = self.touched[alloc.key] = (array, np.zeros(n, bool), np.zeros(n, bool))
        return entry[2 if store else 1]

    def grid_sectors(self, store: bool) -> int:
        """Distinct global sectors the whole grid loaded (or stored)."""
        return int(sum(int(e[2 if store else 1].sum()) for e in self.touched.values()))


@functools.lru_cache(maxsize=8)
def _ones(n: int) -> np.ndarray:
    """``n`` ones (int64), read-only: one line, one sector per warp, shared by the accesses
    that count so (their arrays are read, never written)."""
    out = np.ones(n, np.int64)
    out.flags.writeable = False
    return out


def _one_sector(kind: str, address: int, itemsize: int) -> bool:
    """Whether an element of ``itemsize`` bytes at ``address``, named by every active lane,
    lies in one sector (one bank's word, in shared memory) as ``Trace._few_accesses`` counts it."""
    if address < 0:
        return False
    if kind == "shared":
        return itemsize <= memory.BANK_BYTES
    return itemsize <= memory.SECTOR_BYTES and not memory.SECTOR_BYTES % itemsize and not address % itemsize


def _positions(first: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Every position of runs starting at ``first`` of ``sizes`` positions, run after run."""
    total = int(sizes.sum())
    run_start = np.cumsum(sizes) - sizes  # where each run begins in the output
    return np.repeat(first - run_start, sizes) + np.arange(total)


def _per_warp(sectors: np.ndarray, keep_ids: bool) -> Accesses:
    """Each row's distinct sector ids (sorted, -1 = inactive dropped) and distinct 128-byte
    lines, for all rows at once: one sort of the whole (warps, lanes) array instead of a
    ``np.unique`` per warp."""
    if sectors.shape[0] == 1:  # one warp: Python's sets cost less than numpy's calls (two: more)
        return _few_per_warp(sectors.tolist(), keep_ids)
    ordered = np.sort(sectors, axis=1)
    valid = ordered >= 0
    line = ordered // LINE_SECTORS
    new_line = valid.copy()
    new_line[:, 1:] &= line[:, 1:] != line[:, :-1]
    lines = new_line.sum(axis=1).astype(np.int64)
    if not keep_ids:  # local memory: its lines alone
        return Accesses(lines)
    new = valid
    new[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    return Accesses(lines, new.sum(axis=1).astype(np.int64), ordered[new].astype(np.int64))


def _few_per_warp(rows: list[list[int]], keep_ids: bool) -> Accesses:
    """``_per_warp`` of a few warps' sector ids, as lists (numpy's calls cost more)."""
    lines: list[int] = []
    counts: list[int] = []
    ids: list[int] = []
    for row in rows:
        distinct = sorted(set(row))  # a warp's lanes name a few sectors: dedupe, then drop -1
        while distinct and distinct[0] < 0:
            del distinct[0]
        lines.append(len({s // LINE_SECTORS for s in distinct}))
        counts.append(len(distinct))
        ids += distinct
    if not keep_ids:
        return Accesses(np.array(lines, dtype=np.int64))
    return Accesses(
        np.array(lines, dtype=np.int64), np.array(counts, dtype=np.int64), np.array(ids, dtype=np.int64)
    )
