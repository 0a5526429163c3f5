"""The counting rules of one warp memory instruction, against a lane-by-lane reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from warpscope.emulator import memory

lanes = st.lists(st.one_of(st.none(), st.integers(0, 4095)), min_size=32, max_size=32)


def _rows(warps, itemsize):
    return np.array([[-1 if a is None else a * itemsize for a in w] for w in warps], dtype=np.int64)


def _sectors_reference(warps, itemsize):
    total = 0
    for w in warps:
        touched = set()
        for a in w:
            if a is not None:
                start = a * itemsize
                touched.update(range(start // 32, (start + itemsize - 1) // 32 + 1))
        total += len(touched)
    return total


def _wavefronts_reference(warps, itemsize):
    total = ideal = 0
    per_phase = max(1, 128 // itemsize) if itemsize > 4 else 32
    for w in warps:
        active = [a for a in w if a is not None]
        if active:
            ideal += max(1, -(-len(active) * itemsize // 128))
        for p in range(0, 32, per_phase):
            banks: dict[int, set[int]] = {}
            for a in w[p : p + per_phase]:
                if a is None:
                    continue
                first = a * itemsize // 4
                for word in range(first, first + max(1, itemsize // 4)):
                    banks.setdefault(word % 32, set()).add(word)
            total += max((len(v) for v in banks.values()), default=0)
    return total, ideal


@settings(max_examples=300, deadline=None)
@given(st.lists(lanes, min_size=1, max_size=4), st.sampled_from([1, 2, 4, 8, 12, 16, 24, 64]))
def test_global_sectors_match_lane_by_lane_count(warps, itemsize):
    """Elements of every size, those that do not divide a sector (12, 24 bytes) straddling
    one even where they start at a multiple of their size."""
    assert memory.global_sectors(_rows(warps, itemsize), itemsize) == _sectors_reference(warps, itemsize)


@settings(max_examples=200, deadline=None)
@given(st.lists(lanes, min_size=1, max_size=4), st.sampled_from([1, 2, 4, 8, 12, 16, 64]))
def test_sector_ids_told_the_addresses_are_whole_elements_give_what_checking_gives(warps, itemsize):
    """A local access's addresses are whole elements, as a naturally aligned global array's
    are: told so, the sectors are those the alignment check finds."""
    rows = _rows(warps, itemsize)
    assert np.array_equal(memory.sector_ids(rows, itemsize, aligned=True), memory.sector_ids(rows, itemsize))


@settings(max_examples=200, deadline=None)
@given(st.lists(lanes, min_size=1, max_size=4), st.sampled_from([4, 8, 16]))
def test_shared_wavefronts_match_lane_by_lane_count(warps, itemsize):
    assert memory.shared_wavefronts(_rows(warps, itemsize), itemsize) == _wavefronts_reference(
        warps, itemsize
    )


@st.composite
def own_banks(draw):
    """A warp whose active lanes each ask for a word of a bank no other lane asks for."""
    banks = draw(st.permutations(range(32)))
    rows = draw(st.lists(st.integers(0, 127), min_size=32, max_size=32))
    off = draw(st.lists(st.booleans(), min_size=32, max_size=32))
    return [None if o else b + 32 * r for b, r, o in zip(banks, rows, off)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(own_banks(), lanes), min_size=3, max_size=8))
def test_many_warps_on_banks_of_their_own_or_not_match_lane_by_lane_count(warps):
    """Past two warps the count is vectorised, with a shortcut where every warp's lanes are
    on banks of their own; mixed with conflicted warps it must still count each one right."""
    assert memory.shared_wavefronts(_rows(warps, 4), 4) == _wavefronts_reference(warps, 4)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 3),
    st.lists(lanes, min_size=1, max_size=4),
    st.sampled_from([1, 2, 4, 8, 16]),
    st.booleans(),
)
def test_few_warps_shared_count_on_lists_equals_numpys(blocks, warps, itemsize, same):
    """A few warps' shared access is counted on Python lists (``_few_shared_wavefronts``):
    the same wavefronts and ideal wavefronts as the numpy path, blocks agreeing or not."""
    one = _rows(warps, itemsize)
    # blocks that disagree: the same lanes active, offsets scaled (other banks, other conflicts)
    rows = np.concatenate(
        [one if same or b == 0 else np.where(one >= 0, one * (b + 1), -1) for b in range(blocks)]
    )
    few = memory._few_shared_wavefronts(rows.tolist(), itemsize, blocks)
    kept, memory.FEW_SHARED_ROWS = memory.FEW_SHARED_ROWS, 0
    try:
        assert few == memory.shared_wavefronts(rows, itemsize, blocks)
    finally:
        memory.FEW_SHARED_ROWS = kept


def test_textbook_patterns():
    lane = np.arange(32, dtype=np.int64)[None, :]
    assert memory.global_sectors(lane * 4, 4) == 4  # coalesced float
    assert memory.global_sectors(lane * 128, 4) == 32  # stride 32 floats
    assert memory.global_sectors(lane * 0 + 64, 4) == 1  # broadcast
    assert memory.global_sectors(lane * 4 + 4, 4) == 5  # misaligned by one float
    assert memory.shared_wavefronts(lane * 4, 4) == (1, 1)
    assert memory.shared_wavefronts(lane * 128, 4) == (32, 1)  # column of a [32][32] tile
    assert memory.shared_wavefronts(lane * 132, 4) == (1, 1)  # column of a [32][33] tile
    assert memory.shared_wavefronts(lane * 0, 4) == (1, 1)  # all lanes one word
    assert memory.shared_wavefronts(lane * 8, 4) == (2, 1)  # stride 2 words: 2-way


def test_global_efficiency_matches_the_h100_and_stays_within_its_definition(emulated_seed):
    """Bytes per sector count each element a warp names once (the H100's 18 of 32 bytes for
    matmulNaive, whose A operand 16 lanes read as one element), so no emulated efficiency passes
    100% and every seed kernel's equals the H100's; and no emulated percentage leaves 0-100,
    no count goes negative (the Memory tab once showed "200%" and "−16,777,216 excess sectors")."""
    import polars as pl

    import warpscope
    from tests.conftest import H100

    _, emulated = emulated_seed
    names = ["global_load_efficiency_pct", "global_store_efficiency_pct"]

    def table(profile):
        m = profile.metrics.filter(pl.col("metric").cast(pl.String).is_in(names))
        return m.join(profile.launches.select("launch_id", "kernel_short"), on="launch_id").select(
            "kernel_short", pl.col("metric").cast(pl.String), "value"
        )

    joined = table(warpscope.load(H100 / "seed_full_raw.csv")).join(
        table(emulated), on=["kernel_short", "metric"], suffix="_emulated"
    )
    assert joined.height >= 30
    assert joined.filter(pl.col("kernel_short") == "matmulNaive")["value_emulated"].to_list() == [
        56.25,
        100.0,
    ]
    assert ((joined["value"] - joined["value_emulated"]).abs() <= 1.0).all(), joined
    canonical = emulated.metrics.filter(pl.col("metric").is_not_null())
    percent = canonical.filter(pl.col("base_unit").cast(pl.String) == "%")
    assert percent.height > 100 and percent["value"].is_between(0, 100).all()
    assert (canonical["value"].drop_nulls() >= 0).all()


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    st.sampled_from([1, 2, 4, 8, 16, 12]),
    st.integers(0, 2**31),
    st.booleans(),
)
def test_one_sort_counts_what_the_two_do(warps, itemsize, seed, aligned):
    """``global_access`` (one sort, both counts read off it) equals ``global_sectors`` and
    ``unique_bytes`` (a sort each) on any addresses: aligned or not, repeated, inactive lanes,
    elements straddling sectors."""
    rng = np.random.default_rng(seed)
    addresses = rng.integers(0, 512, size=(warps, 32)) * (itemsize if aligned else 1)
    addresses[rng.random((warps, 32)) < 0.2] = -1
    if seed % 2:  # rows already in order (a coalesced warp's)
        addresses.sort(axis=1)
    want = (memory.global_sectors(addresses, itemsize), memory.unique_bytes(addresses, itemsize))
    assert memory.global_access(addresses, itemsize, aligned=aligned) == want
    assert memory.global_access(addresses, itemsize) == want


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4), st.integers(1, 4), st.sampled_from([4, 8, 16]), st.integers(0, 2**31), st.booleans()
)
def test_shared_counted_once_per_block_only_where_blocks_agree(blocks, warps, itemsize, seed, same):
    """Counting one block's warps times the blocks gives the full count when every block asks
    for the same offsets, and is not used when they differ."""
    rng = np.random.default_rng(seed)
    one = rng.integers(0, 64, size=(warps, 32)) * itemsize
    rows = np.concatenate(
        [one if same or b == 0 else rng.integers(0, 64, size=(warps, 32)) * itemsize for b in range(blocks)]
    )
    assert memory.shared_wavefronts(rows, itemsize, blocks) == memory.shared_wavefronts(rows, itemsize)
