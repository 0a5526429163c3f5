"""Data races between barriers, found as compute-sanitizer's racecheck finds them.

The emulator runs a block's warps in lockstep, statement by statement, so a kernel that
forgets a ``syncthreads`` still gives the right answer here and a wrong one on a GPU. This
module watches every shared-memory access (and every global access, per block) and, at each
barrier a block reaches, judges the accesses since its previous one: a write by one thread
and a read or write of the same address by another thread of the block, with no barrier
between them, is a hazard —

- RAW: a thread reads what another wrote (the read may come first on a GPU);
- WAR: a thread writes what another read (the write may land before the read);
- WAW: two threads write the same address (which value stays is a matter of timing).

Atomics (``cuda.atomic.*``) are read-modify-writes the hardware orders among themselves: two
atomics on one address never race, but an atomic and a plain read or write of it by another
thread with no barrier between do (racecheck's rule): the atomic counts as the write.

Threads of one warp: before Volta (sm_70) a warp executes in lockstep, so its threads are
ordered by program order and never race with each other. From sm_70 they are scheduled
independently: two lanes of one warp race unless a ``syncwarp`` both took part in lies
between their accesses (each warp counts the ``syncwarp`` calls it executed; two accesses in
the same count race).

Barriers in divergent code (from sm_70 whole warps may reach different ``syncthreads``)
are followed per lane: each access carries how many barriers its thread passed since the
chunk's threads last all met at one, and accesses in different such intervals never race.

Vectorised: an access copies its lanes' addresses into a reused buffer (-1 where inactive);
when every thread has met at a barrier, each memory space written since the last one is
judged: a dense table of 4-byte words first keeps only the addresses two threads touch;
blocks that asked for the same shared offsets under the same masks are judged once; the rest
is sorted by (block, address, interval, order) and segmented running maxima say whether an
earlier access of the same address came from a thread that may race with this one (a few
dozen accesses are walked on lists instead: numpy's calls cost more there). Spaces
only read since the barrier cost nothing but their copies. Global reads of an allocation
nobody has written yet are recorded in the launch's first chunk of blocks only (up to
``READ_LIMIT`` lanes an interval): where a later chunk first writes an allocation after
reading it, that read is not judged.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from warpscope.emulator.simt import WARP, Chunk, Mask

KINDS = ("RAW", "WAR", "WAW")
#: lanes of reads recorded per space and interval for an allocation not yet written
READ_LIMIT = 1 << 22
#: lanes recorded per space before an interval is judged early (memory bound)
EVENT_LIMIT = 1 << 24
#: reads of a global allocation nobody has written yet are kept as ``access`` heard them and
#: made records only once it is written (``_Space.unwritten``); False: recorded at once
DEFER_UNWRITTEN = True
#: lanes, over all of an interval's accesses, up to which ``_no_word_twice`` compares their words in
#: a Python set
FEW_WORDS = 64
#: lanes up to which ``_no_word_twice`` sorts the words of global accesses it cannot tell by
#: their ranges (past it, ``_judge``'s table of words costs less than a sort)
SORTED_WORDS = 4096
#: accesses up to which ``_pass`` walks them in Python (numpy's two dozen calls cost ~43 µs
#: whatever the size: 24 accesses 16 µs in Python, 64 about the same as numpy, 128 75)
FEW_PASS = 48
_ADDRESS_BITS = 46  # global addresses start at 2**40 (kernel._arguments)
_INT64 = np.dtype(np.int64)


def _remembered(addresses: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``addresses`` is a per-lane int64 array nothing can change (a remembered sum,
    ``arrays._weighted_parts``: read-only, alive for the launch anyway)."""
    return (
        type(addresses) is np.ndarray
        and addresses.dtype is _INT64
        and addresses.shape == shape
        and not addresses.flags.writeable
    )


def independent_threads(arch: str) -> bool:
    """Whether ``arch`` (``sm_90``) schedules a warp's threads independently (Volta, sm_70, on)."""
    digits = arch.removeprefix("sm_").rstrip("abf")
    return (int(digits[:-1]) if digits.isdigit() and len(digits) > 1 else 9) >= 7


