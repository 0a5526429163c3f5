"""The launch columns every ncu page shares: identity, grid and block, short name."""

from __future__ import annotations

import polars as pl

from warpscope.importers.ncu.values import parse_dims
from warpscope.model.kernels import short_name

IDENTITY = {
    "ID": "profiler_launch_id",
    "Process ID": "process_id",
    "Process Name": "process_name",
    "Host Name": "host",
    "Kernel Name": "kernel",
    "Kernel Mangled Name": "kernel_mangled",  # a report's; no CSV page has it
    "Context": "context",
    "Stream": "stream",
    "Device": "device",
    "CC": "compute_capability",
}
DIM_TUPLES = {"Grid Size": "grid", "Block Size": "block"}  # "(32, 4, 1)" columns


def launch_columns(frame: pl.DataFrame, *, fmt: str, invocations: pl.Series | None = None) -> pl.DataFrame:
    """One launch row per row of ``frame`` (which has ``launch_id`` and the page's identity columns)."""
    cols = [pl.col("launch_id")]
    cols += [pl.col(src).alias(dst) for src, dst in IDENTITY.items() if src in frame.columns]
    for src, prefix in DIM_TUPLES.items():
        if src in frame.columns:
            cols += parse_dims(src, prefix)
    launches = frame.select(cols)
    if invocations is None:
        invocations = pl.Series([1] * frame.height, dtype=pl.Int64)
    return launches.with_columns(
        pl.lit(fmt).alias("source_format"),
        _short_names(launches["kernel"]).alias("kernel_short"),
        invocations.alias("invocations"),
    )


def _short_names(kernels: pl.Series) -> pl.Series:
    """``short_name`` of each kernel, worked out once per distinct name (thousands of launches
    are a few kernels)."""
    distinct = kernels.drop_nulls().unique().to_list()
    return kernels.replace_strict(
        distinct, [short_name(k) for k in distinct], default=None, return_dtype=pl.String
    )
