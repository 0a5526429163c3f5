"""Estimated gains against fixes measured on the H100: the calibration suite.

Each pair of ``tools/gpu/calibration_pairs.csv`` (and of ``validation_pairs.csv``: pairs written
after the models were set, to test them; ``sample_traces/h100/calibration/validation/``) is a
kernel and the same kernel with one fix of
docs/checklist.md applied (same result, checked on the GPU's host). The suite was timed with CUDA
events outside the profiler (``calibration_timings.csv``: rounds of 25 launches after warm-up
from two device sessions, the median of the rounds) and profiled with ``ncu --set full``
(``sample_traces/h100/calibration/``). Per pair:

- measured: the time the fix saved, in points of the "before" kernel's time, twice: in ncu's own
  durations (base clocks, caches flushed: the conditions the counters were taken under, so what an
  estimate made from them predicts) and in CUDA events (boost clocks, warm caches: the
  application's time, beside it);
- named: the estimate of warpscope's finding that names the applied fix (0 where none does);
- top: what warpscope's top advice for the kernel is (its largest Fix-first entry, else its most
  severe finding) and its estimate;
- ncu: the largest estimate among Nsight Compute's own rules that report the same problem.

A pair whose fix saves >= 5% is a gain pair; below that the fix is tempting but worthless (a
null pair). The summary, for each time base: median and mean |named - measured|, the share of
gain pairs within 5 points, the gain pairs whose top advice names the fix, and false claims (on
a null pair, a finding naming the fix at severity >= medium or with an estimate >= 10%; on any
"after" kernel, a finding of the fixed category at severity >= medium).

    python benchmarks/advice_calibration.py [--markdown]
"""

from __future__ import annotations

import argparse
import csv
import statistics
from dataclasses import dataclass
from pathlib import Path

import polars as pl

import warpscope
from warpscope.analysis import analyze
from warpscope.analysis.calibration import COLUMNS
from warpscope.analysis.finding import RULES

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "sample_traces" / "h100" / "calibration"
PAIRS = ROOT / "tools" / "gpu" / "calibration_pairs.csv"
GAIN = 5.0  # points: a fix that saves less is a null pair
SEVERITY = {"info": 0, "low": 1, "medium": 2, "high": 3}


@dataclass(frozen=True)
class Row:
    pair: str
    rule: str
    fix: str
    measured_ncu: float  # points of the before kernel's time, ncu's durations (what estimates predict)
    measured_events: float  # the same from CUDA events outside the profiler
    named: float  # estimate of the finding naming the fix (0: none)
    named_severity: str
    top_rule: str
    top: float
    ncu: float | None  # Nsight Compute's estimate for the same problem
    after_claims: int  # findings >= medium of the fixed category on the after kernel

    def measured(self, basis: str = "ncu") -> float:
        return self.measured_ncu if basis == "ncu" else self.measured_events

    def gain(self, basis: str = "ncu") -> bool:
        return self.measured(basis) >= GAIN

    def error(self, basis: str = "ncu") -> float:
        return abs(self.named - self.measured(basis))

    def false_claim(self, basis: str = "ncu") -> bool:
        claimed = SEVERITY.get(self.named_severity, 0) >= 2 or self.named >= 10
        return (not self.gain(basis) and claimed) or self.after_claims > 0


#: the time bases: ncu's durations (what an estimate from ncu's counters predicts), CUDA events
BASES = {"ncu": "ncu's durations", "events": "CUDA events"}


@dataclass(frozen=True)
class Suite:
    """A set of before/after pairs and its H100 data (exports and event timings)."""

    name: str
    folder: Path
    pairs: Path


#: the calibration suite, and the pairs written after the models were set to check them
SUITES = (
    Suite("calibration", SUITE, PAIRS),
    Suite("validation", SUITE / "validation", ROOT / "tools" / "gpu" / "validation_pairs.csv"),
    Suite("validation2", SUITE / "validation2", ROOT / "tools" / "gpu" / "validation2_pairs.csv"),
)


