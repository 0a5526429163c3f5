"""The CUDA Occupancy Calculator's three graphs, as tables: occupancy over block size,
registers per thread and shared memory per block, with everything else held at the launch's
values. The TUI charts them; the report and the CLI print them as runs of equal occupancy."""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from warpscope.occupancy.calculator import Occupancy

SWEEPS = ("block_size", "registers", "shared_mem")

SWEEP_SCHEMA = {
    "value": pl.Int64,
    "active_blocks_per_sm": pl.Int64,
    "active_warps_per_sm": pl.Int64,
    "occupancy_pct": pl.Float64,
    "limiter": pl.String,
    "current": pl.Boolean,
}


def sweep(occ: Occupancy, over: str) -> pl.DataFrame:
    """One graph: a row per value of ``over`` ("block_size", "registers" or "shared_mem").

    Block sizes run 32..1024 in warps (plus the launch's own size), registers 0..255,
    shared memory 0..the per-block ceiling in the allocation unit. A value the launch
    cannot run with has 0 blocks and no limiter.
    """
    rows = [
        _point(value, _vary(occ, over, value), value == _current(occ, over)) for value in _values(occ, over)
    ]
    return pl.DataFrame(rows, schema=SWEEP_SCHEMA, orient="row")


def _current(occ: Occupancy, over: str) -> int:
    if over == "block_size":
        return occ.block_size
    if over == "registers":
        return occ.registers_per_thread
    return occ.static_smem + occ.dynamic_smem


def _values(occ: Occupancy, over: str) -> Iterable[int]:
    arch = occ.arch
    if over == "block_size":
        return sorted(
            set(range(arch.warp_size, arch.max_threads_per_block + 1, arch.warp_size)) | {occ.block_size}
        )
    if over == "registers":
        return range(arch.max_registers_per_thread + 1)
    if over == "shared_mem":
        ceiling = arch.shared_per_block_optin if arch.has_carveout else arch.shared_per_block
        return sorted(set(range(0, ceiling + 1, arch.shared_alloc_unit)) | {_current(occ, over)})
    raise ValueError(f"unknown sweep {over!r}; expected one of {', '.join(SWEEPS)}")


def _vary(occ: Occupancy, over: str, value: int) -> Occupancy:
    if over == "block_size":
        return occ.changed(block_size=value)
    if over == "registers":
        return occ.changed(registers_per_thread=value)
    static = min(occ.static_smem, value)
    return occ.changed(static_smem=static, dynamic_smem=value - static)


#: (value, blocks per SM, warps per SM, occupancy %, limiter, is the launch's own point)
Point = tuple[int, int, int, float, str | None, bool]


def _point(value: int, occ: Occupancy, current: bool) -> Point:
    if occ.error:
        return (value, 0, 0, 0.0, None, current)
    return (value, occ.active_blocks_per_sm, occ.active_warps_per_sm, occ.occupancy_pct, occ.limiter, current)


def runs(table: pl.DataFrame) -> pl.DataFrame:
    """Consecutive values with the same blocks and limiter, as first..last ranges."""
    return (
        table.with_columns(
            pl.struct("active_blocks_per_sm", "active_warps_per_sm", "limiter").rle_id().alias("_run")
        )
        .group_by("_run", maintain_order=True)
        .agg(
            pl.col("value").first().alias("first"),
            pl.col("value").last().alias("last"),
            pl.col("active_blocks_per_sm").first(),
            pl.col("active_warps_per_sm").first(),
            pl.col("occupancy_pct").first(),
            pl.col("limiter").first(),
            pl.col("current").any(),
        )
        .drop("_run")
    )
