"""From long metric rows to a Profile's tables: canonical ids, base units, derived
metrics, stall reasons and the launch columns. Shared by every ncu page."""

from __future__ import annotations

import polars as pl

from importers.ncu import mapping
from importers.ncu.values import parse_number, unit_table
from warpscope.model import schema

SUBPARTITIONS_PER_SM = 4  # every architecture since Volta (sm_70), hence every ncu profile


def metrics_table(rows: pl.DataFrame) -> pl.DataFrame:
    """Canonical metrics from long rows with launch_id, name, section, item, unit, text, stat."""
    rows = rows.with_columns(
        pl.col("unit").fill_null(""),
        pl.col("section").cast(pl.String), pl.col("name").cast(pl.String),
    )
    units = unit_table(rows["unit"])
    labelled = mapping.by_label()
    named = mapping.by_name()
    out = (
        rows.lazy()
        .with_row_index("_order")
        .join(units.lazy(), on="unit", how="left")
        .join(labelled.lazy(), on=["section", "name"], how="left")
        .join(named.lazy().rename({"metric": "metric_n", "factor": "factor_n", "prio": "prio_n"}),
              on="name", how="left")
        .with_columns(
            pl.coalesce("metric", "metric_n").alias("metric"),
            pl.coalesce("factor", "factor_n", pl.lit(1.0)).alias("factor"),
            pl.coalesce("prio", "prio_n").alias("prio"),
        )
        .with_columns(
            (parse_number(pl.col("text")) * pl.col("unit_factor") * pl.col("factor")).alias("value"),
        )
        # one canonical row per (launch, metric, stat): the first alias in catalog order
        .with_columns(
            pl.when(pl.col("metric").is_not_null()
                    & (pl.struct("prio", "_order").rank("ordinal")
                       .over("launch_id", "metric", "stat") > 1))
            .then(None).otherwise(pl.col("metric")).alias("metric")
        )
        .sort("_order")
        .collect()
    )
    out = out.with_columns(
        pl.when(pl.col("base_unit").is_null()).then(pl.col("unit")).otherwise(pl.col("base_unit"))
        .alias("base_unit"))
    out = schema.conform("metrics", out)
    return pl.concat([out, _derived(out)], how="vertical")


def _canonical(metrics: pl.DataFrame) -> pl.DataFrame:
    """Wide frame: one row per launch, one column per canonical metric (the single value)."""
    single = metrics.filter(pl.col("metric").is_not_null()
                            & (pl.col("stat").is_null() | (pl.col("stat") == "avg")))
    if single.is_empty():
        return pl.DataFrame(schema={"launch_id": pl.Int64})
    return single.select("launch_id", pl.col("metric").cast(pl.String), "value").pivot(
        on="metric", index="launch_id", values="value", aggregate_function="first")


def _derived(metrics: pl.DataFrame) -> pl.DataFrame:
    """Canonical metrics the file does not state but states the parts of.

    Never an invented value: a ratio whose denominator is 0 or missing stays absent.
    """
    wide = _canonical(metrics)
    if wide.is_empty():
        return schema.empty("metrics")
    have = set(wide.columns)
    derived: list[pl.DataFrame] = []

    def add(metric: str, expr: pl.Expr, formula: str, unit: str) -> None:
        frame = wide.select("launch_id", expr.alias("value")).filter(pl.col("value").is_not_null())
        if frame.is_empty():
            return
        derived.append(frame.with_columns(
            pl.lit(metric).alias("metric"), pl.lit(formula).alias("name"),
            pl.lit("derived").alias("section"), pl.lit(unit).alias("unit"),
            pl.lit(unit).alias("base_unit"),
            pl.format("{}", pl.col("value")).alias("text")))

    for kind in ("load", "store"):
        ratio = f"global_{kind}_sectors_per_request"
        sectors, requests = f"global_{kind}_sectors", f"global_{kind}_requests"
        if ratio not in have and {sectors, requests} <= have:
            add(ratio, pl.when(pl.col(requests) > 0).then(pl.col(sectors) / pl.col(requests)),
                f"{sectors} / {requests}", "sector/request")
    if "divergent_branches" not in have and {"divergent_branches_per_smsp", "sm_count"} <= have:
        add("divergent_branches",
            (pl.col("divergent_branches_per_smsp") * pl.col("sm_count") * SUBPARTITIONS_PER_SM).round(0),
            "divergent_branches_per_smsp x sm_count x 4", "branches")
    if not derived:
        return schema.empty("metrics")
    return schema.conform("metrics", pl.concat(derived, how="diagonal_relaxed"))


def stalls_table(rows: pl.DataFrame) -> pl.DataFrame:
    """Stall reasons (cycles per issued instruction) from raw names or details labels."""
    raw = rows.filter(pl.col("name").str.starts_with("smsp__average_warps_issue_stalled_")).select(
        "launch_id",
        pl.col("name").str.extract(mapping.STALL_RAW.pattern, 1).alias("reason"),
        parse_number(pl.col("text")).alias("cycles_per_issue"),
    ).filter(pl.col("reason").is_not_null())
    labelled = rows.filter(
        (pl.col("section") == mapping.STALL_SECTION) & (pl.col("item") == mapping.STALL_TABLE)
    ).select(
        "launch_id",
        pl.col("name").map_elements(mapping.stall_reason_from_label, return_dtype=pl.String)
        .alias("reason"),
        parse_number(pl.col("text")).alias("cycles_per_issue"),
    )
    stalls = pl.concat([raw, labelled], how="vertical").unique(
        ["launch_id", "reason"], keep="first", maintain_order=True)
    stalls = stalls.with_columns(
        (pl.col("cycles_per_issue") / pl.col("cycles_per_issue").sum().over("launch_id") * 100)
        .alias("share_pct"))
    return schema.conform("stalls", stalls)


LAUNCH_FROM_METRICS = {
    "registers_per_thread": pl.Int64, "static_shared_bytes": pl.Int64,
    "dynamic_shared_bytes": pl.Int64, "sm_count": pl.Int64, "duration_ns": pl.Float64,
}


def enrich_launches(launches: pl.DataFrame, metrics: pl.DataFrame) -> pl.DataFrame:
    """Fill the launch columns that the file gives only as metrics."""
    wide = _canonical(metrics)
    cols = [c for c in LAUNCH_FROM_METRICS if c in wide.columns]
    if cols:
        fill = wide.select("launch_id", *[pl.col(c).round(0).cast(LAUNCH_FROM_METRICS[c])
                                          if LAUNCH_FROM_METRICS[c] == pl.Int64 else pl.col(c)
                                          for c in cols])
        fill = fill.rename({c: f"_{c}" for c in cols})
        launches = launches.join(fill, on="launch_id", how="left").with_columns(
            [pl.coalesce(c, f"_{c}").alias(c) if c in launches.columns else pl.col(f"_{c}").alias(c)
             for c in cols]).drop([f"_{c}" for c in cols])
    return schema.conform("launches", launches)
