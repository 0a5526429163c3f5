"""Two profiles compared launch by launch: metric deltas, findings gained or lost, CI thresholds.

Launches are matched by kernel short name and order among the launches of that kernel, so a
kernel whose grid or block changed (following the advice) still lines up: its configuration
change is reported as a change. A rebuilt binary with renamed template arguments lines up
as long as its short name stays. Differences within run-to-run noise are kept but flagged.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from warpscope.model.catalog import BY_ID
from warpscope.model.profile import Profile
from warpscope.model.suggest import did_you_mean
from warpscope.model.values import canonical_values
from warpscope.report.kernels import finding_key

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
_THRESHOLD = re.compile(
    r"\s*(?P<metric>[a-z0-9_]+)\s*(?P<op>>=|<=|>|<)\s*"
    r"(?P<value>[+-]?(\d+(\.\d*)?|\.\d+))\s*(?P<pct>%)?\s*"
)


@dataclass(frozen=True)
class Threshold:
    """``duration_ns>+5%``: fail when the change (relative with %, else absolute) crosses the value."""

    text: str
    metric: str
    op: str
    value: float
    relative: bool

    @classmethod
    def parse(cls, text: str) -> Threshold:
        m = _THRESHOLD.fullmatch(text)
        if m is None:
            raise ValueError(f"--fail-on {text!r}: expected METRIC OP [+-]NUMBER[%], e.g. 'duration_ns>+5%'")
        if m["metric"] not in BY_ID:
            raise ValueError(
                f"--fail-on {text!r}: {m['metric']} is not a canonical metric"
                f"{did_you_mean(m['metric'], BY_ID)}; see `warpscope metrics`"
            )
        return cls(text, m["metric"], m["op"], float(m["value"]), m["pct"] is not None)

    def change(self, base: float, new: float) -> float:
        if not self.relative:
            return new - base
        if base == 0:
            return 0.0 if new == 0 else math.copysign(math.inf, new)
        return (new - base) / abs(base) * 100

    def crossed(self, base: float, new: float) -> bool:
        return _OPS[self.op](self.change(base, new), self.value)


#: run-to-run noise. The seed program profiled twice on one H100 (``sample_traces/h100/
#: seed_full_raw.csv`` and ``sample_traces/h100/seed_details_all.csv.gz``): kernel durations
#: differed by up to 3.2% (median 0.6%), and 583 of the 602 metric values that differed did so
#: by under 5%, or under 2 points for a percentage
NOISE_PCT = 5.0
NOISE_POINTS = 2.0


def within_noise(metric: str, base: float, new: float) -> bool:
    """Whether ``base`` → ``new`` of ``metric`` is within run-to-run noise."""
    if metric.endswith("_pct") and abs(new - base) < NOISE_POINTS:
        return True
    return base != 0 and abs(new - base) / abs(base) * 100 < NOISE_PCT


@dataclass
class Pair:
    """One launch matched across the two profiles."""

    kernel: str
    base_launch: int
    new_launch: int
    deltas: list[dict[str, Any]] = field(default_factory=list)
    appeared: list[dict[str, Any]] = field(default_factory=list)
    disappeared: list[dict[str, Any]] = field(default_factory=list)
    #: grid and block, base and new, where either changed
    config: dict[str, list[list[int | None]]] | None = None

    @property
    def changed(self) -> bool:
        """A change beyond noise: a metric, a finding, or the launch configuration."""
        return bool(
            any(not d["within_noise"] for d in self.deltas)
            or self.appeared
            or self.disappeared
            or self.config
        )


@dataclass
class Diff:
    base: str
    new: str
    pairs: list[Pair]
    only_in_base: list[dict[str, Any]]
    only_in_new: list[dict[str, Any]]
    crossings: list[dict[str, Any]]
    thresholds: list[Threshold]
    #: per kernel (short name): its time in each profile (all its launches), biggest change first
    times: list[dict[str, Any]] = field(default_factory=list)
    #: what the reader must know before trusting the comparison (launch counts that differ)
    warnings: list[str] = field(default_factory=list)
    #: launches on each side
    launches: dict[str, int] = field(default_factory=dict)

    @property
    def regression(self) -> bool:
        return bool(self.crossings)


def _keys(profile: Profile) -> dict[tuple[str, int], tuple[int, list[int | None], list[int | None]]]:
    """(short name, n-th launch of that kernel) -> (launch_id, grid, block)."""
    seen: dict[str, int] = {}
    out: dict[tuple[str, int], tuple[int, list[int | None], list[int | None]]] = {}
    cols = ("launch_id", "kernel_short", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")
    for lid, short, gx, gy, gz, bx, by, bz in profile.launches.sort("launch_id").select(cols).iter_rows():
        n = seen.get(short, 0)
        seen[short] = n + 1
        out[(short, n)] = (lid, [gx, gy, gz], [bx, by, bz])
    return out


def _finding_keys(profile: Profile) -> dict[int, dict[tuple, dict[str, Any]]]:
    out: dict[int, dict[tuple, dict[str, Any]]] = {}
    rows = profile.findings.filter(pl.col("launch_id").is_not_null() & pl.col("covered_by").is_null())
    for row in rows.iter_rows(named=True):
        out.setdefault(row["launch_id"], {})[finding_key(row)] = {
            "rule": row["rule_id"],
            "origin": row["origin"],
            "category": row["category"],
            "severity": row["severity"],
            "title": row["title"] or row["message"],
        }
    return out


def _describe(key: tuple[str, int], launch: tuple[int, list[int | None], list[int | None]]) -> dict[str, Any]:
    lid, grid, block = launch
    return {"kernel": key[0], "launch": lid, "grid": grid, "block": block, "occurrence": key[1]}


def diff(
    base: Profile,
    new: Profile,
    thresholds: list[Threshold],
    values: tuple[dict[int, dict[str, float]], dict[int, dict[str, float]]] | None = None,
) -> Diff:
    """Compare two analysed profiles (``warpscope.analysis.analyze``); ``values`` are their
    canonical values per launch when the caller has them already (``LaunchView.metrics``)."""
    bkeys, nkeys = _keys(base), _keys(new)
    bvals, nvals = values or (canonical_values(base), canonical_values(new))
    bfind, nfind = _finding_keys(base), _finding_keys(new)
    pairs, crossings = [], []
    for key, (blid, bgrid, bblock) in bkeys.items():
        if key not in nkeys:
            continue
        nlid, ngrid, nblock = nkeys[key]
        pair = Pair(key[0] or "", blid, nlid)
        if (bgrid, bblock) != (ngrid, nblock):
            pair.config = {"grid": [bgrid, ngrid], "block": [bblock, nblock]}
        b, n = bvals.get(blid, {}), nvals.get(nlid, {})
        for metric in b.keys() & n.keys():
            if b[metric] != n[metric]:
                change = (n[metric] - b[metric]) / abs(b[metric]) * 100 if b[metric] else None
                pair.deltas.append(
                    {
                        "metric": metric,
                        "base": b[metric],
                        "new": n[metric],
                        "delta": n[metric] - b[metric],
                        "change_pct": change,
                        "within_noise": within_noise(metric, b[metric], n[metric]),
                    }
                )
        pair.deltas.sort(key=lambda d: d["metric"])
        bf, nf = bfind.get(blid, {}), nfind.get(nlid, {})
        pair.appeared = [nf[k] for k in nf.keys() - bf.keys()]
        pair.disappeared = [bf[k] for k in bf.keys() - nf.keys()]
        for items in (pair.appeared, pair.disappeared):
            items.sort(key=lambda f: (f["origin"], f["rule"] or "", f["title"] or ""))
        for t in thresholds:
            if t.metric in b and t.metric in n and t.crossed(b[t.metric], n[t.metric]):
                crossings.append(
                    {
                        "threshold": t.text,
                        "kernel": pair.kernel,
                        "base_launch": blid,
                        "new_launch": nlid,
                        "base": b[t.metric],
                        "new": n[t.metric],
                        "change": t.change(b[t.metric], n[t.metric]),
                        "relative": t.relative,
                    }
                )
        pairs.append(pair)
    only_base = [_describe(k, launch) for k, launch in bkeys.items() if k not in nkeys]
    only_new = [_describe(k, launch) for k, launch in nkeys.items() if k not in bkeys]
    return Diff(
        _paths(base),
        _paths(new),
        pairs,
        only_base,
        only_new,
        crossings,
        thresholds,
        _times(base, new, pairs),
        [w for w in (launch_count_warning(base, new),) if w],
        {"base": base.launches.height, "new": new.launches.height},
    )


def _times(base: Profile, new: Profile, pairs: list[Pair]) -> list[dict[str, Any]]:
    """Each kernel's time on both sides, the most time first: the launches matched in order of
    occurrence where both sides ran it (a run with more launches of a kernel does not look slower
    for it), else all its launches on the one side that has it (null on the other)."""
    bdur = dict(base.launches.select("launch_id", "duration_ns").iter_rows())
    ndur = dict(new.launches.select("launch_id", "duration_ns").iter_rows())
    bcount, btotal = _per_kernel(base)
    ncount, ntotal = _per_kernel(new)
    matched: dict[str, list[Pair]] = {}
    for p in pairs:
        matched.setdefault(p.kernel, []).append(p)
    rows = []
    for short in bcount.keys() | ncount.keys():
        got = matched.get(short or "", [])
        if got:
            b = _total(bdur[p.base_launch] for p in got)
            n = _total(ndur[p.new_launch] for p in got)
        else:
            b, n = btotal.get(short), ntotal.get(short)
        change = (n - b) / b * 100 if b and n is not None else None
        rows.append(
            {
                "kernel": short,
                "base_ns": b,
                "new_ns": n,
                "change_pct": change,
                "within_noise": b is not None and n is not None and within_noise("duration_ns", b, n),
                "base_launches": bcount.get(short, 0),
                "new_launches": ncount.get(short, 0),
                "matched_launches": len(got),
            }
        )
    return sorted(rows, key=lambda r: (-max(r["base_ns"] or 0.0, r["new_ns"] or 0.0), r["kernel"] or ""))


def _total(durations: Iterable[float | None]) -> float | None:
    known = [d for d in durations if d is not None]
    return sum(known) if known else None


def _per_kernel(profile: Profile) -> tuple[dict[str | None, int], dict[str | None, float | None]]:
    """Launches and total time per kernel short name."""
    rows = profile.launches.group_by("kernel_short").agg(pl.len(), pl.col("duration_ns").sum())
    counts = {short: n for short, n, _ in rows.iter_rows()}
    totals = {short: (t if n else None) for short, n, t in rows.iter_rows()}
    return counts, totals


def launch_count_warning(base: Profile, new: Profile) -> str | None:
    """The line that says the two runs launched a different number of kernels (so their totals do
    not compare), or ``None`` where the counts agree."""
    nb, nn = base.launches.height, new.launches.height
    if nb == nn:
        return None
    return (
        f"the runs' launch counts differ (base {nb:,}, new {nn:,}): kernel times compare the "
        "launches matched per kernel in order of occurrence, not the totals"
    )


def _paths(profile: Profile) -> str:
    return ", ".join(profile.sources["path"].to_list())
