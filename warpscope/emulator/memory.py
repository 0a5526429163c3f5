"""What one warp-wide memory instruction costs, as Nsight Compute counts it.

Pure functions of the byte addresses of the active lanes, computed for many warps at
once (rows of 32 lanes; inactive lanes are -1). Definitions follow the Nsight Compute
Kernel Profiling Guide (docs/emulator.md, "What it counts"):

- global: one request per warp instruction; sectors = distinct aligned 32-byte chunks
  the active lanes touch (``smsp__sass_sectors_mem_global``);
- shared: 32 banks of 4 bytes; lanes reading the same word are served together
  (broadcast); a request takes as many wavefronts as the busiest bank has distinct words.
  8- and 16-byte accesses are served in phases of 128 bytes (half and quarter warps),
  each phase counted the same way; ideal = the bytes asked for / 128, at least one.
"""

from __future__ import annotations

import numpy as np

WARP = 32
SECTOR_BYTES = 32
SECTOR_SHIFT = SECTOR_BYTES.bit_length() - 1  # address >> this = its sector
BANKS = 32
BANK_BYTES = 4
PHASE_BYTES = BANKS * BANK_BYTES  # one shared wavefront serves 128 bytes


def global_sectors(addresses: np.ndarray, itemsize: int) -> int:
    """Distinct 32-byte sectors per warp, summed; ``addresses``: (warps, 32), -1 = inactive."""
    return _distinct_per_row(sector_ids(addresses, itemsize))


def global_access(addresses: np.ndarray, itemsize: int, aligned: bool = False) -> tuple[int, int]:
    """(``global_sectors``, ``unique_bytes``) of one access from one sort of the addresses:
    where no element straddles a sector, a row's sectors are its sorted addresses // 32, in
    order, so their distinct count needs no second sort (``_distinct_both``). ``aligned``: the
    array's elements are known to start at multiples of their size (otherwise the addresses
    are checked)."""
    if addresses.size == 0:
        return 0, 0
    if itemsize > SECTOR_BYTES or SECTOR_BYTES % itemsize:
        return global_sectors(addresses, itemsize), unique_bytes(addresses, itemsize)
    if addresses.shape[0] <= FEW_WARPS:
        counted = _few_global(addresses.tolist(), itemsize, aligned)
        if counted is not None:
            return counted
    # sorted whether or not the rows are in order already: a small sort of rows in order costs
    # what checking them does (12-16 warps: 8-12 -> 5-8 µs an access, the two counts together)
    ordered = np.sort(addresses, axis=1)
    if not aligned and np.any((ordered >= 0) & (ordered % itemsize != 0)):
        return global_sectors(addresses, itemsize), unique_bytes(addresses, itemsize)
    sectors, elements = _distinct_both(ordered)
    return sectors, elements * itemsize


def _distinct_both(ordered: np.ndarray) -> tuple[int, int]:
    """``_distinct_sorted`` of rows sorted ascending (-1s first) as sectors and as they are:
    (distinct sectors, distinct values), summed over the rows, with one look at the -1s."""
    sectors = ordered >> SECTOR_SHIFT  # (-1 stays -1)
    new_value = ordered[:, 1:] != ordered[:, :-1]
    new_sector = sectors[:, 1:] != sectors[:, :-1]
    if ordered[:, 0].min() >= 0:  # no -1 anywhere
        rows = ordered.shape[0]
        return rows + int(np.count_nonzero(new_sector)), rows + int(np.count_nonzero(new_value))
    valid = ordered >= 0
    first, rest = int(np.count_nonzero(valid[:, 0])), valid[:, 1:]
    return first + int(np.count_nonzero(new_sector & rest)), first + int(np.count_nonzero(new_value & rest))


#: up to this many warps, counting in Python sets costs less than numpy's calls
FEW_WARPS = 2
#: ... and up to this many, a shared access's wavefronts (``shared_wavefronts``: more calls)
FEW_SHARED_ROWS = 4
#: ... of 8 or 16 bytes, up to this many warps of one block (its phases: more Python per
#: warp; 2 warps of 8 bytes 21 against 32 µs, 4 distinct warps 38 against 33)
FEW_WIDE_SHARED_ROWS = 2


def _few_global(rows: list[list[int]], itemsize: int, aligned: bool) -> tuple[int, int] | None:
    """``global_access`` of a few warps' addresses, as lists; None where an element may
    straddle a sector (misaligned)."""
    sectors = elements = 0
    for row in rows:
        named = set(row)
        if min(named, default=0) < 0:  # inactive lanes (-1)
            named = {a for a in named if a >= 0}
        if not aligned and any(a % itemsize for a in named):
            return None
        elements += len(named)
        sectors += len({a >> SECTOR_SHIFT for a in named})
    return sectors, elements * itemsize


