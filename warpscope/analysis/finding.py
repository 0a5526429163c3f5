"""A finding, and the registry of the rules that produce them.

A rule is a small function of one launch (or of the whole run, for transfers) that
returns zero or more findings. It reads canonical metrics only, so it works the same on
Nsight Compute, nvprof and emulator profiles, and skips (returns nothing) when a metric
it needs is missing: it never guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sized
from dataclasses import dataclass, field, fields
from itertools import accumulate
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


#: a finding's fields, in order: the columns of a ``Row``
FIELDS = tuple(f.name for f in fields(Finding))
#: one finding as a plain tuple: (launch_id, then each of ``FIELDS``). What the engine passes
#: around for a long profile (workers pickle it; the table is built from it column by column)
Row = tuple[Any, ...]
COLUMN = {name: i + 1 for i, name in enumerate(FIELDS)}  # the field's place in a Row


def finding_row(launch_id: int | None, f: Finding) -> Row:
    """``f`` of ``launch_id`` as a Row."""
    values = f.__dict__
    return (launch_id, *[values[n] for n in FIELDS])


def findings_frame(found: Iterable[tuple[int | None, Finding]]) -> pl.DataFrame:
    """The ``findings`` table rows of (launch_id, finding) pairs."""
    return rows_frame([finding_row(launch_id, f) for launch_id, f in found])


def rows_frame(rows: list[Row]) -> pl.DataFrame:
    """The ``findings`` table of findings as Rows."""
    # Built column by column as Arrow arrays, the two list columns (evidence, its grades) as
    # flat values with offsets: Python lists of lists through pl.DataFrame took 1 s of a
    # 10k-launch analysis (a Series per row).
    columns = list(zip(*rows, strict=True)) if rows else [()] * (len(FIELDS) + 1)

    def col(name: str) -> tuple[Any, ...]:
        return columns[COLUMN[name]]

    gains = [None if g is None else round(g, 2) for g in col("estimated_speedup_pct")]
    evidence: tuple[dict[str, float], ...] = col("evidence")
    grades: tuple[tuple[str, ...], ...] = col("grades")
    strings = pa.string()
    column: dict[str, pa.Array] = {
        "launch_id": pa.array(columns[0], pa.int64()),
        "origin": pa.array(["warpscope"] * len(rows), strings),
        **{name: pa.array(col(field), strings) for name, field in _TEXT.items()},
        "estimated_speedup_pct": pa.array(gains, pa.float64()),
        "speedup_type": pa.array([None if g is None else "global" for g in gains], strings),
        "speedup_formula": pa.array(
            [None if g is None else f for f, g in zip(col("speedup_formula"), gains, strict=True)], strings
        ),
        "evidence": pa.ListArray.from_arrays(
            _offsets(evidence),
            pa.StructArray.from_arrays(
                [
                    pa.array([m for e in evidence for m in e], strings),
                    pa.array([float(x) for e in evidence for x in e.values()], pa.float64()),
                ],
                names=["metric", "value"],
            ),
        ),
        "evidence_grade": pa.ListArray.from_arrays(
            _offsets(grades),
            pa.array([g for gs in grades for g in gs], strings),
            mask=pa.array([not gs for gs in grades], pa.bool_()),
        ),
        "est_saved_ns": pa.array(col("est_saved_ns"), pa.float64()),
        "program_share_pct": pa.array(col("program_share_pct"), pa.float64()),
    }
    frame = pl.from_arrow(pa.table(column))
    assert isinstance(frame, pl.DataFrame)
    return schema.conform("findings", frame)


#: text columns of the table, and the field each comes from
_TEXT = {
    "rule_id": "rule",
    "category": "category",
    "severity": "severity",
    "confidence": "confidence",
    "title": "title",
    "message": "message",
    "why": "why",
    "fix": "fix",
    "threshold": "threshold",
}


def _offsets(lists: Iterable[Sized]) -> pa.Array:
    return pa.array([0, *accumulate(len(x) for x in lists)], pa.int32())


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