@dataclass
class Hazard:
    """One kind of race between two source lines of one array, over the whole launch."""

    kind: str  # RAW, WAR or WAW
    space: str  # shared or global
    array: str
    first_line: int  # the earlier access: the write of RAW and WAW, the read of WAR
    second_line: int
    count: int  # accesses that raced (each thread's access counted once)
    block: tuple[int, int, int]  # where the first one was seen
    first_thread: tuple[int, int, int]
    second_thread: tuple[int, int, int]
    atomic: tuple[bool, bool] = (False, False)  # whether each access is an atomic update

    def describe(self, file: str) -> str:
        first = "read" if self.kind == "WAR" else "updated atomically" if self.atomic[0] else "written"
        second = "read" if self.kind == "RAW" else "updated atomically" if self.atomic[1] else "written"
        b, t1, t2 = (", ".join(map(str, v)) for v in (self.block, self.first_thread, self.second_thread))
        return (
            f"{self.count:,} {self.kind} hazard{'s' if self.count != 1 else ''} on {self.space} array "
            f"{self.array}: {first} at {file}:{self.first_line} by thread ({t1}), {second} at "
            f"{file}:{self.second_line} by thread ({t2}) of block ({b}) with no barrier between"
        )


@dataclass(frozen=True, slots=True)
class _Access:
    """A site's kind of access (one object per kind a launch makes: ``RaceCheck.access``)."""

    line: int
    array: str
    write: bool
    atomic: bool = False


@dataclass(slots=True)
class _Record:
    """One warp-wide access, copied into a reused buffer until its interval is judged (a
    buffer per access would be fresh memory each time: page faults cost more than the copy),
    or, for a shared access of every lane, the remembered lane terms of its offsets."""

    offsets: np.ndarray  # per lane of the chunk: byte offset from ``base``, -1 where inactive
    base: int
    id: int  # index into RaceCheck.accesses, in program order
    epoch: np.ndarray | None  # syncwarps each warp had passed, None before the first
    threads: int
    gen: np.ndarray | None = None  # barriers each lane passed since all last met, None: 0
    pooled: bool = True  # ``offsets`` is one of the pool's buffers (given back once judged)
    lanes: np.ndarray | None = None  # a sparse access: its lanes, ``offsets`` theirs alone
    whole: bool = False  # ``offsets`` holds every lane of the chunk, ``lanes`` the active ones

    def picked(self) -> tuple[np.ndarray, np.ndarray]:
        """The lanes that accessed, and their byte addresses."""
        if self.whole:
            assert self.lanes is not None
            return self.lanes, self.offsets[self.lanes] + self.base
        if self.lanes is not None:
            return self.lanes, self.offsets.astype(np.int64) + self.base
        lanes = np.flatnonzero(self.offsets >= 0)
        return lanes, self.offsets[lanes].astype(np.int64) + self.base


@dataclass
class _Space:
    """The accesses to one memory space (a block's shared memory, one global allocation)
    since the last barrier."""

    name: str
    records: list[_Record] = field(default_factory=list)
    writes: int = 0
    events: int = 0
    reads_dropped: bool = False
    # reads of a global allocation not written yet, as ``access`` heard them: made records
    # (``RaceCheck._recorded``) only once the space is written, so the inputs a kernel only
    # reads (most) cost a tuple per access, not a record and its copy of the addresses
    unwritten: list[tuple[Any, ...]] = field(default_factory=list)


