"""From metric cells to a Profile's tables: canonical ids, base units, derived metrics,
stall reasons and the launch columns. Shared by every ncu page.

Pages hand over their cells as ``rows`` (launch_id, key, text, stat) plus ``keys``
(key -> section, name, item, unit): everything that depends only on what a metric is
called (canonical id, unit scale, stall reason) is worked out once per key and
gathered onto the rows, so a raw page with thousands of columns and tens of millions
of cells stays a few vectorised passes.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from warpscope.importers.ncu import mapping
from warpscope.importers.ncu.values import parse_numbers
from warpscope.model import schema
from warpscope.model.tensor_paths import TENSOR_PATHS
from warpscope.model.units import to_base

SUBPARTITIONS_PER_SM = 4  # every architecture since Volta (sm_70), hence every ncu profile
KEY_COLUMNS = ["section", "name", "item", "unit"]


def keyed(cells: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split long cells (launch_id, section, name, item, unit, text, [number,] stat) into rows
    and keys.

    Key columns read as Categorical are matched by their codes (one code per text), packed
    into one integer where they fit: a million rows match in a third of the time four
    columns take."""
    codes = cells.select(
        pl.col(c).to_physical() if cells.schema[c] == pl.Categorical else pl.col(c).cast(pl.String)
        for c in KEY_COLUMNS
    )
    packed = _packed(codes)
    if packed is None:
        firsts = codes.with_row_index("_first").unique(subset=KEY_COLUMNS, keep="first", maintain_order=True)
        key = codes.join(
            firsts.drop("_first").with_row_index("key"),
            on=KEY_COLUMNS,
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )["key"]
    else:
        firsts = (
            packed.to_frame().with_row_index("_first").unique("packed", keep="first", maintain_order=True)
        )
        key = packed.replace_strict(
            firsts["packed"], pl.int_range(firsts.height, dtype=pl.UInt32, eager=True)
        )
    keys = (
        cells.select(KEY_COLUMNS)[firsts["_first"]]
        .select(pl.col(c).cast(pl.String) for c in KEY_COLUMNS)
        .with_row_index("key")
    )
    kept = [c for c in ("launch_id", "text", "number", "stat") if c in cells.columns]
    return cells.select(kept).insert_column(1, key.alias("key")), keys


def _packed(codes: pl.DataFrame) -> pl.Series | None:
    """The key columns as one UInt64 (each code + 1, null 0), or None when a column is text
    with values or the codes need more than 64 bits."""
    shift, terms = 0, []
    for c in KEY_COLUMNS:
        column = codes[c]
        if column.dtype == pl.String:
            if column.null_count() < column.len():
                return None
            continue  # all null: the same in every row
        widest = int(column.max() or 0) + 1  # type: ignore[arg-type]
        terms.append((pl.col(c).cast(pl.UInt64) + 1).fill_null(0) * (1 << shift))
        shift += widest.bit_length()
    if shift > 64:
        return None
    packed = pl.sum_horizontal(terms) if terms else pl.repeat(0, codes.height, dtype=pl.UInt64)
    return codes.select(packed.alias("packed"))["packed"]


def describe_keys(keys: pl.DataFrame) -> pl.DataFrame:
    """Per key: canonical metric, scale to canonical units, base unit, priority, stall reason."""
    out = []
    by_label, by_name = mapping.by_label(), mapping.by_name()
    for k in keys.iter_rows(named=True):
        factor, base = to_base(k["unit"] or "")
        metric, alias_factor, prio = (
            by_label.get((k["section"], k["name"])) or by_name.get(k["name"]) or (None, 1.0, None)
        )
        reason = None
        if m := mapping.STALL_RAW.match(k["name"] or ""):
            reason = m.group(1)
        elif k["section"] == mapping.STALL_SECTION and k["item"] == mapping.STALL_TABLE:
            reason = mapping.stall_reason_from_label(k["name"])
        out.append(
            {
                "key": k["key"],
                "metric": metric,
                "scale": factor * alias_factor,
                "base_unit": base if base else (k["unit"] or ""),
                "prio": prio,
                "stall": reason,
            }
        )
    return pl.DataFrame(
        out,
        schema={
            "key": pl.UInt32,
            "metric": pl.String,
            "scale": pl.Float64,
            "base_unit": pl.String,
            "prio": pl.Int64,
            "stall": pl.String,
        },
    )


