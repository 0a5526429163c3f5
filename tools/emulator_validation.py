"""Regenerate docs/emulator-validation.md: the timing model against the H100 seed export.

Runs the seed workload in the emulator (full size, sm_90, default scheduler), reads the
real Nsight Compute export of the same kernels, and writes per kernel the emulated and
measured duration, achieved occupancy and dominant stall, the rank correlation of the
durations, the comparisons the timing model must get right, and where every parameter
comes from.

    python tools/emulator_validation.py [--out docs/emulator-validation.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from warpscope import load  # noqa: E402
from warpscope.emulator.kernel import SETTINGS, recording  # noqa: E402
from warpscope.emulator.profile import to_profile  # noqa: E402
from warpscope.emulator.timing import compiled, overlap  # noqa: E402
from warpscope.emulator.timing.params import TIMINGS  # noqa: E402
from warpscope.emulator.workloads import seed  # noqa: E402

EXPORT = ROOT / "sample_traces" / "h100" / "seed_full_raw.csv"
SORTED_H100_US = (
    35.7  # withDivergence on sorted input, measured on the H100 (docs/checklist.md, "Seed errata")
)


def spearman(a: list[float], b: list[float]) -> float:
    """Rank correlation (average ranks for ties): Pearson's r of the ranks."""
    frame = pl.DataFrame({"a": a, "b": b}).select(pl.col("a").rank(), pl.col("b").rank())
    return float(frame.select(pl.corr("a", "b")).item())


def top_stall(stalls: pl.DataFrame, launch_id: int) -> tuple[str, float]:
    rows = stalls.filter(pl.col("launch_id") == launch_id, pl.col("reason") != "selected").sort(
        "cycles_per_issue", descending=True
    )
    return (rows["reason"][0], rows["cycles_per_issue"][0]) if rows.height else ("", 0.0)


def metric(profile, launch_id: int, name: str) -> float | None:
    v = profile.metrics.filter(pl.col("launch_id") == launch_id, pl.col("metric") == name)["value"]
    return float(v[0]) if v.len() else None


def validate(policy: str = "gty") -> tuple[pl.DataFrame, dict[str, object]]:
    SETTINGS.policy = policy
    # every launch timed where it is made, none on the timing thread, and its SMs one at a
    # time (``compiled.run_all``): the model's own rate on one core, not shared with the
    # functional layer running beside it
    overlap_min, overlap.OVERLAP_MIN = overlap.OVERLAP_MIN, 1 << 62
    parallel_min, compiled.PARALLEL_MIN = compiled.PARALLEL_MIN, 1 << 62
    try:
        started = time.perf_counter()
        with recording() as launches:
            seed.main()
        wall = time.perf_counter() - started
    finally:
        overlap.OVERLAP_MIN = overlap_min
        compiled.PARALLEL_MIN = parallel_min
    emulated = to_profile(launches, "seed")
    measured = load(str(EXPORT))
    by_name = {k: i for i, k in zip(measured.launches["launch_id"], measured.launches["kernel_short"])}
    rows = []
    for lid, launch in enumerate(launches):
        mid = by_name.get(launch.kernel)
        em_top, em_value = top_stall(emulated.stalls, lid)
        hw_top, hw_value = top_stall(measured.stalls, mid) if mid is not None else ("", 0.0)
        rows.append(
            {
                "kernel": launch.kernel,
                "emulated_us": launch.timing.duration_ns / 1000,
                "measured_us": (measured.launches["duration_ns"][mid] / 1000)
                if mid is not None
                else (SORTED_H100_US if launch.kernel == "withDivergence_sorted" else None),
                "emulated_occupancy": metric(emulated, lid, "achieved_occupancy_pct"),
                "measured_occupancy": metric(measured, mid, "achieved_occupancy_pct")
                if mid is not None
                else None,
                "emulated_top_stall": f"{em_top} {em_value:.1f}",
                "measured_top_stall": f"{hw_top} {hw_value:.1f}" if hw_top else "",
                "same_top": em_top == hw_top if hw_top else None,
                "warp_instructions": launch.timing.issued,
                "timing_s": launch.timing.wall_s,
            }
        )
    table = pl.DataFrame(rows)
    paired = table.filter(pl.col("measured_us").is_not_null())
    with_stalls = table.filter(pl.col("same_top").is_not_null())
    rho = spearman(paired["emulated_us"].to_list(), paired["measured_us"].to_list())
    us = dict(zip(table["kernel"], table["emulated_us"]))
    timing_s = float(table["timing_s"].sum())
    instructions = int(table["warp_instructions"].sum())
    checks = {
        "withDivergence vs noDivergence within 10%": abs(us["withDivergence"] / us["noDivergence"] - 1)
        <= 0.10,
        "withDivergence on sorted data clearly faster (< 0.8x)": us["withDivergence_sorted"]
        < 0.8 * us["withDivergence"],
        "transposeShared<1> faster than transposeShared<0>": us["transposeShared<1>"]
        < us["transposeShared<0>"],
        "both shared transposes faster than transposeNaive": max(
            us["transposeShared<0>"], us["transposeShared<1>"]
        )
        < us["transposeNaive"],
        "matmulTiled<16, 0> and <32, 1> faster than matmulNaive": max(
            us["matmulTiled<16, 0>"], us["matmulTiled<32, 1>"]
        )
        < us["matmulNaive"],
        "heavyRegisters' achieved occupancy <= its 75% theoretical": (
            table.filter(pl.col("kernel") == "heavyRegisters")["emulated_occupancy"][0] or 100
        )
        <= 75.0,
        "rank correlation of durations >= 0.8": rho >= 0.8,
        "dominant stall matches ncu for most kernels": int(with_stalls["same_top"].sum())
        > with_stalls.height / 2,
    }
    summary = {
        "rho": rho,
        "paired": paired.height,
        "same_top": int(with_stalls["same_top"].sum()),
        "with_stalls": with_stalls.height,
        "timing_s": timing_s,
        "instructions": instructions,
        "wall_s": wall,
        "checks": checks,
        "policy": policy,
    }
    return table, summary


