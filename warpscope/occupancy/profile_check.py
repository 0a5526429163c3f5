"""Occupancy for imported launches: filled in where a file lacks it, checked where it has it.

A launch whose file gives the compute capability, block size, registers and shared memory
gets the calculator's theoretical occupancy, active warps and block limits as derived
metrics when the file does not state them (nvprof traces, emulator runs, exports without
the Occupancy section). Where the file does state them, the two are compared and every
disagreement becomes a note of the import summary (``sources.notes``).

Numbers as Nsight Compute states them: it caps the shared-memory and barrier limits at the
SM's block limit, and divides the SM's shared memory as configured for the launch
(``launch__shared_mem_config_size``; versions before 2020 used the SM's largest size), so
both readings are accepted.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import polars as pl

from warpscope.model import schema
from warpscope.occupancy.arch import Arch, UnknownArch, get_arch
from warpscope.occupancy.calculator import Occupancy, OccupancyError, evaluate

_LAUNCH_COLS = (
    "compute_capability",
    "block_x",
    "block_y",
    "block_z",
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
)
_REQUIRED = ("compute_capability", "registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes")
_FROM_METRICS = ("shared_mem_config_bytes", "barriers_per_block", "block_size")
_SIZES = ("static_shared_bytes", "dynamic_shared_bytes", "shared_mem_config_bytes")
_COMPARED = (
    "theoretical_occupancy_pct",
    "theoretical_active_warps",
    "block_limit_warps",
    "block_limit_registers",
    "block_limit_shared_mem",
    "block_limit_blocks",
    "block_limit_barriers",
)
_NOTES_SHOWN = 5
FORMULA = "occupancy calculator (CUDA's rules, warpscope.occupancy)"


def stated_values(occ: Occupancy, barriers_known: bool) -> dict[str, float]:
    """The calculator's result in the canonical metrics, as Nsight Compute would state it."""
    cap = occ.block_limit_blocks
    values: dict[str, float] = {
        "theoretical_occupancy_pct": occ.occupancy_pct,
        "theoretical_active_warps": float(occ.active_warps_per_sm),
    }
    if occ.block_limit_warps is not None:
        values["block_limit_warps"] = float(occ.block_limit_warps)
    values["block_limit_blocks"] = float(cap)
    values["block_limit_shared_mem"] = float(min(cap, occ.block_limit_shared_mem or cap))
    if occ.block_limit_registers is not None:
        values["block_limit_registers"] = float(occ.block_limit_registers)
    if barriers_known and occ.arch.barrier_limited:
        values["block_limit_barriers"] = float(min(cap, occ.block_limit_barriers or cap))
    return values


