"""Two profiles side by side, kernel by kernel: what the compare view shows.

Launches are matched as ``warpscope diff`` matches them (kernel short name and order among
its launches; a changed grid or block is a change, not a new kernel); this adds the side-by-side values of the headline
metrics and a verdict per pair, regressions first.
"""

from __future__ import annotations

import polars as pl

from warpscope.model.profile import Profile
from warpscope.model.values import canonical_values
from warpscope.report.diff import NOISE_PCT, diff

#: (metric, label, higher is better) shown side by side
COMPARED = (
    ("duration_ns", "Time µs", False),
    ("achieved_occupancy_pct", "Occ ach%", True),
    ("warp_execution_efficiency_pct", "WarpEff%", True),
    ("global_load_sectors_per_request", "Sect/req", False),
    ("shared_load_bank_conflicts", "BankConf", False),
)


def compare(base: Profile, new: Profile) -> pl.DataFrame:
    """One row per matched launch, plus launches only one side has; regressions first.

    Both profiles must be analysed (``warpscope.analysis.analyze``) for the findings counts.
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
        row["findings_new"] = len(pair.appeared)
        row["findings_gone"] = len(pair.disappeared)
        row["verdict"] = (
            "slower"
            if change is not None and change > NOISE_PCT
            else "faster"
            if change is not None and change < -NOISE_PCT
            else "same"
        )
        rows.append(row)
    for side, items in (("only in base", result.only_in_base), ("only in new", result.only_in_new)):
        for item in items:
            rows.append(
                {
                    "kernel": item["kernel"],
                    "verdict": side,
                    "base_launch" if side == "only in base" else "new_launch": item["launch"],
                }
            )
    schema = {
        "kernel": pl.String,
        "base_launch": pl.Int64,
        "new_launch": pl.Int64,
        **{f"{m}.{s}": pl.Float64 for m, _, _ in COMPARED for s in ("base", "new")},
        "duration_change_pct": pl.Float64,
        "findings_new": pl.Int64,
        "findings_gone": pl.Int64,
        "verdict": pl.String,
    }
    frame = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    order = {"slower": 0, "only in base": 1, "only in new": 2, "same": 3, "faster": 4}
    return frame.sort(
        [pl.col("verdict").replace_strict(order, return_dtype=pl.Int64), pl.col("duration_change_pct").abs()],
        descending=[False, True],
        nulls_last=True,
    )


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
