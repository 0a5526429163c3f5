"""Predicted against measured: each seed kernel with a known fix, the gain warpscope's rule
estimates for the slow kernel, and the gain the fixed kernel measured on the same H100 in the
same profile (the seed export: raw and details pages of ``sample_traces/h100/``).

An estimate is an upper bound under its model (docs/checklist.md says which); "combined" is
the launch's gain with all its findings (1 − Π(1 − gᵢ)), the most the report claims for it.
Prints the markdown table docs/checklist.md carries (tests/test_docs.py checks they agree).

    python benchmarks/seed_pairs.py
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

import warpscope
from warpscope.analysis import analyze

ROOT = Path(__file__).resolve().parent.parent
SEED = [ROOT / "sample_traces" / "h100" / f"seed_full_{page}.csv" for page in ("raw", "details")]
#: withDivergence on sorted input is not in the seed program: measured on the same H100 with
#: the seed kernel and its data sorted (docs/checklist.md, seed errata)
SORTED_DIVERGENCE_NS = 35_700.0

#: (slow kernel, fixed kernel, rule whose fix the pair applies, the fix)
PAIRS = (
    ("transposeShared<0>", "transposeShared<1>", "shared_bank_conflicts", "pad the tile to [32][33]"),
    (
        "transposeNaive",
        "transposeShared<1>",
        "uncoalesced_global_access",
        "stage through a padded shared tile",
    ),
    ("copyStrided", "saxpyCoalesced", "uncoalesced_global_access", "consecutive lanes on consecutive words"),
    ("matmulNaive", "matmulTiled<16, 0>", "memory_bound", "tile A and B through shared memory"),
    ("withDivergence", "(sorted input)", "warp_divergence", "sort the data so a warp takes one path"),
    ("withDivergence", "noDivergence", "warp_divergence", "the notes' rewrite (same work, random data)"),
    ("reduceSingleThread", "reduceShuffle", "serial_reduction", "a tree of warp shuffles"),
    (
        "reduceInterleaved",
        "reduceStridedIndex",
        "warp_divergence",
        "contiguous active threads (strided index)",
    ),
    ("reduceStridedIndex", "reduceSequential", "shared_bank_conflicts", "sequential addressing"),
    ("reduceSequential", "reduceShuffle", "shared_memory_tree_reduction", "the last steps with shuffles"),
)


def table() -> str:
    profile = analyze(warpscope.load(SEED))
    launches = profile.launches.select("launch_id", "kernel_short", "duration_ns")
    time = dict(zip(launches["kernel_short"], launches["duration_ns"], strict=True))
    time["(sorted input)"] = SORTED_DIVERGENCE_NS
    ours = profile.findings.filter(pl.col("origin") == "warpscope").join(launches, on="launch_id")
    rows = [
        "| slow → fixed | fix | rule | severity | predicted (rule) | predicted (combined) | measured |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for slow, fixed, rule, fix in PAIRS:
        mine = ours.filter(pl.col("kernel_short") == slow)
        hit = mine.filter(pl.col("rule_id") == rule)
        gains = [g for g in mine["estimated_speedup_pct"].to_list() if g is not None]
        combined = 100 * (1 - math.prod(1 - g / 100 for g in gains)) if gains else None
        predicted = hit["estimated_speedup_pct"][0] if hit.height else None
        severity = hit["severity"][0] if hit.height else "not fired"
        measured = 100 * (1 - time[fixed] / time[slow])
        rows.append(
            f"| {slow} → {fixed} | {fix} | `{rule}` | {severity} | {_pct(predicted)} | {_pct(combined)} "
            f"| {measured:.1f}% ({time[slow] / 1e3:.2f} → {time[fixed] / 1e3:.2f} µs) |"
        )
    return "\n".join(rows)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}%"


if __name__ == "__main__":
    print(table())