def assemble(
    rows: pl.DataFrame,
    keys: pl.DataFrame,
    launches: pl.DataFrame | Callable[[], pl.DataFrame],
    *,
    key_once_per_launch: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """launches (the columns the file gives only as metrics filled in), metrics and stalls
    tables from keyed rows. ``key_once_per_launch``: no key has two rows in one launch.
    ``launches`` may be a function, called once the metrics are assembled (a details page's
    launch identity is read on a worker thread meanwhile)."""
    desc = describe_keys(keys).sort("key")
    keys = keys.sort("key")
    key = rows["key"].cast(pl.UInt32)
    # what a row's key tells, gathered in one go (Polars gathers the columns in parallel)
    per_key = pl.DataFrame(
        {
            "metric": desc["metric"].cast(pl.Categorical),
            "name": keys["name"].cast(pl.Categorical),
            "section": keys["section"].cast(pl.Categorical),
            "item": keys["item"].cast(pl.Categorical),
            "unit": keys["unit"].fill_null("").cast(pl.Categorical),
            "base_unit": desc["base_unit"].cast(pl.Categorical),
            "scale": desc["scale"],
            "stall": desc["stall"],
        }
    )[key]
    parsed = parse_numbers(rows["text"], rows["number"] if "number" in rows.columns else None)
    metrics = per_key.select(
        rows["launch_id"],
        _dedupe(rows["launch_id"], per_key["metric"], desc, key, rows["stat"], key_once_per_launch),
        rows["stat"].cast(pl.Categorical),
        (parsed * pl.col("scale")).alias("value"),
        "name",
        "section",
        "item",
        "unit",
        "base_unit",
        rows["text"],
    )
    metrics = schema.conform("metrics", metrics)
    wide = _canonical(metrics)
    metrics = pl.concat([metrics, _derived(wide)], how="vertical")
    single = rows.select(schema.single_value()).to_series()
    stalls = pl.DataFrame(
        {
            "launch_id": rows["launch_id"],
            "reason": per_key["stall"],
            "cycles_per_issue": parsed,
            "_single": single,
        }
    ).filter(pl.col("reason").is_not_null() & pl.col("_single"))
    stalls = stalls.unique(["launch_id", "reason"], keep="first", maintain_order=True).with_columns(
        (pl.col("cycles_per_issue") / pl.col("cycles_per_issue").sum().over("launch_id") * 100).alias(
            "share_pct"
        )
    )
    if callable(launches):
        launches = launches()
    return _enrich_launches(launches, wide), metrics, schema.conform("stalls", stalls)


def _dedupe(
    launch_id: pl.Series,
    metric: pl.Series,
    desc: pl.DataFrame,
    key: pl.Series,
    stat: pl.Series,
    key_once_per_launch: bool,
) -> pl.Series:
    """Keep one canonical row per (launch, metric, stat): the first alias in catalog order.

    ``key_once_per_launch`` (the raw page: one column per key): only metrics that two keys
    map to can repeat, so only their rows are looked at."""
    if not key_once_per_launch:  # it is, unless a row repeats (damage, body tables)
        key_once_per_launch = _distinct_cells(launch_id, key, stat)
    if key_once_per_launch:
        aliased = desc.filter(pl.col("metric").is_not_null() & (pl.len().over("metric") > 1))
        idx = key.is_in(aliased["key"].implode()).arg_true()
    else:
        idx = metric.is_not_null().arg_true()
    if idx.is_empty():
        return metric
    mapped = pl.DataFrame(
        {
            "i": idx,
            "launch_id": launch_id.gather(idx),
            "metric": metric.gather(idx),
            "stat": stat.gather(idx),
            "prio": desc["prio"].gather(key.gather(idx)),
        }
    )
    losers = mapped.sort(["prio", "i"]).filter(~pl.struct("launch_id", "metric", "stat").is_first_distinct())[
        "i"
    ]
    if losers.is_empty():
        return metric
    return metric.scatter(losers, None)


def _distinct_cells(launch_id: pl.Series, key: pl.Series, stat: pl.Series) -> bool:
    """No two rows share launch, key and stat (packed into one integer: a cheap count)."""
    if launch_id.is_empty():
        return True
    if launch_id.min() < 0 or launch_id.max() >= 1 << 29 or key.max() >= 1 << 32:  # type: ignore[operator]
        return not pl.DataFrame({"l": launch_id, "k": key, "s": stat}).is_duplicated().any()
    packed = launch_id.cast(pl.UInt64) * (1 << 34) + key.cast(pl.UInt64) * 4
    if stat.null_count() < stat.len():  # min/max/avg rows of a summary page
        packed += stat.replace_strict(
            {"min": 1, "max": 2, "avg": 3}, default=0, return_dtype=pl.UInt64
        ).fill_null(0)
    return packed.n_unique() == packed.len()


def _canonical(metrics: pl.DataFrame) -> pl.DataFrame:
    """Wide frame: one row per launch, one column per canonical metric that deriving and
    the launch columns read (the single value)."""
    # the columns first: a filter copies every column it is given
    single = metrics.select("launch_id", "metric", "stat", "value").filter(
        pl.col("metric").is_in(_READ_WIDE) & schema.single_value()
    )
    if single.is_empty():
        return pl.DataFrame(schema={"launch_id": pl.Int64})
    return single.select("launch_id", pl.col("metric").cast(pl.String), "value").pivot(
        on="metric", index="launch_id", values="value", aggregate_function="first"
    )


def _derived(wide: pl.DataFrame) -> pl.DataFrame:
    """Canonical metrics the file does not state but states the parts of (``wide``: one row
    per launch, one column per stated canonical metric).

    Never an invented value: a ratio whose denominator is 0 or missing stays absent.
    """
    if wide.is_empty():
        return schema.empty("metrics")
    have = set(wide.columns)
    derived: list[pl.DataFrame] = []

    def add(metric: str, expr: pl.Expr, formula: str, unit: str) -> None:
        frame = wide.select("launch_id", expr.alias("value")).filter(pl.col("value").is_not_null())
        if frame.is_empty():
            return
        derived.append(
            frame.with_columns(
                pl.lit(metric).alias("metric"),
                pl.lit(formula).alias("name"),
                pl.lit("derived").alias("section"),
                pl.lit(unit).alias("unit"),
                pl.lit(unit).alias("base_unit"),
                pl.format("{}", pl.col("value")).alias("text"),
            )
        )

    for kind in ("load", "store"):
        ratio = f"global_{kind}_sectors_per_request"
        sectors, requests = f"global_{kind}_sectors", f"global_{kind}_requests"
        if ratio not in have and {sectors, requests} <= have:
            add(
                ratio,
                pl.when(pl.col(requests) > 0).then(pl.col(sectors) / pl.col(requests)),
                f"{sectors} / {requests}",
                "sector/request",
            )
        shared = f"shared_{kind}_transactions_per_request"
        wavefronts, instructions = f"shared_{kind}_wavefronts", f"shared_{kind}_requests"
        if shared not in have and {wavefronts, instructions} <= have:
            add(
                shared,
                pl.when(pl.col(instructions) > 0).then(pl.col(wavefronts) / pl.col(instructions)),
                f"{wavefronts} / {instructions}",
                "wavefront/request",
            )
    if "divergent_branches" not in have and {"divergent_branches_per_smsp", "sm_count"} <= have:
        add(
            "divergent_branches",
            (pl.col("divergent_branches_per_smsp") * pl.col("sm_count") * SUBPARTITIONS_PER_SM).round(0),
            "divergent_branches_per_smsp x sm_count x 4",
            "branches",
        )
    for metric, expr, formula, unit in roofline_terms(wide):
        add(metric, expr, formula, unit)
    if not derived:
        return schema.empty("metrics")
    return schema.conform("metrics", pl.concat(derived, how="diagonal_relaxed"))


#: per precision: (instruction kinds and the flop each counts for)
_FLOP_WEIGHTS = {
    "fp32": (("add", 1), ("mul", 1), ("fma", 2)),
    "fp64": (("add", 1), ("mul", 1), ("fma", 2)),
    "fp16": (("add", 2), ("mul", 2), ("fma", 4)),  # HADD2/HMUL2/HFMA2: two halves each
}
#: peak FMA thread instructions per cycle -> flop per cycle
_PEAK_WEIGHT = {"fp32": 2, "fp64": 2, "fp16": 4}


def roofline_terms(wide: pl.DataFrame) -> list[tuple[str, pl.Expr, str, str]]:
    """(metric, expression over ``wide``, formula, unit) for the roofline metrics the file does
    not state but states the parts of, as Nsight Compute's roofline computes them: flop from the
    fadd/fmul/ffma thread-instruction counts (or their per-cycle rates × smsp__cycles_elapsed.avg),
    the roofs from the peak_sustained rates × the clocks. Each term may read the ones before it."""
    have = set(wide.columns)
    col = {c: pl.col(c) for c in have}
    terms: list[tuple[str, pl.Expr, str, str]] = []

    def term(metric: str, expr: pl.Expr, formula: str, unit: str) -> None:
        col[metric] = expr
        if metric not in have:
            terms.append((metric, expr, formula, unit))

    for prec, ops in _FLOP_WEIGHTS.items():
        if f"{prec}_flop" in have:
            continue
        parts = []
        for op, weight in ops:
            count = col.get(f"{prec}_{op}_inst")
            rate = col.get(f"{prec}_{op}_inst_per_cycle")
            if rate is not None and "smsp_elapsed_cycles" in col:
                rate = rate * col["smsp_elapsed_cycles"]
            else:
                rate = None
            exprs = [e for e in (count, rate) if e is not None]
            if not exprs:
                break
            parts.append(weight * pl.coalesce(exprs))
        else:
            w = dict(ops)
            term(
                f"{prec}_flop",
                pl.sum_horizontal(parts).round(0),
                f"{w['add']}×add + {w['mul']}×mul + {w['fma']}×fma thread instructions ({prec})",
                "flop",
            )
    flops = [col[f"{p}_flop"] for p in _FLOP_WEIGHTS if f"{p}_flop" in col]
    if flops and "flop" not in have:
        term("flop", pl.sum_horizontal(flops), "fp16_flop + fp32_flop + fp64_flop", "flop")
    if {"dram_read_bytes", "dram_write_bytes"} <= col.keys():
        term(
            "dram_bytes",
            col["dram_read_bytes"] + col["dram_write_bytes"],
            "dram_read_bytes + dram_write_bytes",
            "byte",
        )
    if {"flop", "dram_bytes"} <= col.keys():
        term(
            "arithmetic_intensity_dram",
            pl.when(col["dram_bytes"] > 0).then(col["flop"] / col["dram_bytes"]),
            "flop / dram_bytes",
            "flop/byte",
        )
    if {"flop", "duration_ns"} <= col.keys():
        term(
            "achieved_flop_per_s",
            pl.when(col["duration_ns"] > 0).then(col["flop"] / (col["duration_ns"] * 1e-9)),
            "flop / duration",
            "flop/s",
        )
    for prec, weight in _PEAK_WEIGHT.items():
        if {f"peak_{prec}_fma_per_cycle", "sm_clock_hz"} <= col.keys():
            term(
                f"peak_{prec}_flop_per_s",
                weight * col[f"peak_{prec}_fma_per_cycle"] * col["sm_clock_hz"],
                f"{weight} × peak_{prec}_fma_per_cycle × sm_clock_hz",
                "flop/s",
            )
    if {"peak_dram_bytes_per_cycle", "dram_frequency_hz"} <= col.keys():
        term(
            "peak_dram_bytes_per_s",
            col["peak_dram_bytes_per_cycle"] * col["dram_frequency_hz"],
            "peak_dram_bytes_per_cycle × dram_frequency_hz",
            "byte/s",
        )
    for bytes_id, rate_id, peak_id, clock_id, roof_id in _CACHE_LEVELS:
        if {rate_id, "duration_ns"} <= col.keys():
            term(
                bytes_id, (col[rate_id] * col["duration_ns"] * 1e-9).round(0), f"{rate_id} × duration", "byte"
            )
        if {peak_id, clock_id} <= col.keys():
            term(roof_id, col[peak_id] * col[clock_id], f"{peak_id} × {clock_id}", "byte/s")
    for path in TENSOR_PATHS:
        if {path.peak_per_cycle_id, "sm_clock_hz"} <= col.keys():
            term(
                path.peak_id,
                col[path.peak_per_cycle_id] * col["sm_clock_hz"],
                f"{path.peak_per_cycle_id} × sm_clock_hz",
                "op/s",
            )
    return terms


#: the caches of the hierarchical roofline: (bytes, their rate, peak bytes per cycle, clock, roof);
#: the file states rates (per second of the launch's duration) and the per-cycle peaks
_CACHE_LEVELS = (
    (
        "l1_writeback_bytes",
        "l1_writeback_bytes_per_s",
        "peak_l1_writeback_bytes_per_cycle",
        "l1_clock_hz",
        "peak_l1_bytes_per_s",
    ),
    (
        "l2_xbar_bytes",
        "l2_xbar_bytes_per_s",
        "peak_l2_xbar_bytes_per_cycle",
        "l2_clock_hz",
        "peak_l2_bytes_per_s",
    ),
)


LAUNCH_FROM_METRICS = {
    "registers_per_thread": pl.Int64,
    "static_shared_bytes": pl.Int64,
    "dynamic_shared_bytes": pl.Int64,
    "sm_count": pl.Int64,
    "duration_ns": pl.Float64,
}
#: what the roofline terms read (and may find stated)
ROOFLINE_INPUTS = (
    "smsp_elapsed_cycles",
    *(f"{p}_{op}_inst{r}" for p in _FLOP_WEIGHTS for op in ("add", "mul", "fma") for r in ("", "_per_cycle")),
    *(f"{p}_flop" for p in _FLOP_WEIGHTS),
    "flop",
    "dram_read_bytes",
    "dram_write_bytes",
    "dram_bytes",
    *(f"peak_{p}_fma_per_cycle" for p in _PEAK_WEIGHT),
    "peak_dram_bytes_per_cycle",
    "sm_clock_hz",
    "dram_frequency_hz",
    "duration_ns",
    *(name for level in _CACHE_LEVELS for name in level[1:4]),
    *(path.peak_per_cycle_id for path in TENSOR_PATHS),
)
# what _derived and _enrich_launches read: the pivot is over these only
_READ_WIDE = sorted(
    {
        *LAUNCH_FROM_METRICS,
        "divergent_branches",
        "divergent_branches_per_smsp",
        *ROOFLINE_INPUTS,
        *(
            f"global_{k}_{m}"
            for k in ("load", "store")
            for m in ("sectors", "requests", "sectors_per_request")
        ),
        *(
            f"shared_{k}_{m}"
            for k in ("load", "store")
            for m in ("wavefronts", "requests", "transactions_per_request")
        ),
    }
)


def _enrich_launches(launches: pl.DataFrame, wide: pl.DataFrame) -> pl.DataFrame:
    """Fill the launch columns that the file gives only as metrics."""
    cols = [c for c in LAUNCH_FROM_METRICS if c in wide.columns]
    if cols:
        # a count out of any real range (a damaged cell) is absent, never wrapped or clipped
        fill = wide.select(
            "launch_id",
            *[
                pl.when(pl.col(c).is_between(0, 2**53)).then(pl.col(c).round(0)).cast(pl.Int64).alias(c)
                if LAUNCH_FROM_METRICS[c] == pl.Int64
                else pl.col(c)
                for c in cols
            ],
        )
        fill = fill.rename({c: f"_{c}" for c in cols})
        launches = (
            launches.join(fill, on="launch_id", how="left")
            .with_columns(
                [
                    pl.coalesce(c, f"_{c}").alias(c) if c in launches.columns else pl.col(f"_{c}").alias(c)
                    for c in cols
                ]
            )
            .drop([f"_{c}" for c in cols])
        )
    return schema.conform("launches", launches)