def unique_bytes(addresses: np.ndarray, itemsize: int) -> int:
    """Bytes the warps' accesses name, each element once per warp however many lanes name it
    (what ``smsp__sass_average_data_bytes_per_sector_mem_global_*`` counts: the H100 reports
    18 bytes per sector for matmulNaive, whose A operand every 16 lanes read as one element);
    ``addresses``: (warps, 32), -1 = inactive."""
    return _distinct_per_row(addresses) * itemsize


def sector_ids(addresses: np.ndarray, itemsize: int, aligned: bool = False) -> np.ndarray:
    """The sector of every lane's access, (warps, 32 or more), -1 = inactive; an element that
    straddles sectors adds a column per extra sector it covers. ``aligned``: every address is
    known to be a multiple of ``itemsize`` (not checked). An element whose size does not divide
    a sector (12 bytes) may straddle one wherever it starts: always checked."""
    first = np.where(addresses >= 0, addresses // SECTOR_BYTES, -1)
    if (
        itemsize > SECTOR_BYTES
        or SECTOR_BYTES % itemsize
        or (not aligned and np.any((addresses >= 0) & (addresses % itemsize != 0)))
    ):
        last = np.where(addresses >= 0, (addresses + itemsize - 1) // SECTOR_BYTES, -1)
        if np.any(last != first):
            return _spans(first, last)
    return first


def shared_wavefronts(offsets: np.ndarray, itemsize: int, blocks: int = 1) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) summed over warps; ``offsets``: byte offsets within the
    block's shared memory, (warps, 32), -1 = inactive.

    ``blocks``: how many blocks' warps the rows hold, in block order. Each block has its own
    copy of shared memory, so its warps usually ask for the same offsets as every other
    block's: then one block is counted, times ``blocks`` (checked row by row, so exact)."""
    if offsets.shape[0] <= FEW_SHARED_ROWS and itemsize <= BANK_BYTES:
        return _few_shared_wavefronts(offsets.tolist(), itemsize, blocks)
    if offsets.shape[0] <= FEW_SHARED_ROWS and itemsize in (8, 16):
        rows = offsets.tolist()
        if len(_one_block(rows, blocks)) <= FEW_WIDE_SHARED_ROWS:
            return _few_shared_wavefronts(rows, itemsize, blocks)
    repeat = 1
    if blocks > 1 and offsets.shape[0] % blocks == 0:
        per_block = offsets.reshape(blocks, -1, offsets.shape[1])
        if (per_block == per_block[0]).all():
            offsets, repeat = per_block[0], blocks
    active = offsets >= 0
    lanes = active.sum(axis=1)
    ideal = int(np.maximum(1, -(-lanes[lanes > 0] * itemsize // PHASE_BYTES)).sum())
    return repeat * int(wavefronts_per_warp(offsets, itemsize).sum()), repeat * ideal


def _few_shared_wavefronts(rows: list[list[int]], itemsize: int, blocks: int) -> tuple[int, int]:
    """``shared_wavefronts`` of a few warps' accesses of up to a word, or of 8 or 16 bytes (in
    phases of 128 bytes, each lane on its consecutive words: ``wavefronts_per_warp``), on
    Python lists (its numpy calls cost more there: 1 warp 10 µs against 3, 4 warps 14-26
    against 6-17; 8 bytes, two blocks of one warp alike, 11 against 21)."""
    one = _one_block(rows, blocks)
    repeat = len(rows) // len(one)
    rows = one
    words_per_lane = max(1, itemsize // BANK_BYTES)
    # up to a word, a warp's access is one phase; 8 and 16 bytes are served 128 bytes a phase
    lanes_per_phase = PHASE_BYTES // itemsize if words_per_lane > 1 else 0
    wavefronts = ideal = 0
    for row in rows:
        lanes = sum(1 for a in row if a >= 0)
        if not lanes:
            continue
        ideal += max(1, -(-lanes * itemsize // PHASE_BYTES))
        step = lanes_per_phase or len(row)
        for start in range(0, len(row), step):
            phase = [a // BANK_BYTES for a in row[start : start + step] if a >= 0]
            wavefronts += busiest_bank_of({w + k for w in phase for k in range(words_per_lane)})
    return repeat * wavefronts, repeat * ideal


def _one_block(rows: list[list[int]], blocks: int) -> list[list[int]]:
    """One block's rows where every block's are the same (``shared_wavefronts``), else all."""
    if blocks > 1 and len(rows) % blocks == 0:
        per = len(rows) // blocks
        if all(rows[b * per : (b + 1) * per] == rows[:per] for b in range(1, blocks)):
            return rows[:per]
    return rows


def busiest_bank_of(words: set[int]) -> int:
    """The most distinct words any one bank is asked for, of one warp's distinct (non-negative)
    words: its wavefronts for an access of up to a word (0 where none is asked)."""
    banks = [w % BANKS for w in words]
    if len(set(banks)) == len(banks):  # every word on a bank of its own (or none asked)
        return 1 if banks else 0
    per_bank = [0] * BANKS
    for b in banks:
        per_bank[b] += 1
    return max(per_bank)


def wavefronts_per_warp(offsets: np.ndarray, itemsize: int) -> np.ndarray:
    """Wavefronts of each warp's shared access (rows of ``offsets`` as in ``shared_wavefronts``).

    8- and 16-byte accesses are served in phases of 128 bytes (16 lanes of 8 bytes, 8 of 16),
    each lane covering several words; the phases of a warp add up."""
    if itemsize <= BANK_BYTES:
        return _busiest_bank(np.where(offsets >= 0, offsets // BANK_BYTES, -1))
    if not offsets.shape[0]:  # no warp (no sampled warp active): reshaping by -1 would fail
        return np.zeros(0, np.int64)
    per_lane = itemsize // BANK_BYTES
    lanes_per_phase = max(1, PHASE_BYTES // itemsize)
    rows = offsets.reshape(-1, lanes_per_phase)
    base = np.where(rows >= 0, rows // BANK_BYTES, -1)
    words = np.where(base[:, :, None] >= 0, base[:, :, None] + np.arange(per_lane), -1).reshape(
        rows.shape[0], -1
    )
    return _busiest_bank(words).reshape(offsets.shape[0], -1).sum(axis=1)


def _busiest_bank(words: np.ndarray) -> np.ndarray:
    """Per row, the largest number of distinct words any one bank is asked for."""
    if words.shape[0] <= FEW_WARPS:
        busiest = [busiest_bank_of({w for w in row if w >= 0}) for row in words.tolist()]
        return np.array(busiest, dtype=np.int64)
    valid = words >= 0
    active = np.count_nonzero(valid, axis=1)
    # each active lane on a bank of its own (the usual case): one wavefront, known without a sort
    bits = np.where(valid, np.left_shift(np.uint32(1), (words % BANKS).astype(np.uint32)), np.uint32(0))
    if np.array_equal(np.bitwise_count(np.bitwise_or.reduce(bits, axis=1)), active):
        return (active > 0).astype(np.int64)
    words = np.sort(words, axis=1)
    valid = words >= 0
    first = valid.copy()
    first[:, 1:] &= words[:, 1:] != words[:, :-1]
    rows = np.nonzero(first)[0]
    if rows.size == 0:
        return np.zeros(words.shape[0], dtype=np.int64)
    banks = words[first] % BANKS
    counts = np.bincount(rows * BANKS + banks, minlength=words.shape[0] * BANKS)
    return counts.reshape(words.shape[0], BANKS).max(axis=1)


def _distinct_per_row(values: np.ndarray) -> int:
    """Distinct non-negative values per row, summed."""
    if values.size == 0:
        return 0
    return _distinct_sorted(np.sort(values, axis=1))


def _distinct_sorted(rows: np.ndarray) -> int:
    """Distinct non-negative values per row of rows sorted ascending (-1s first), summed: a
    row's first valid value, and each valid value that differs from the one before it."""
    if rows.size == 0:
        return 0
    differ = rows[:, 1:] != rows[:, :-1]
    if rows[:, 0].min() >= 0:  # sorted: no -1 anywhere
        return rows.shape[0] + int(np.count_nonzero(differ))
    valid = rows >= 0
    return int(np.count_nonzero(valid[:, 0])) + int(np.count_nonzero(differ & valid[:, 1:]))


def _spans(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Every sector from ``first`` to ``last`` per lane, as extra columns (-1 padded)."""
    width = int((last - first).max()) + 1
    steps = np.arange(width)
    cover = first[:, :, None] + steps
    cover = np.where((first[:, :, None] >= 0) & (cover <= last[:, :, None]), cover, -1)
    return cover.reshape(first.shape[0], -1)