def event_times(suite: Suite = SUITES[0]) -> dict[str, float]:
    """kernel -> the median of its rounds' medians (the calibration suite: two device sessions,
    8 rounds, so a pair that moved between sessions counts as the majority of its rounds
    measured it; the validation suite: 4 rounds of one session), microseconds."""
    rounds: dict[str, list[float]] = {}
    with (suite.folder / f"{suite.name}_timings.csv").open() as f:
        for r in csv.DictReader(f):
            rounds.setdefault(r["kernel"], []).append(float(r["median_us"]))
    return {k: statistics.median(v) for k, v in rounds.items()}


def rows(suites: tuple[Suite, ...] = SUITES) -> list[Row]:
    """Every pair of ``suites``, in their order."""
    return [row for suite in suites for row in _suite_rows(suite)]


def _suite_rows(suite: Suite) -> list[Row]:
    profile = analyze(
        warpscope.load(
            [suite.folder / f"{suite.name}_raw_base.csv.gz", suite.folder / f"{suite.name}_details.csv.gz"]
        )
    )
    launches = profile.launches.select("launch_id", "kernel_short", "duration_ns")
    by_kernel = {k: (lid, d) for lid, k, d in launches.iter_rows()}
    findings = profile.findings.join(launches, on="launch_id")
    times = event_times(suite)
    out = []
    with suite.pairs.open() as f:
        for p in csv.DictReader(f):
            before, after = p["before"], p["after"]
            lid, ncu_before = by_kernel[before]
            _, ncu_after = by_kernel[after]
            ours = findings.filter((pl.col("launch_id") == lid) & (pl.col("origin") == "warpscope"))
            named = ours.filter(pl.col("rule_id") == p["rule"]).sort("estimated_speedup_pct", descending=True)
            top = _top(ours)
            rule = RULES.get(p["rule"])
            theirs = findings.filter(
                (pl.col("launch_id") == lid)
                & (pl.col("origin") != "warpscope")
                & pl.col("rule_id").is_in(list(rule.ncu) if rule else [])
            )["estimated_speedup_pct"].drop_nulls()
            after_claims = findings.filter(
                (pl.col("kernel_short") == after)
                & (pl.col("origin") == "warpscope")
                & (pl.col("category") == (rule.category if rule else ""))
                & pl.col("severity").is_in(["medium", "high"])
            ).height
            out.append(
                Row(
                    pair=p["pair"],
                    rule=p["rule"],
                    fix=p["fix"],
                    measured_ncu=100 * (1 - ncu_after / ncu_before),
                    measured_events=100 * (1 - times[after] / times[before]),
                    named=float(named["estimated_speedup_pct"].fill_null(0.0)[0]) if named.height else 0.0,
                    named_severity=named["severity"][0] if named.height else "",
                    top_rule=top[0],
                    top=top[1],
                    ncu=float(theirs.max()) if theirs.len() else None,  # type: ignore[arg-type]
                    after_claims=after_claims,
                )
            )
    return out


def _top(ours: pl.DataFrame) -> tuple[str, float]:
    """The kernel's top advice: its largest Fix-first entry, else its most severe finding."""
    entries = ours.filter(
        (pl.col("severity") != "info")
        & (pl.col("category") != "stalls")
        & pl.col("est_saved_ns").is_not_null()
    ).sort("est_saved_ns", descending=True)
    if entries.height:
        return entries["rule_id"][0], float(entries["estimated_speedup_pct"][0] or 0.0)
    ranked = ours.with_columns(pl.col("severity").replace_strict(SEVERITY, default=0).alias("_s")).sort(
        "_s", descending=True
    )
    if ranked.height:
        return ranked["rule_id"][0], float(ranked["estimated_speedup_pct"].fill_null(0.0)[0])
    return "", 0.0


