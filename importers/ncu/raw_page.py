"""Nsight Compute's ``--page raw``: one row per launch, one column per metric (internal
names), and a units row under the header. Any schema: the columns depend on the
sections, the GPU and the ncu version, so nothing but the identity columns is assumed.

Columns the catalog maps (and stall reasons) become long ``metrics`` rows; the rest, two
thousand or more on a full run, stay wide as read (``raw_metrics``, their units in
``raw_units``): unpivoting them cost ~60 bytes and real time per cell for text that no
view reads.
"""

from __future__ import annotations

import polars as pl

from warpscope.importers.ncu import assemble, mapping
from warpscope.importers.ncu.launches import IDENTITY, launch_columns
from warpscope.importers.ncu.long_page import PageResult
from warpscope.model import schema

IDENTITY_COLUMNS = set(IDENTITY) | {"Block Size", "Grid Size", "Kernel Time", "_row"}
DIM_METRICS = {f"launch__grid_dim_{a}": f"grid_{a}" for a in "xyz"} | {
    f"launch__block_dim_{a}": f"block_{a}" for a in "xyz"
}


def parsed_columns(header: list[str]) -> list[str]:
    """The columns ``import_raw`` reads: identity, launch shape, device name, and the metrics the
    catalog maps (stall reasons included)."""
    unmapped = set(unmapped_columns(header))
    shape = set(DIM_METRICS) | {"device__attribute_display_name"}
    return [c for c in header if c not in unmapped or c in shape]


def unmapped_columns(header: list[str]) -> list[str]:
    """The metric columns the catalog does not map: kept as exported (``raw_metrics``)."""
    by_name = mapping.by_name()
    return [
        c
        for c in header
        if c not in IDENTITY_COLUMNS and c != "launch_id" and not (c in by_name or mapping.STALL_RAW.match(c))
    ]


def import_raw(frame: pl.DataFrame, *, fmt: str, launch_offset: int = 0) -> PageResult:
    """Turn a raw page (all columns strings, ``_row`` added) into Profile tables."""
    has_units = frame.height > 0 and not (frame["ID"][0] or "")
    units_row, data = (frame.head(1), frame.slice(1)) if has_units else (frame.clear(), frame)
    rows_in = data.height
    ok = (pl.col("ID").str.contains(r"^\d+$") & pl.col("Kernel Name").is_not_null()).fill_null(False)
    good = data.select(ok).to_series()
    rejected = []
    if not good.all():  # a filter copies every column: only when there is a bad row
        rejected = [
            (int(r), "not a launch row of the raw page (expected a numeric ID and a kernel name)")
            for r in data.filter(~good)["_row"].to_list()
        ]
        data = data.filter(good)
    data = data.with_columns((pl.int_range(pl.len(), dtype=pl.Int64) + launch_offset).alias("launch_id"))

    columns = [c for c in data.columns if c not in IDENTITY_COLUMNS and c != "launch_id"]
    other_cols = unmapped_columns(columns)
    metric_cols = [c for c in columns if c not in set(other_cols)]
    unit_of = (
        {c: (units_row[c][0] or "") for c in columns} if units_row.height else dict.fromkeys(columns, "")
    )
    # One key per column; cells column by column (no per-cell copy of the column name).
    keys = pl.DataFrame(
        {
            "key": range(len(metric_cols)),
            "section": [None] * len(metric_cols),
            "name": metric_cols,
            "item": [None] * len(metric_cols),
            "unit": [unit_of[c] for c in metric_cols],
        },
        schema={
            "key": pl.UInt32,
            "section": pl.String,
            "name": pl.String,
            "item": pl.String,
            "unit": pl.String,
        },
    )
    n = data.height
    rows = pl.DataFrame(
        {
            "launch_id": pl.concat([data["launch_id"]] * len(metric_cols)) if metric_cols else [],
            "key": pl.select(
                pl.int_range(len(metric_cols), dtype=pl.UInt32).repeat_by(n).explode()
            ).to_series()
            if metric_cols
            else [],
            "text": pl.concat([data[c] for c in metric_cols], rechunk=True) if metric_cols else [],
        },
        schema={"launch_id": pl.Int64, "key": pl.UInt32, "text": pl.String},
    )
    rows = rows.filter(pl.col("text").is_not_null() & (pl.col("text") != "")).with_columns(
        pl.lit(None, dtype=pl.String).alias("stat")
    )
    launches, metrics, stalls = assemble.assemble(rows, keys, _launches(data, fmt), key_once_per_launch=True)
    wide = data.select("launch_id", *other_cols)
    units = pl.DataFrame(
        {"name": other_cols, "unit": [unit_of[c] for c in other_cols]},
        schema={"name": pl.String, "unit": pl.String},
    )
    return PageResult(
        launches,
        metrics,
        stalls,
        schema.empty("findings"),
        rows_in,
        rejected,
        raw_metrics=wide,
        raw_units=units,
    )


def _launches(data: pl.DataFrame, fmt: str) -> pl.DataFrame:
    launches = launch_columns(data, fmt=fmt)
    # the raw page states the dimensions as metrics too; they win over the tuple columns
    dims = [
        pl.col(m).str.replace_all(",", "").cast(pl.Int64, strict=False).alias(dst)
        for m, dst in DIM_METRICS.items()
        if m in data.columns
    ]
    if "device__attribute_display_name" in data.columns:
        dims.append(pl.col("device__attribute_display_name").alias("device_name"))
    return launches.with_columns(data.select(dims)) if dims else launches
