"""Precision and recall of warpscope's advice against a labelled set of real kernels.

    python benchmarks/advice_precision.py [--no-emulator] [--claims]

The set (``benchmarks/advice_labels.csv``, a reason per label): the seed kernels on the H100
(``sample_traces/h100/seed_full_raw.csv``), the probe kernels written for this benchmark
(``tools/gpu/advice_kernels.cu``, profiled on the H100: ``sample_traces/h100/advice_full_*``),
the real PyTorch training step (``sample_traces/h100/cnn_step``), and the
emulator's run of the seed workload, judged by the seed labels.

A *claim* is a launch and a category in which warpscope has a ``high`` or ``medium`` finding
(several findings of one category on one launch are one claim). A label names a kernel, the
categories one problem can show up in, and a verdict: ``problem`` (a claim is expected),
``minor`` (a claim is true but not required), ``clean`` (a claim is false). A claim that no
label covers counts as false: every claim must be judged. Targets (issue 18): precision
100% for ``high``, ≥ 95% for ``medium``; recall ≥ 95% of the problems.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import warpscope  # noqa: E402
from warpscope.analysis import analyze  # noqa: E402
from warpscope.model.profile import Profile  # noqa: E402

LABELS = ROOT / "benchmarks" / "advice_labels.csv"
H100 = ROOT / "sample_traces" / "h100"
SOURCES = {
    "seed": H100 / "seed_full_raw.csv",
    "probe": H100 / "advice_full_raw_base.csv.gz",
    "cnn_step": ROOT / "sample_traces" / "h100" / "cnn_step" / "cnn_full_raw_base.csv.gz",
}
#: the emulator runs the seed program: its launches are judged by the seed labels
JUDGED_AS = {"emulator": "seed"}
TARGETS = {"high": 100.0, "medium": 95.0, "recall": 95.0}


@dataclass(frozen=True)
class Label:
    source: str
    kernel: str
    categories: frozenset[str]
    verdict: str
    reason: str


@dataclass(frozen=True)
class Claim:
    source: str
    kernel: str
    launch_id: int
    category: str
    severity: str
    rules: tuple[str, ...]


@dataclass
class Score:
    claims: list[tuple[Claim, str]] = field(default_factory=list)  # (claim, judged: true|false|unlabelled)
    problems: list[tuple[str, Label, bool]] = field(default_factory=list)  # (source, label, found)

    def precision(self, severity: str | None = None, category: str | None = None) -> tuple[int, int]:
        judged = [
            j
            for c, j in self.claims
            if (severity is None or c.severity == severity) and (category is None or c.category == category)
        ]
        return sum(j == "true" for j in judged), len(judged)

    def recall(self, category: str | None = None) -> tuple[int, int]:
        rows = [
            found for _, label, found in self.problems if category is None or category in label.categories
        ]
        return sum(rows), len(rows)


def load_labels(path: Path = LABELS) -> list[Label]:
    with path.open(newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    labels = []
    for r in rows:
        if r["verdict"] not in ("problem", "minor", "clean"):
            raise ValueError(f"{path}: {r['kernel']}: verdict {r['verdict']!r}")
        if not r["reason"].strip():
            raise ValueError(f"{path}: {r['kernel']}: a label needs its reason")
        labels.append(
            Label(r["source"], r["kernel"], frozenset(r["categories"].split("|")), r["verdict"], r["reason"])
        )
    return labels


def claims_of(source: str, profile: Profile) -> list[Claim]:
    """The high and medium claims of warpscope's findings, one per launch and category."""
    kernels = dict(profile.launches.select("launch_id", "kernel_short").iter_rows())
    best: dict[tuple[int, str], Claim] = {}
    rank = {"high": 0, "medium": 1}
    for row in profile.findings.iter_rows(named=True):
        if row["origin"] != "warpscope" or row["severity"] not in rank or row["launch_id"] is None:
            continue
        key = (row["launch_id"], row["category"])
        seen = best.get(key)
        rules = (*(seen.rules if seen else ()), row["rule_id"])
        severity = (
            row["severity"] if seen is None or rank[row["severity"]] < rank[seen.severity] else seen.severity
        )
        best[key] = Claim(
            source, kernels[row["launch_id"]], row["launch_id"], row["category"], severity, rules
        )
    return list(best.values())


def score(profiles: dict[str, Profile], labels: list[Label]) -> Score:
    """Judge every claim of ``profiles`` (source -> analysed profile) by ``labels``."""
    out = Score()
    for source, profile in profiles.items():
        judged_by = JUDGED_AS.get(source, source)
        mine = [label for label in labels if label.source == judged_by]
        claims = claims_of(source, profile)
        for c in claims:
            verdicts = {lb.verdict for lb in mine if lb.kernel == c.kernel and c.category in lb.categories}
            if not verdicts:
                verdicts = {lb.verdict for lb in mine if lb.kernel == "*" and c.category in lb.categories}
            judged = "unlabelled" if not verdicts else "false" if verdicts == {"clean"} else "true"
            out.claims.append((c, judged))
        present = set(profile.launches["kernel_short"])
        for label in mine:
            if label.verdict != "problem" or label.kernel not in present:
                continue
            found = any(c.kernel == label.kernel and c.category in label.categories for c in claims)
            out.problems.append((source, label, found))
    return out