def render(table: pl.DataFrame, s: dict[str, object], policies: dict[str, float]) -> str:
    out = [
        "# Emulator timing model vs the H100",
        "",
        "Generated by `python tools/emulator_validation.py` (do not edit by hand). The seed workload "
        "runs at full size in the emulator (sm_90, `gty` scheduler) and is compared with the real "
        "Nsight Compute 2025.3 export of the same kernels on an H100 SXM "
        "(`sample_traces/h100/seed_full_raw.csv`; withDivergence on sorted input: 35.7 us, "
        "measured separately: docs/checklist.md, seed errata). The parameters are the same for every kernel; the "
        "table at the end says where each comes from.",
        "",
        f"**Spearman rank correlation of durations: {s['rho']:.3f}** over {s['paired']} kernels. "
        f"Dominant stall (largest reason other than `selected`) the same as ncu's for "
        f"{s['same_top']} of {s['with_stalls']} kernels. "
        f"Timing model: {s['instructions']:,} warp instructions simulated in {s['timing_s']:.1f} s "
        f"({s['instructions'] / max(s['timing_s'], 1e-9):,.0f} per second, one core); "  # type: ignore[operator]
        f"the whole seed run with the functional layer took {s['wall_s']:.1f} s.",
        "",
        "## What it must get right",
        "",
    ]
    for name, ok in s["checks"].items():  # type: ignore[union-attr]
        out.append(f"- [{'x' if ok else ' '}] {name}")
    out += [
        "",
        "## Per kernel",
        "",
        "| kernel | emulated µs | H100 µs | ratio | achieved occ. emulated | H100 | top stall emulated "
        "(cycles/issue) | ncu | same |",
        "|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in table.iter_rows(named=True):
        ratio = r["emulated_us"] / r["measured_us"] if r["measured_us"] else None
        occ = lambda v: f"{v:.1f}%" if v is not None else ""  # noqa: E731
        out.append(
            f"| {r['kernel']} | {r['emulated_us']:.1f} | {r['measured_us']:.1f} | {ratio:.2f} | "
            if ratio is not None
            else f"| {r['kernel']} | {r['emulated_us']:.1f} | | | "
        )
        out[-1] += (
            f"{occ(r['emulated_occupancy'])} | {occ(r['measured_occupancy'])} | "
            f"{r['emulated_top_stall']} | {r['measured_top_stall']} | "
            f"{'' if r['same_top'] is None else ('yes' if r['same_top'] else 'no')} |"
        )
    out += [
        "",
        "## Scheduler policies",
        "",
        "Total emulated time of the seed kernels under each policy (same parameters):",
        "",
    ]
    out += [f"- `{p}`: {v:.1f} µs" for p, v in policies.items()]
    out += [
        "",
        "## Known differences",
        "",
        "- The emulator runs the Python source, not SASS: it does not unroll loops or hoist loads. "
        "reduceSingleThread (one thread adding 256 shared values) is latency-bound here, while nvcc "
        "unrolls it and reads with LDS.128; matmulTiled's inner loop likewise waits on each LDS where "
        "the real kernel is limited by the shared-memory pipe (ncu: `mio_throttle`).",
        "- Local arrays indexed the same on every lane, by values set once (constants, range-loop "
        "counters, parameters), are timed as registers (nvcc keeps them in registers once loops "
        "unroll, as in heavyRegisters); per-lane indices, and names a data-dependent loop moves, "
        "go to local memory.",
        "- Transcendentals are one MUFU instruction plus a dependent refinement sequence on the FMA "
        "pipe (IEEE sqrtf); conversions run at the integer pipe's rate (measured).",
        "- Scattered stores (transposeNaive) are limited here only by the L1 tag stage and the SM's "
        "share of L2 bandwidth; the H100 takes about twice as long (partial-sector writes in L2 are "
        "not modelled).",
        "",
        "## Parameters (sm_90) and their sources",
        "",
        "| parameter | value | source |",
        "|---|---|---|",
    ]
    t = TIMINGS["sm_90"]
    for name, source in t.sources.items():
        out.append(f"| `{name}` | {getattr(t, name)} | {source} |")
    out += [
        "",
        "Other architectures (sm_70, sm_80, sm_86, sm_89) take published figures and fall back to "
        "these for what they do not set; see `warpscope/emulator/timing/params.py`.",
        "",
    ]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "emulator-validation.md"))
    args = ap.parse_args()
    table, summary = validate("gty")
    policies = {"gty": float(table["emulated_us"].sum())}
    for p in ("gto", "lrr"):
        other, _ = validate(p)
        policies[p] = float(other["emulated_us"].sum())
    SETTINGS.policy = "gty"
    Path(args.out).write_text(render(table, summary, policies))
    print(
        f"rank correlation {summary['rho']:.3f}; same top stall {summary['same_top']}/{summary['with_stalls']}; "
        f"timing {summary['instructions']:,} warp instructions in {summary['timing_s']:.1f} s"
    )
    for name, ok in summary["checks"].items():  # type: ignore[union-attr]
        print(("PASS " if ok else "FAIL ") + name)


if __name__ == "__main__":
    main()