def check(launches: pl.DataFrame, metrics: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """(derived metric rows for what the file lacks, notes on where it disagrees)."""
    inputs = _inputs(launches, metrics)
    notes: list[str] = []
    unknown = sorted(cc for cc in inputs["compute_capability"].unique().to_list() if cc and not _known(cc))
    if unknown:
        notes.append(
            f"occupancy: not calculated for compute capability {', '.join(unknown)}: "
            "the calculator covers sm_50 to sm_121"
        )
    # one calculation per configuration (the calculator's inputs: what the file states varies
    # from launch to launch in a real profile), then every launch's stated values compared with
    # its configuration's readings at once
    config = [c for c in inputs.columns if c not in ("launch_id", "kernel_short", *_COMPARED)]
    keyed = inputs.with_row_index("_pos").with_columns(pl.col("_pos").min().over(config).alias("_config"))
    expected: list[tuple[int, int, str, float, float, float]] = []
    first: dict[int, Occupancy] = {}
    for row in keyed.unique("_config", keep="first", maintain_order=True).iter_rows(named=True):
        variants = _calculate(row)
        if not variants:
            continue
        first[row["_config"]] = variants[0]
        barriers_known = row["barriers_per_block"] is not None
        readings = [stated_values(occ, barriers_known) for occ in variants]
        for order, (metric, value) in enumerate(readings[0].items()):
            candidates = [r[metric] for r in readings if metric in r]
            expected.append((row["_config"], order, metric, value, min(candidates), max(candidates)))
    if not expected:
        return _derived_frame(pl.DataFrame()), notes
    readings_frame = pl.DataFrame(
        expected,
        schema={
            "_config": keyed.schema["_config"],
            "_order": pl.Int64,
            "metric": pl.String,
            "value": pl.Float64,
            "_lo": pl.Float64,
            "_hi": pl.Float64,
        },
        orient="row",
    )
    stated = keyed.select("_pos", "_config", "launch_id", "kernel_short", *_COMPARED).unpivot(
        index=["_pos", "_config", "launch_id", "kernel_short"], variable_name="metric", value_name="stated"
    )
    compared = stated.join(readings_frame, on=["_config", "metric"]).sort("_pos", "_order")
    derived = compared.filter(pl.col("stated").is_null()).select("launch_id", "metric", "value")
    tolerance = pl.when(pl.col("metric") == "theoretical_occupancy_pct").then(0.01).otherwise(1e-9)
    within = (
        pl.col("stated").is_not_nan()
        & (pl.col("_lo") - tolerance <= pl.col("stated"))
        & (pl.col("stated") <= pl.col("_hi") + tolerance)
    )
    disagreements = compared.filter(pl.col("stated").is_not_null() & ~within)
    total = len(notes) + disagreements.height
    notes += [
        _note(
            {"launch_id": d["launch_id"], "kernel_short": d["kernel_short"]},
            first[d["_config"]],
            d["metric"],
            d["stated"],
            d["value"],
        )
        for d in disagreements.head(_NOTES_SHOWN).iter_rows(named=True)
    ]
    if total > _NOTES_SHOWN:
        notes = notes[:_NOTES_SHOWN] + [f"occupancy: {total - _NOTES_SHOWN} more disagreements"]
    return _derived_frame(derived), notes


def launch_occupancies(launches: pl.DataFrame, metrics: pl.DataFrame) -> dict[int, Occupancy]:
    """Each launch's occupancy as calculated from its configuration, where the file gives it."""
    out: dict[int, Occupancy] = {}
    # grouped by the calculator's inputs only: what the file states (noisy on every launch of a
    # real profile) is compared by ``check``, never read here
    for row in _configurations(_inputs(launches, metrics, compared=False)):
        variants = _calculate(row)
        if variants:
            out.update(dict.fromkeys(row["launch_id"], variants[0]))
    return out


def _configurations(inputs: pl.DataFrame) -> list[dict[str, Any]]:
    """The launches grouped by everything the calculation reads: one row per configuration,
    with its launches' ``_pos`` (row in ``inputs``), ``launch_id`` and ``kernel_short`` as lists.
    Thousands of launches of one kernel are one calculation."""
    config = [c for c in inputs.columns if c not in ("launch_id", "kernel_short")]
    return (
        inputs.with_row_index("_pos")
        .group_by(config, maintain_order=True)
        .agg("_pos", "launch_id", "kernel_short")
        .to_dicts()
    )


def _inputs(launches: pl.DataFrame, metrics: pl.DataFrame, compared: bool = True) -> pl.DataFrame:
    """One row per launch: the calculator's inputs, what the file states (without it where not
    ``compared``), and how precisely it states the byte sizes (``<metric>_half``: half the last
    printed digit, in bytes)."""
    checked = _COMPARED if compared else ()
    wanted = (*_FROM_METRICS, *checked, *_SIZES)
    text = pl.col("text")
    printed = text.str.strip_chars().cast(pl.Float64, strict=False)
    decimals = text.str.extract(r"\.(\d+)\s*$").str.len_chars().fill_null(0).cast(pl.Float64)
    half = (0.5 * pl.col("value") / printed * 10.0 ** (-decimals)).fill_nan(0.0).fill_null(0.0)
    # one long table of every stated value and every size's precision, pivoted once
    stated = (
        metrics.lazy()
        .select("launch_id", "metric", "stat", "value", "text")
        .filter(pl.col("metric").is_in(wanted) & schema.single_value())
        .select("launch_id", pl.col("metric").cast(pl.String), "value", "text")
    )
    long = pl.concat(
        [
            stated.filter(pl.col("metric").is_in((*_FROM_METRICS, *checked))).select(
                "launch_id", "metric", "value"
            ),
            stated.filter(pl.col("metric").is_in(_SIZES)).select(
                "launch_id", pl.col("metric") + "_half", half.alias("value")
            ),
        ]
    ).collect()
    frame = launches.select("launch_id", "kernel_short", *_LAUNCH_COLS)
    if not long.is_empty():
        frame = frame.join(
            long.pivot(on="metric", index="launch_id", values="value", aggregate_function="first"),
            on="launch_id",
            how="left",
        )
    return frame.with_columns(
        pl.lit(None, pl.Float64).alias(c)
        for c in (*_FROM_METRICS, *checked, *(f"{m}_half" for m in _SIZES))
        if c not in frame.columns
    )


def _calculate(row: dict[str, Any]) -> list[Occupancy]:
    """The launch as stated, then the readings a rounded or older export may have meant:
    the byte sizes at both ends of their printed precision, and the SM's full shared memory."""
    block = _block_size(row)
    if block is None or any(row[c] is None for c in _REQUIRED):
        return []
    try:
        arch = get_arch(row["compute_capability"])
    except UnknownArch:
        return []
    numbers = [
        row[c] for c in ("barriers_per_block", "shared_mem_config_bytes", *(f"{m}_half" for m in _SIZES))
    ]
    if any(v is not None and not (math.isfinite(v) and 0 <= v < 2**31) for v in numbers):
        return []  # a damaged value: no calculation rather than a wrong one
    barriers = int(row["barriers_per_block"]) if row["barriers_per_block"] is not None else 1
    static, dynamic = row["static_shared_bytes"], row["dynamic_shared_bytes"]
    config = row["shared_mem_config_bytes"]
    half = {m: row[f"{m}_half"] or 0.0 for m in _SIZES}

    def occ(static: float, dynamic: float, config: float | None) -> Occupancy:
        return _evaluate(
            arch,
            block,
            row["registers_per_thread"],
            max(0, round(static)),
            max(0, round(dynamic)),
            barriers,
            round(config) if config else None,
        )

    try:
        variants = [
            occ(static, dynamic, config),
            occ(
                static - half["static_shared_bytes"],
                dynamic - half["dynamic_shared_bytes"],
                config + half["shared_mem_config_bytes"] if config else None,
            ),
            occ(
                static + half["static_shared_bytes"],
                dynamic + half["dynamic_shared_bytes"],
                config - half["shared_mem_config_bytes"] if config else None,
            ),
            occ(static, dynamic, None),
        ]
    except OccupancyError:
        return []
    return [] if variants[0].error else [v for v in variants if not v.error]


@lru_cache(maxsize=4096)
def _evaluate(
    arch: Arch, block: int, registers: int, static: int, dynamic: int, barriers: int, config: int | None
) -> Occupancy:
    """Launches of one kernel share their configuration: calculate it once per import."""
    return evaluate(arch, block, registers, static, dynamic, barriers=barriers, shared_mem_config=config)


def _known(cc: str) -> bool:
    try:
        get_arch(cc)
    except UnknownArch:
        return False
    return True


def _block_size(row: dict[str, Any]) -> int | None:
    dims = (row["block_x"], row["block_y"], row["block_z"])
    if None not in dims:
        return int(dims[0] * dims[1] * dims[2])
    return None if row["block_size"] is None else round(row["block_size"])


def _within(metric: str, stated: float, candidates: list[float]) -> bool:
    tolerance = 0.01 if metric == "theoretical_occupancy_pct" else 1e-9
    return min(candidates) - tolerance <= stated <= max(candidates) + tolerance


def _note(row: dict[str, Any], occ: Occupancy, metric: str, stated: float, value: float) -> str:
    return (
        f"occupancy: launch {row['launch_id']} ({row['kernel_short']}): the file says "
        f"{metric} {stated:g}, the calculator {value:g} ({occ.arch.name}, {occ.block_size} "
        f"threads, {occ.registers_per_thread} registers, "
        f"{occ.static_smem}+{occ.dynamic_smem} B shared)"
    )


def _derived_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """The calculator's values (``launch_id``, ``metric``, ``value``) as ``metrics`` rows."""
    if frame.is_empty():
        return schema.empty("metrics")
    from warpscope.model.catalog import BY_ID

    return schema.conform(
        "metrics",
        frame.with_columns(
            pl.lit(FORMULA).alias("name"),
            pl.lit("derived").alias("section"),
            pl.col("metric").replace_strict({m: BY_ID[m].unit for m in _COMPARED}).alias("unit"),
            pl.col("metric").replace_strict({m: BY_ID[m].unit for m in _COMPARED}).alias("base_unit"),
            pl.format("{}", pl.col("value")).alias("text"),
        ),
    )