def load_profiles(emulator: bool) -> tuple[dict[str, Profile], dict[str, float]]:
    profiles, seconds = {}, {}
    for source, path in SOURCES.items():
        if not path.exists():
            print(f"({source}: {path} not present, skipped)")
            continue
        t = time.perf_counter()
        profiles[source] = analyze(warpscope.load(path))
        seconds[source] = time.perf_counter() - t
    if emulator:
        from warpscope.emulator import recording
        from warpscope.emulator.profile import to_profile
        from warpscope.emulator.workloads import seed

        t = time.perf_counter()
        with recording() as launches:
            seed.main()
        profiles["emulator"] = analyze(to_profile(launches, "emulator:seed"))
        seconds["emulator"] = time.perf_counter() - t
    return profiles, seconds


def _pct(hit: int, n: int) -> str:
    return f"{100 * hit / n:.1f}% ({hit}/{n})" if n else "— (0)"


def table(s: Score) -> str:
    """The markdown table of docs/checklist.md: per category, then overall against the targets."""
    categories = sorted(
        {c.category for c, _ in s.claims} | {k for _, lb, _ in s.problems for k in lb.categories}
    )
    lines = [
        "| category | high: precision | medium: precision | recall of problems |",
        "|---|---:|---:|---:|",
    ]
    for cat in categories:
        hp, mp, rc = s.precision("high", cat), s.precision("medium", cat), s.recall(cat)
        if hp[1] or mp[1] or rc[1]:
            lines.append(f"| {cat} | {_pct(*hp)} | {_pct(*mp)} | {_pct(*rc)} |")
    lines.append(
        f"| **all** | **{_pct(*s.precision('high'))}** | **{_pct(*s.precision('medium'))}** | "
        f"**{_pct(*s.recall())}** |"
    )
    return "\n".join(lines)


def meets_targets(s: Score) -> bool:
    def ok(hit_n: tuple[int, int], target: float) -> bool:
        return hit_n[1] == 0 or 100 * hit_n[0] / hit_n[1] >= target

    return (
        ok(s.precision("high"), TARGETS["high"])
        and ok(s.precision("medium"), TARGETS["medium"])
        and ok(s.recall(), TARGETS["recall"])
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-emulator", action="store_true", help="skip the emulator's seed run (~1 min)")
    ap.add_argument("--claims", action="store_true", help="list every claim and how it was judged")
    args = ap.parse_args()
    labels = load_labels()
    profiles, seconds = load_profiles(not args.no_emulator)
    s = score(profiles, labels)
    print(
        f"labelled set: {len(labels)} labels; sources: "
        + ", ".join(f"{k} ({v:.1f} s)" for k, v in seconds.items())
    )
    for source in profiles:
        sub = Score(
            [(c, j) for c, j in s.claims if c.source == source], [p for p in s.problems if p[0] == source]
        )
        hp, mp, rc = sub.precision("high"), sub.precision("medium"), sub.recall()
        print(f"  {source:9} high {_pct(*hp):>16}   medium {_pct(*mp):>16}   recall {_pct(*rc):>16}")
    print()
    print(table(s))
    wrong = [(c, j) for c, j in s.claims if j != "true"]
    missed = [(src, lb) for src, lb, found in s.problems if not found]
    for c, j in wrong if not args.claims else s.claims:
        print(f"{j:10} {c.source:9} {c.severity:6} {c.category:14} {c.kernel[:70]}  ({', '.join(c.rules)})")
    for src, lb in missed:
        print(f"missed     {src:9} {'|'.join(sorted(lb.categories)):14} {lb.kernel[:70]}  — {lb.reason}")
    on = {}
    for c, j in s.claims:
        if j == "true":
            labels_hit = {
                lb.verdict
                for lb in labels
                if lb.source == JUDGED_AS.get(c.source, c.source)
                and lb.kernel in (c.kernel, "*")
                and c.category in lb.categories
            }
            kind = "problem" if "problem" in labels_hit else "minor"
            on[kind] = on.get(kind, 0) + 1
    print(
        f"\ntrue claims: {on.get('problem', 0)} on labelled problems, {on.get('minor', 0)} on minor ones "
        "(true but not required)"
    )
    verdict = meets_targets(s)
    print(
        f"\ntargets (high {TARGETS['high']:.0f}%, medium ≥ {TARGETS['medium']:.0f}%, "
        f"recall ≥ {TARGETS['recall']:.0f}%): {'met' if verdict else 'NOT met'}"
    )
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