class RaceCheck:
    """Races of one launch: ``start_chunk`` per chunk of blocks, then ``access``, ``barrier``
    and ``syncwarp`` as the kernel runs them, ``end_chunk`` when it returns; ``hazards``."""

    def __init__(self, arch: str, file: str) -> None:
        self.independent = independent_threads(arch)
        self.file = file
        self.found: dict[tuple[str, str, str, int, int], Hazard] = {}
        # (read line, write line) -> [count, block, reading thread, writing thread, array]
        self.stale: dict[tuple[int, int], list[Any]] = {}
        self.written: set[int] = set()  # global allocations written so far in the launch
        self.chunks = 0
        self.pool: dict[str, list[np.ndarray]] = {}
        self._kinds: dict[tuple[int, str, bool, bool], _Access] = {}  # the accesses' kinds, each once

    # -- while the kernel runs --------------------------------------------------------
    def start_chunk(self, chunk: Chunk) -> None:
        self.chunk = chunk
        self.chunks += 1
        self.spaces: dict[int, _Space] = {}
        self.accesses: list[_Access] = []
        self.epoch: np.ndarray | None = None  # syncwarps executed per warp, once there is one
        # barriers each lane passed since the chunk's live threads last all met at one (threads
        # in divergent code reach barriers separately: accesses in different ones never race)
        self.gen: np.ndarray | None = None
        self.pool = {k: [b for b in v if b.size == chunk.lanes] for k, v in self.pool.items()}

    def access(
        self,
        array: Any,
        index: tuple[Any, ...],
        addresses: Any,
        mask: Mask,
        line: int,
        write: bool,
        atomic: bool = False,
        extra: Any = 0,
    ) -> None:
        """The active lanes' load or store of ``array[index]`` (index checked, in bounds) at
        ``addresses + extra`` (their byte addresses, where the counters computed them, else
        None); ``atomic``: an atomic read-modify-write (``write`` too)."""
        kind = array.kind
        if kind == "shared":
            key = -1
        elif kind == "global":
            key = array.alloc.key
        else:
            return
        space = self.spaces.get(key)
        if space is None:
            space = self.spaces[key] = _Space(kind)
        threads = mask.threads
        unwritten = False
        if kind == "global" and key not in self.written:
            if write:
                self.written.add(key)
                for heard in space.unwritten:  # the reads before it, recorded now, in order
                    space.records.append(self._recorded(*heard))
                space.unwritten = []
            else:
                if self.chunks > 1 or space.reads_dropped:
                    return
                if space.events - space.writes + threads > READ_LIMIT:
                    space.reads_dropped = True
                    return
                unwritten = DEFER_UNWRITTEN
        if not threads:
            return
        seen = (line, array.name, write, atomic)
        kind_of = self._kinds.get(seen)
        if kind_of is None:
            kind_of = self._kinds[seen] = _Access(line, array.name, write, atomic)
        heard = (array, index, addresses, mask, extra, len(self.accesses), self.epoch, self.gen)
        self.accesses.append(kind_of)
        space.events += threads
        if unwritten:
            space.unwritten.append(heard)
            return
        space.records.append(self._recorded(*heard))
        if write:
            space.writes += threads
        if space.events > EVENT_LIMIT:
            self._judge(space)
            self._give_back(space.records)
            self.spaces[key] = _Space(kind, reads_dropped=space.reads_dropped)

    def _recorded(
        self,
        array: Any,
        index: tuple[Any, ...],
        addresses: Any,
        mask: Mask,
        extra: Any,
        at: int,
        epoch: np.ndarray | None,
        gen: np.ndarray | None,
    ) -> _Record:
        """An access ``access`` heard, as the record ``_judge`` reads: the ``at``-th of the
        chunk, by the lanes of ``mask`` after ``epoch`` syncwarps and ``gen`` barriers (the
        values then: both are replaced, never changed, as the kernel goes on)."""
        kind = array.kind
        if kind == "shared":
            base, dtype = 0, "i4"
        else:
            base = array.alloc.base
            dtype = "i4" if array.alloc.nbytes < 1 << 31 else "i8"
        threads = mask.threads
        if addresses is None:
            addresses = array.byte_offsets(index) + (array.offset if kind == "shared" else array.base)
            extra = 0
        everyone = threads == mask.arr.size
        if everyone and kind == "shared" and _remembered(addresses, mask.arr.shape):
            # the offsets' lane terms, remembered for the launch (read-only): kept as they are,
            # their scalar as the record's base
            return _Record(addresses, extra, at, epoch, threads, gen, pooled=False)
        if kind == "global" and _remembered(addresses, mask.arr.shape):
            # a global access's remembered lane terms (read-only, alive for the launch) kept as
            # they are with the active lanes, not copied: most are reads of inputs no thread
            # writes, never judged (a copy per access was a third of a small matmul's time)
            return _Record(
                addresses, extra, at, epoch, threads, gen, pooled=False, lanes=mask.lanes, whole=True
            )
        if mask.sparse:  # few lanes: their offsets alone, not a chunk-wide buffer
            lanes = mask.lanes
            if getattr(addresses, "ndim", 0) == 0:  # one address for every lane (``out[0]``): no gather
                offset = np.int64(int(addresses) - (base - extra)).astype(dtype)
                offsets = np.full(lanes.size if offset >= 0 else 0, offset, dtype)
                lanes = lanes if offset >= 0 else lanes[:0]
            else:
                offsets = (np.broadcast_to(addresses, mask.arr.shape)[lanes] - (base - extra)).astype(dtype)
                accessed = offsets >= 0
                if not accessed.all():
                    lanes, offsets = lanes[accessed], offsets[accessed]
            return _Record(offsets, base, at, epoch, threads, gen, pooled=False, lanes=lanes)
        buf = self._take(dtype)
        if everyone:
            np.subtract(addresses, base - extra, out=buf, casting="unsafe")
        else:
            buf.fill(-1)
            np.subtract(addresses, base - extra, out=buf, where=mask.arr, casting="unsafe")
        return _Record(buf, base, at, epoch, threads, gen)

    def _take(self, dtype: str) -> np.ndarray:
        free = self.pool.setdefault(dtype, [])
        return free.pop() if free else np.empty(self.chunk.lanes, dtype=dtype)

    def _give_back(self, records: list[_Record]) -> None:
        for r in records:
            if r.pooled:
                self.pool[r.offsets.dtype.str[1:]].append(r.offsets)

    def syncwarp(self, mask: Mask) -> None:
        """The warps with lanes in ``mask`` passed a ``syncwarp``: their earlier accesses are
        ordered before their later ones (a new array: records keep the old one)."""
        before = np.zeros(self.chunk.lanes // WARP, dtype=np.int64) if self.epoch is None else self.epoch
        self.epoch = before + mask.warp_any

    def barrier(self, mask: Mask, complete: bool) -> None:
        """The lanes of ``mask`` passed a barrier; ``complete``: every live lane of the chunk
        did (then everything recorded is judged and forgotten)."""
        if complete:
            self.end_chunk()
            return
        before = np.zeros(self.chunk.lanes, dtype=np.int64) if self.gen is None else self.gen
        self.gen = before + mask.arr

    def end_chunk(self) -> None:
        for space in self.spaces.values():
            if space.writes:
                self._judge(space)
            self._give_back(space.records)
        self.spaces = {}
        self.gen = None

    # -- judging one interval ---------------------------------------------------------
    def _judge(self, space: _Space) -> None:
        """Report the races among the accesses recorded in ``space``."""
        records = space.records
        if not any(self.accesses[r.id].write for r in records):
            return
        if all(self.accesses[r.id].atomic for r in records):
            return  # atomics never race among themselves, and read nothing stale (each a write)
        if _no_word_twice(records, sort=space.name == "global"):
            return  # no two accesses name one word: no address two threads share
        repeat = 1
        blocks, slots = self.chunk.blocks, self.chunk.warps_per_block * WARP
        if (
            space.name == "shared"
            and blocks > 1
            and all(r.epoch is None and r.gen is None and r.lanes is None for r in records)
        ):
            # every block asking for the same offsets under the same masks (the usual case)
            # races alike: judge the first, count it for all
            views = [r.offsets.reshape(blocks, slots) for r in records]
            if all((v == v[0]).all() for v in views):
                records = [_Record(r.offsets[:slots], r.base, r.id, None, 0, None) for r in records]
                repeat = blocks
        picked, touched = zip(*(r.picked() for r in records))
        lanes = np.concatenate(picked)
        if not lanes.size:
            return
        addresses = np.concatenate(touched)
        per_block = space.name == "shared"  # each block has its own shared memory
        shared = _shared_addresses(lanes, addresses, self.chunk.warps_per_block * WARP if per_block else 0)
        if shared is not None and not shared.any():
            return  # no address two threads touch
        ids = np.repeat(np.asarray([r.id for r in records], dtype=np.int64), [p.size for p in picked])
        epochs = None
        if self.independent and any(r.epoch is not None for r in records):
            epochs = np.concatenate(
                [
                    np.zeros(p.size, np.int64) if r.epoch is None else r.epoch[p // WARP]
                    for r, p in zip(records, picked)
                ]
            )
        if shared is not None:  # only the addresses two threads touch can race
            lanes, addresses, ids = lanes[shared], addresses[shared], ids[shared]
            epochs = None if epochs is None else epochs[shared]
        gens = None
        if any(r.gen is not None for r in records):
            gens = np.concatenate(
                [np.zeros(p.size, np.int64) if r.gen is None else r.gen[p] for r, p in zip(records, picked)]
            )
        if shared is not None:
            gens = None if gens is None else gens[shared]
        if lanes.size:
            self._races(space.name, lanes, addresses, ids, epochs, gens, repeat)

    def _races(
        self,
        space: str,
        lanes: np.ndarray,
        addresses: np.ndarray,
        ids: np.ndarray,
        epochs: np.ndarray | None,
        gens: np.ndarray | None,
        repeat: int = 1,
    ) -> None:
        write = np.fromiter((a.write for a in self.accesses), dtype=bool, count=len(self.accesses))[ids]
        if not write.any():
            return
        atomic = np.fromiter((a.atomic for a in self.accesses), dtype=bool, count=len(self.accesses))[ids]
        # plain accesses race with any other thread's; atomics only with plain ones
        passes = [(None, None)] if not atomic.any() else [(~atomic, None), (atomic, ~atomic)]
        slots = self.chunk.warps_per_block * WARP
        block = lanes // slots
        local = lanes - block * slots
        key = (block << _ADDRESS_BITS) | addresses
        flags = np.zeros((3, lanes.size), dtype=bool)
        witness = np.zeros((3, lanes.size), dtype=np.int64)
        warp = local // WARP
        g = np.zeros_like(ids) if gens is None else gens  # the barrier interval of each access
        # threads of different warps (any architecture)
        order = np.lexsort((ids, g, key))
        for second, sources in passes:
            _pass(order, (key, g), write, warp, flags, witness, second, sources)
        if self.independent:  # lanes of one warp between the same syncwarps
            e = np.zeros_like(ids) if epochs is None else epochs
            order = np.lexsort((ids, e, warp, g, key))
            for second, sources in passes:
                _pass(order, (key, g, warp, e), write, local % WARP, flags, witness, second, sources)
        if flags.any():
            self._collect(space, flags, witness, ids, block, local, repeat)
        if gens is not None:
            self._stale(key, g, ids, write, block, local)

    def _stale(
        self,
        key: np.ndarray,
        gen: np.ndarray,
        ids: np.ndarray,
        write: np.ndarray,
        block: np.ndarray,
        local: np.ndarray,
    ) -> None:
        """Reads the emulator served too early: after its barrier a thread read an address that
        another thread writes before its own (a later barrier interval in the emulator's order,
        an earlier one on a GPU), as when whole warps meet at different ``syncthreads``."""
        for r, wr in _stale_pairs(key, gen, ids, write):
            read, written = self.accesses[int(ids[r])], self.accesses[int(ids[wr])]
            hk = (read.line, written.line)
            s = self.stale.get(hk)
            if s is not None:
                s[0] += 1
                continue
            ch = self.chunk
            lane = int(block[r]) * ch.warps_per_block * WARP + int(local[r])
            other = int(block[wr]) * ch.warps_per_block * WARP + int(local[wr])
            blk, thread = ch.where(lane)
            _, writer = ch.where(other)
            self.stale[hk] = [1, blk, thread, writer, read.array]

    def _collect(
        self,
        space: str,
        flags: np.ndarray,
        witness: np.ndarray,
        ids: np.ndarray,
        block: np.ndarray,
        local: np.ndarray,
        repeat: int,
    ) -> None:
        ch = self.chunk
        bx, by, _ = ch.block
        for k, kind in enumerate(KINDS):
            second = np.flatnonzero(flags[k])
            if not second.size:
                continue
            first = witness[k][second]
            pair = ids[first] * len(self.accesses) + ids[second]
            pairs, where, counts = np.unique(pair, return_index=True, return_counts=True)
            for p, i, n in zip(pairs.tolist(), where.tolist(), (counts * repeat).tolist()):
                a, b = self.accesses[p // len(self.accesses)], self.accesses[p % len(self.accesses)]
                hk = (kind, space, b.array, a.line, b.line)
                h = self.found.get(hk)
                if h is not None:
                    h.count += n
                    continue
                s, f = int(second[i]), int(first[i])
                lane = int(block[s]) * ch.warps_per_block * WARP + int(local[s])
                blk, _ = ch.where(lane)

                def thread(t: int) -> tuple[int, int, int]:
                    return (t % bx, t // bx % by, t // (bx * by))

                self.found[hk] = Hazard(
                    kind,
                    space,
                    b.array,
                    a.line,
                    b.line,
                    n,
                    blk,
                    thread(int(local[f])),
                    thread(int(local[s])),
                    (a.atomic, b.atomic),
                )

    def hazards(self) -> list[Hazard]:
        """What was found, most frequent first."""
        return sorted(self.found.values(), key=lambda h: (-h.count, h.first_line, h.second_line, h.kind))


def _no_word_twice(records: list[_Record], sort: bool = True) -> bool:
    """Whether no 4-byte word is named by two threads in these accesses (a thread reading
    and then writing its own element, ``a[i] += x``, names it twice, and races with no one),
    told cheaply where every record keeps remembered lane terms (``_Record.whole``: a few
    distinct arrays, each looked at once) whose active lanes name addresses at least a word
    apart (ascending in lane order, or once sorted), and the ranges of words of the records
    that differ (in lane terms, lanes or base: the same ones name the same words by the same
    lanes) do not overlap (a grid-stride loop's stores, one element per thread each time);
    False where that cannot be told so (``_shared_addresses`` then finds the words two threads
    name). A few accesses' words (``FEW_WORDS`` lanes in all, remembered lane terms or not)
    are given their lanes in a dict: fewer calls than the table or the ranges, and exact, for
    the few accesses of a small launch; up to ``SORTED_WORDS`` lanes, where ``sort`` (a global
    allocation's: threads seldom share its words, a block's shared memory is shared to be),
    they are sorted."""
    lanes_in_all = sum(r.threads for r in records)
    if lanes_in_all > FEW_WORDS and not all(r.whole for r in records):
        return lanes_in_all <= SORTED_WORDS and sort and _words_sorted_apart(records)
    if lanes_in_all <= FEW_WORDS:  # remembered lane terms too: their ranges cost more calls
        owner: dict[int, int] = {}
        for r in records:
            lanes, named = r.picked()
            for lane, a in zip(lanes.tolist(), named.tolist()):
                if owner.setdefault(a >> 2, lane) != lane:
                    return False
        return True
    spans = set()
    known: dict[tuple[int, int], tuple[int, int]] = {}
    for r in records:
        key = (id(r.offsets), id(r.lanes))
        ends = known.get(key)
        if ends is None:
            terms = r.offsets[r.lanes]
            if terms.size > 1 and not (np.diff(terms) >= 4).all():
                # not ascending in lane order (a block of several dimensions, a grid of
                # several blocks): ascending once sorted, a word apart, names no word twice
                terms = np.sort(terms)
                if not (np.diff(terms) >= 4).all():
                    return False
            ends = known[key] = (int(terms[0]), int(terms[-1]))
        base = int(r.base)
        spans.add((*key, (ends[0] + base) >> 2, (ends[1] + base) >> 2))
    ranges = sorted(span[2:] for span in spans)
    return all(later[0] > earlier[1] for earlier, later in itertools.pairwise(ranges))


def _words_sorted_apart(records: list[_Record]) -> bool:
    """``_no_word_twice`` of more lanes than a set serves well (``FEW_WORDS``): the records'
    words sorted (stably), no two neighbours the same word from different lanes."""
    picked = [r.picked() for r in records]
    lanes = np.concatenate([p[0] for p in picked])
    words = np.concatenate([p[1] for p in picked]) >> 2
    order = np.argsort(words, kind="stable")
    words, lanes = words[order], lanes[order]
    return not ((words[1:] == words[:-1]) & (lanes[1:] != lanes[:-1])).any()


def _shared_addresses(lanes: np.ndarray, addresses: np.ndarray, slots: int) -> np.ndarray | None:
    """Which accesses name an address some other lane also names (a quick pass over a dense
    table of the addresses' 4-byte words, the last lane to name a word owning it), or None
    when the words span too far for a table (then every access is judged). ``slots``: lanes
    per block where every block has its own copy of the addresses (shared memory), else 0."""
    lo, hi = int(addresses.min()), int(addresses.max())
    span = (hi - lo) // 4 + 1
    blocks = int(lanes.max() // slots) + 1 if slots else 1  # lanes come record by record, unsorted
    words = span * blocks
    if words > max(1 << 22, 4 * addresses.size):
        return None
    word = (addresses - lo) >> 2
    if slots:
        word = word + lanes // slots * span
    owner = np.full(words, -1, dtype=np.int64)
    owner[word] = lanes
    other = owner[word] != lanes
    if not other.any():
        return other
    crowded = np.zeros(words, dtype=bool)
    crowded[word[other]] = True
    return crowded[word]


def _pass(
    order: np.ndarray,
    group: Any,
    write: np.ndarray,
    ident: np.ndarray,
    flags: np.ndarray,
    witness: np.ndarray,
    second: np.ndarray | None = None,
    sources: np.ndarray | None = None,
) -> None:
    """Flag, in ``order`` (grouped by ``group``, then program order), each access an earlier
    one of its group from another ``ident`` conflicts with: a read after a write (RAW), a
    write after a read (WAR), a write after or with a write (WAW). ``second``: only these
    accesses may be flagged; ``sources``: only these count as the earlier one (None: all).
    Of the group's accesses so far (this one included) of each kind, the witness is the one
    of the highest ``ident`` (the latest of them) where that is another's, else the one of the
    lowest (the latest of them)."""
    n = order.size
    if n <= FEW_PASS:
        _few_pass(order, group, write, ident, flags, witness, second, sources)
        return
    if isinstance(group, tuple):
        new = np.zeros(n, dtype=bool)
        for part in group:
            g = part[order]
            new[1:] |= g[1:] != g[:-1]
    else:
        g = group[order]
        new = np.zeros(n, dtype=bool)
        new[1:] = g[1:] != g[:-1]
    gid = np.cumsum(new)
    who = ident[order].astype(np.int64)
    w = write[order]
    may_flag = np.ones(n, dtype=bool) if second is None else second[order]
    may_source = np.ones(n, dtype=bool) if sources is None else sources[order]
    pos = np.arange(n, dtype=np.int64)
    top = int(who.max()) + 2 if n else 2
    hi_code = (who + 1) * n + pos  # the highest ident wins, then the latest
    lo_code = (top - who) * n + pos  # the lowest ident wins
    for source, kinds in ((w & may_source, (0, 2)), (~w & may_source, (1,))):  # writes: RAW, WAW; reads: WAR
        if not source.any():
            continue
        hi = _running_max(gid, np.where(source, hi_code, 0), top * n + n)
        lo = _running_max(gid, np.where(source, lo_code, 0), top * n + n)
        hi_who, lo_who = hi // n - 1, top - lo // n
        other_hi = (hi > 0) & (hi_who != who)
        other_lo = (lo > 0) & (lo_who != who)
        other = other_hi | other_lo
        at = np.where(other_hi, hi % n, lo % n)
        for k in kinds:
            sel = other & may_flag & (~w if k == 0 else w)
            if sel.any():
                dst = order[sel]
                flags[k, dst] = True
                witness[k, dst] = order[at[sel]]


def _stale_pairs(
    key: np.ndarray, gen: np.ndarray, ids: np.ndarray, write: np.ndarray
) -> list[tuple[int, int]]:
    """``RaceCheck._stale``'s (read, write) pairs: by address, latest access first, each read
    after which (in program order) a write of the same address comes in a lower barrier
    interval, with the write of the lowest interval (the latest of those); a few accesses
    (``FEW_PASS``) on lists."""
    n = key.size
    if n <= FEW_PASS:
        return _few_stale_pairs(key.tolist(), gen.tolist(), ids.tolist(), write.tolist())
    order = np.lexsort((-ids, key))  # by address, latest access first
    k, g, w = key[order], gen[order], write[order]
    new = np.zeros(n, dtype=bool)
    new[1:] = k[1:] != k[:-1]
    top = int(g.max()) + 1
    code = np.where(w, (top - g) * n + np.arange(n), 0)  # the lowest interval wins
    later = _running_max(np.cumsum(new), code, (top + 1) * n)
    stale = ~w & (later > 0) & (top - later // n < g)
    return [(int(order[at]), int(order[int(later[at] % n)])) for at in np.flatnonzero(stale)]


def _few_stale_pairs(
    key: list[int], gen: list[int], ids: list[int], write: list[bool]
) -> list[tuple[int, int]]:
    """``_stale_pairs`` walked on lists."""
    order = sorted(range(len(key)), key=lambda j: (key[j], -ids[j]))  # stable, as lexsort
    pairs = []
    address = None
    lowest: tuple[int, int] | None = None  # (interval, position) of the write that wins so far
    for pos, j in enumerate(order):
        if key[j] != address:
            address, lowest = key[j], None
        if write[j]:
            if lowest is None or gen[j] <= lowest[0]:
                lowest = (gen[j], pos)
        elif lowest is not None and lowest[0] < gen[j]:
            pairs.append((j, order[lowest[1]]))
    return pairs


def _few_pass(
    order: np.ndarray,
    group: Any,
    write: np.ndarray,
    ident: np.ndarray,
    flags: np.ndarray,
    witness: np.ndarray,
    second: np.ndarray | None,
    sources: np.ndarray | None,
) -> None:
    """``_pass`` of a few accesses, one by one on lists: per group, the writes and the reads
    so far each keep their highest and lowest ``ident`` (the latest access of each)."""
    at = order.tolist()
    parts = [p.tolist() for p in group] if isinstance(group, tuple) else [group.tolist()]
    writes, who_of = write.tolist(), ident.tolist()
    may_flag = None if second is None else second.tolist()
    may_source = None if sources is None else sources.tolist()
    previous: tuple[Any, ...] | None = None
    kept: list[list[int] | None] = [None, None]  # reads', writes': [hi who, hi pos, lo who, lo pos]
    for pos, i in enumerate(at):
        key = tuple(p[i] for p in parts)
        if key != previous:
            kept, previous = [None, None], key
        w, who = writes[i], who_of[i]
        if may_source is None or may_source[i]:
            seen = kept[w]
            if seen is None:
                kept[w] = [who, pos, who, pos]
            else:
                if who >= seen[0]:
                    seen[0], seen[1] = who, pos
                if who <= seen[2]:
                    seen[2], seen[3] = who, pos
        if may_flag is not None and not may_flag[i]:
            continue
        for sources_so_far, kinds in ((kept[True], (0, 2)), (kept[False], (1,))):
            if sources_so_far is None:
                continue
            if sources_so_far[0] != who:  # the highest thread's, where it is another's
                other = sources_so_far[1]
            elif sources_so_far[2] != who:  # else the lowest's
                other = sources_so_far[3]
            else:
                continue
            for k in kinds:
                if (k != 0) == w:  # RAW flags a read; WAR and WAW a write
                    flags[k, i] = True
                    witness[k, i] = at[other]


def _running_max(gid: np.ndarray, code: np.ndarray, span: int) -> np.ndarray:
    """Per position, the largest ``code`` so far within its group (0: none yet)."""
    base = gid * span
    return np.maximum.accumulate(base + code) - base