def summary(rs: list[Row], basis: str = "ncu") -> dict[str, float]:
    gains = [r for r in rs if r.gain(basis)]
    errors = [r.error(basis) for r in rs]
    ncu_errors = [abs(r.ncu - r.measured(basis)) for r in rs if r.ncu is not None]
    return {
        "pairs": len(rs),
        "gain_pairs": len(gains),
        "median_error": statistics.median(errors),
        "mean_error": statistics.mean(errors),
        "gain_within_5": sum(r.error(basis) <= 5 for r in gains) / len(gains),
        "top_names_fix": sum(r.top_rule == r.rule for r in gains),
        "false_claims": sum(r.false_claim(basis) for r in rs),
        "ncu_pairs": len(ncu_errors),
        "ncu_median_error": statistics.median(ncu_errors) if ncu_errors else float("nan"),
    }


def calibration_csv(rs: list[Row]) -> str:
    """Per rule, its estimates' error over the pairs whose fix it names (ncu's durations): the
    table warpscope/data/calibration.csv ships for Fix first to publish."""
    by_rule: dict[str, list[float]] = {}
    for r in rs:
        by_rule.setdefault(r.rule, []).append(r.error("ncu"))
    lines = [",".join(COLUMNS)]
    for rule, errors in sorted(by_rule.items()):
        lines.append(
            f"{rule},{len(errors)},{statistics.median(errors):.1f},{max(errors):.1f},{sum(e <= 5 for e in errors)}"
        )
    return "\n".join(lines) + "\n"


def _summary_line(rs: list[Row], basis: str) -> str:
    s = summary(rs, basis)
    return (
        f"{s['gain_pairs']} where the fix saves ≥ {GAIN:.0f}%: |named − measured| median "
        f"{s['median_error']:.1f} points, mean {s['mean_error']:.1f}; gain pairs within 5 points "
        f"{round(s['gain_within_5'] * s['gain_pairs'])} of {s['gain_pairs']} "
        f"({100 * s['gain_within_5']:.1f}%); top advice names the fix on {s['top_names_fix']} of "
        f"{s['gain_pairs']} gain pairs; {s['false_claims']} false claims; Nsight Compute's own "
        f"estimates (on the {s['ncu_pairs']} pairs where a rule of its reports the problem): median "
        f"{s['ncu_median_error']:.1f} points"
    )


def markdown(rs: list[Row]) -> str:
    lines = [
        "| pair | fix | rule | measured (ncu) | measured (events) | named estimate | top advice | ncu's estimate |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    for r in rs:
        ncu = "–" if r.ncu is None else f"{r.ncu:.1f}"
        named = f"{r.named:.1f}" + (f" ({r.named_severity})" if r.named_severity else " (none)")
        top = f"`{r.top_rule}` {r.top:.1f}" if r.top_rule else "–"
        lines.append(
            f"| {r.pair} | {r.fix} | `{r.rule}` | {r.measured_ncu:.1f} | {r.measured_events:.1f} | {named} "
            f"| {top} | {ncu} |"
        )
    lines += [
        "",
        f"{len(rs)} pairs. Against ncu's durations (what the estimates predict): "
        f"{_summary_line(rs, 'ncu')}. Against CUDA events (the application's clocks and caches): "
        f"{_summary_line(rs, 'events')}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="the table docs/checklist.md carries")
    args = parser.parse_args()
    rs = rows()
    if args.markdown:
        print(markdown(rs))
        return
    print(
        f"{'pair':5} {'rule':30} {'ncu-d':>6} {'events':>6} {'named':>6} {'top rule':30} {'top':>6} {'ncu':>6}"
    )
    for r in rs:
        ncu = "" if r.ncu is None else f"{r.ncu:6.1f}"
        flag = " FALSE" if r.false_claim() or r.false_claim("events") else ""
        print(
            f"{r.pair:5} {r.rule:30} {r.measured_ncu:6.1f} {r.measured_events:6.1f} {r.named:6.1f} "
            f"{r.top_rule:30} {r.top:6.1f} {ncu:>6}{flag}"
        )
    for basis, name in BASES.items():
        print(f"-- against {name}" + (" (what the estimates predict)" if basis == "ncu" else ""))
        for k, v in summary(rs, basis).items():
            print(f"{k}: {v:.2f}" if isinstance(v, float) else f"{k}: {v}")


if __name__ == "__main__":
    main()
