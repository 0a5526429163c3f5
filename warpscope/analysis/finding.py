"""A finding, and the registry of the rules that produce them.

A rule is a small function of one launch (or of the whole run, for transfers) that
returns zero or more findings. It reads canonical metrics only, so it works the same on
Nsight Compute, nvprof and emulator profiles, and skips (returns nothing) when a metric
it needs is missing: it never guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import polars as pl
import pyarrow as pa

from warpscope.model import schema

CATEGORIES = (
    "divergence",
    "occupancy",
    "launch_config",
    "coalescing",
    "bank_conflicts",
    "memory_bound",
    "latency_bound",
    "compute_bound",
    "tensor_cores",
    "stalls",
    "tail_effect",
    "transfers",
    "reduction",
    "launch_overhead",
    "program",
)
SEVERITIES = ("high", "medium", "low", "info")
Severity = Literal["high", "medium", "low", "info"]
CONFIDENCES = ("high", "medium", "low")
Confidence = Literal["high", "medium", "low"]


@dataclass
class Finding:
    """What a rule saw, why it matters, what to change, and what it may gain.

    Treated as immutable (changed copies come from ``dataclasses.replace`` or ``stamped``) but
    not frozen: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``,
    3x slower, and a long profile makes hundreds of thousands of findings."""

    severity: Severity
    title: str
    message: str
    why: str
    fix: str
    threshold: str
    evidence: dict[str, float]
    estimated_speedup_pct: float | None = None
    rule: str = ""
    category: str = ""
    speedup_formula: str | None = None
    #: set by a rule whose evidence is ambiguous; otherwise the weakest evidence grade decides
    confidence: Confidence | None = None
    #: filled by ``analyze``: the grade of each evidence value, and the program impact
    grades: tuple[str, ...] = ()
    est_saved_ns: float | None = None
    program_share_pct: float | None = None


def findings_frame(found: Iterable[tuple[int | None, Finding]]) -> pl.DataFrame:
    """The ``findings`` table rows of (launch_id, finding) pairs."""
    # Built column by column as Arrow arrays, the two list columns (evidence, its grades) as
    # flat values with offsets: Python lists of lists through pl.DataFrame took 1 s of a
    # 10k-launch analysis (a Series per row).
    pairs = list(found)
    fs = [f for _, f in pairs]
    gains = [None if f.estimated_speedup_pct is None else round(f.estimated_speedup_pct, 2) for f in fs]
    metrics: list[str] = []
    values: list[float] = []
    offsets = [0]
    grades: list[str] = []
    grade_offsets = [0]
    grade_valid = []
    for f in fs:
        metrics.extend(f.evidence)
        values.extend(map(float, f.evidence.values()))
        offsets.append(len(metrics))
        grades.extend(f.grades)
        grade_offsets.append(len(grades))
        grade_valid.append(bool(f.grades))
    strings = pa.string()
    column: dict[str, pa.Array] = {
        "launch_id": pa.array([launch_id for launch_id, _ in pairs], pa.int64()),
        "origin": pa.array(["warpscope"] * len(fs), strings),
        "rule_id": pa.array([f.rule for f in fs], strings),
        "category": pa.array([f.category for f in fs], strings),
        "severity": pa.array([f.severity for f in fs], strings),
        "confidence": pa.array([f.confidence for f in fs], strings),
        "title": pa.array([f.title for f in fs], strings),
        "message": pa.array([f.message for f in fs], strings),
        "why": pa.array([f.why for f in fs], strings),
        "fix": pa.array([f.fix for f in fs], strings),
        "threshold": pa.array([f.threshold for f in fs], strings),
        "estimated_speedup_pct": pa.array(gains, pa.float64()),
        "speedup_type": pa.array([None if g is None else "global" for g in gains], strings),
        "speedup_formula": pa.array(
            [None if g is None else f.speedup_formula for f, g in zip(fs, gains)], strings
        ),
        "evidence": pa.ListArray.from_arrays(
            pa.array(offsets, pa.int32()),
            pa.StructArray.from_arrays(
                [pa.array(metrics, strings), pa.array(values, pa.float64())], names=["metric", "value"]
            ),
        ),
        "evidence_grade": pa.ListArray.from_arrays(
            pa.array(grade_offsets, pa.int32()),
            pa.array(grades, strings),
            mask=pa.array([not v for v in grade_valid], pa.bool_()),
        ),
        "est_saved_ns": pa.array([f.est_saved_ns for f in fs], pa.float64()),
        "program_share_pct": pa.array([f.program_share_pct for f in fs], pa.float64()),
    }
    frame = pl.from_arrow(pa.table(column))
    assert isinstance(frame, pl.DataFrame)
    return schema.conform("findings", frame)


@dataclass(frozen=True)
class Rule:
    """A registered rule: its identity, what it covers, and the function that applies it."""

    id: str
    category: str
    apply: Callable[[Any], Iterable[Finding] | Finding | None]
    scope: Literal["launch", "run"] = "launch"
    ncu: tuple[str, ...] = ()  # Nsight Compute rules that report the same problem
    checklist: tuple[str, ...] = ()  # seed checklist items (docs/checklist.md)
    speedup_formula: str | None = None
    doc: str = field(default="", compare=False)
    #: what the rule reads, when it fires and how it grades (docs/checklist.md's rule table)
    evidence: str = ""
    threshold: str = ""
    severity: str = ""

    def run(self, subject: Any) -> list[Finding]:
        out = self.apply(subject)
        if out is None:
            return []
        found = [out] if isinstance(out, Finding) else list(out)
        return [
            stamped(
                f,
                rule=self.id,
                category=self.category,
                speedup_formula=f.speedup_formula or self.speedup_formula,
            )
            for f in found
        ]


def stamped(f: Finding, **changes: Any) -> Finding:
    """A copy of ``f`` with ``changes`` (field names): ``dataclasses.replace`` without its
    per-field checks and ``__init__`` (a finding's fields are plain values), about 5x faster on
    the hundreds of thousands of findings of a long profile."""
    new = object.__new__(Finding)
    new.__dict__.update(f.__dict__)
    new.__dict__.update(changes)
    return new


RULES: dict[str, Rule] = {}
F = TypeVar("F", bound=Callable[..., Any])


def rule(
    id: str,
    category: str,
    *,
    scope: Literal["launch", "run"] = "launch",
    ncu: tuple[str, ...] = (),
    checklist: tuple[str, ...] = (),
    speedup: str | None = None,
    evidence: str = "",
    threshold: str = "",
    severity: str = "",
) -> Callable[[F], F]:
    """Register a rule function under ``id`` (ids are unique; categories are the fixed set).
    ``evidence``, ``threshold`` and ``severity`` say in words what it reads, when it fires and
    how it grades, before the program-wide caps (``impact.py``)."""
    if category not in CATEGORIES:
        raise ValueError(f"rule {id}: unknown category {category!r}")

    def register(fn: F) -> F:
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        RULES[id] = Rule(
            id,
            category,
            fn,
            scope,
            ncu,
            checklist,
            speedup,
            (fn.__doc__ or "").strip().split("\n\n")[0],
            evidence,
            threshold,
            severity,
        )
        return fn

    return register
