"""Two profiles side by side, kernel by kernel: what the compare view shows.

Launches are matched as ``warpscope diff`` matches them (kernel short name and order among
its launches; a changed grid or block is a change, not a new kernel); this adds the side-by-side values of the headline
metrics and a verdict per pair, regressions first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from warpscope.model.profile import Profile
from warpscope.model.values import canonical_values
from warpscope.report.diff import NOISE_PCT, diff, within_noise
from warpscope.report.kernels import finding_key

#: (metric, label, higher is better) shown side by side
COMPARED = (
    ("duration_ns", "Time µs", False),
    ("achieved_occupancy_pct", "Occ ach%", True),
    ("warp_execution_efficiency_pct", "WarpEff%", True),
    ("global_load_sectors_per_request", "Sect/req", False),
    ("shared_load_bank_conflicts", "BankConf", False),
)


def compare(base: Profile, new: Profile) -> pl.DataFrame:
    """One row per matched launch, plus launches only one side has (with that side's values);
    regressions first. ``findings_appeared``/``findings_gone`` name the findings (rule titles).

    Both profiles must be analysed (``warpscope.analysis.analyze``) for the findings.
    """
    result = diff(base, new, [])
    bvals, nvals = canonical_values(base, ordered=False), canonical_values(new, ordered=False)
    rows = []
    for pair in result.pairs:
        b, n = bvals.get(pair.base_launch, {}), nvals.get(pair.new_launch, {})
        row = {"kernel": pair.kernel, "base_launch": pair.base_launch, "new_launch": pair.new_launch}
        for metric, _, _ in COMPARED:
            row[f"{metric}.base"], row[f"{metric}.new"] = b.get(metric), n.get(metric)
        change = _change(b.get("duration_ns"), n.get("duration_ns"))
        row["duration_change_pct"] = change
        row["findings_appeared"] = [f["title"] or f["rule"] or "" for f in pair.appeared]
        row["findings_gone"] = [f["title"] or f["rule"] or "" for f in pair.disappeared]
        row["config_changed"] = pair.config is not None
        row["verdict"] = (
            "slower"
            if change is not None and change > NOISE_PCT
            else "faster"
            if change is not None and change < -NOISE_PCT
            else "same"
        )
        rows.append(row)
    for side, items, values in (
        ("only in base", result.only_in_base, bvals),
        ("only in new", result.only_in_new, nvals),
    ):
        which = "base" if side == "only in base" else "new"
        for item in items:
            row = {"kernel": item["kernel"], "verdict": side, f"{which}_launch": item["launch"]}
            for metric, _, _ in COMPARED:
                row[f"{metric}.{which}"] = values.get(item["launch"], {}).get(metric)
            rows.append(row)
    frame = pl.DataFrame(rows, schema=SCHEMA) if rows else pl.DataFrame(schema=SCHEMA)
    return frame.sort(
        [
            pl.col("verdict").replace_strict(VERDICT_ORDER, return_dtype=pl.Int64),
            pl.col("duration_change_pct").abs(),
        ],
        descending=[False, True],
        nulls_last=True,
    )


#: regressions first, then what only one side has, then the rest
VERDICT_ORDER = {"slower": 0, "only in base": 1, "only in new": 2, "same": 3, "faster": 4}
SCHEMA: dict[str, pl.DataType] = {
    "kernel": pl.String(),
    "base_launch": pl.Int64(),
    "new_launch": pl.Int64(),
    **{f"{m}.{s}": pl.Float64() for m, _, _ in COMPARED for s in ("base", "new")},
    "duration_change_pct": pl.Float64(),
    "findings_appeared": pl.List(pl.String()),
    "findings_gone": pl.List(pl.String()),
    "config_changed": pl.Boolean(),
    "verdict": pl.String(),
}


@dataclass
class PairDetail:
    """One kernel on both sides: what the compare view opens."""

    kernel: str  # short name
    names: tuple[str | None, str | None]  # full names, base and new
    config: list[tuple[str, str | None, str | None]]  # (what, base, new)
    metrics: pl.DataFrame  # metric, base, new, change_pct, within_noise
    appeared: list[dict[str, Any]]  # findings of the new side only
    gone: list[dict[str, Any]]  # of the base side only
    kept: list[dict[str, Any]]  # on both


def pair_detail(base: Profile, new: Profile, base_launch: int | None, new_launch: int | None) -> PairDetail:
    """Both sides of one compare row (either launch may be None: a kernel one side lacks).
    Profiles analysed, as for ``compare``."""
    sides = [(base, base_launch), (new, new_launch)]
    launches = [_launch(p, lid) for p, lid in sides]
    values = [
        canonical_values(p.subset([lid]), ordered=False).get(lid, {}) if lid is not None else {}
        for p, lid in sides
    ]
    findings = [_findings(p, lid) for p, lid in sides]
    rows = []
    for metric in sorted(values[0].keys() | values[1].keys(), key=_metric_order):
        b, n = values[0].get(metric), values[1].get(metric)
        rows.append(
            {
                "metric": metric,
                "base": b,
                "new": n,
                "change_pct": _change(b, n),
                "within_noise": within_noise(metric, b, n) if b is not None and n is not None else None,
            }
        )
    metrics = pl.DataFrame(
        rows,
        schema={
            "metric": pl.String,
            "base": pl.Float64,
            "new": pl.Float64,
            "change_pct": pl.Float64,
            "within_noise": pl.Boolean,
        },
    )
    config = [
        (what, *(None if row is None else _text(row.get(col)) for row in launches)) for what, col in _CONFIG
    ]
    bkeys, nkeys = findings
    short = next((row["kernel_short"] for row in launches if row is not None), "")
    return PairDetail(
        kernel=short or "",
        names=(
            launches[0]["kernel"] if launches[0] is not None else None,
            launches[1]["kernel"] if launches[1] is not None else None,
        ),
        config=config,  # type: ignore[arg-type]
        metrics=metrics,
        appeared=[nkeys[k] for k in nkeys.keys() - bkeys.keys()],
        gone=[bkeys[k] for k in bkeys.keys() - nkeys.keys()],
        kept=[nkeys[k] for k in nkeys.keys() & bkeys.keys()],
    )


_CONFIG = (
    ("grid", "grid"),
    ("block", "block"),
    ("registers per thread", "registers_per_thread"),
    ("static shared bytes", "static_shared_bytes"),
    ("dynamic shared bytes", "dynamic_shared_bytes"),
    ("device", "device_name"),
    ("file", "source_file"),
)


def _launch(profile: Profile, launch_id: int | None) -> dict[str, Any] | None:
    if launch_id is None:
        return None
    rows = profile.launches.filter(pl.col("launch_id") == launch_id).with_columns(
        pl.concat_str([pl.col(f"grid_{a}").cast(pl.String) for a in "xyz"], separator="×").alias("grid"),
        pl.concat_str([pl.col(f"block_{a}").cast(pl.String) for a in "xyz"], separator="×").alias("block"),
    )
    return rows.row(0, named=True) if rows.height else None


def _findings(profile: Profile, launch_id: int | None) -> dict[tuple, dict[str, Any]]:
    if launch_id is None:
        return {}
    rows = profile.findings.filter((pl.col("launch_id") == launch_id) & pl.col("covered_by").is_null())
    return {finding_key(row): row for row in rows.iter_rows(named=True)}


def _metric_order(metric: str) -> tuple[int, str]:
    order = [m for m, _, _ in COMPARED]
    return (order.index(metric) if metric in order else len(order), metric)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def split_by_source(profile: Profile) -> tuple[Profile, Profile] | None:
    """The first two source files of ``profile`` as (base, new), or None with fewer than two."""
    paths = profile.launches["source_file"].unique(maintain_order=True).to_list()
    if len(paths) < 2:
        return None
    ids = [profile.launches.filter(pl.col("source_file") == p)["launch_id"].to_list() for p in paths[:2]]
    return profile.subset(ids[0]), profile.subset(ids[1])


def _change(base: float | None, new: float | None) -> float | None:
    if base is None or new is None or base == 0:
        return None
    return (new - base) / abs(base) * 100
