"""A finding, and the registry of the rules that produce them.

A rule is a small function of one launch (or of the whole run, for transfers) that
returns zero or more findings. It reads canonical metrics only, so it works the same on
Nsight Compute, nvprof and emulator profiles, and skips (returns nothing) when a metric
it needs is missing: it never guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
    "atomics",
    "local_memory",
    "ilp",
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


#: a finding's fields, in order
FIELDS = tuple(f.name for f in fields(Finding))
#: Findings column by column: ``launch_id`` and each plain field a list, the evidence and its
#: grades flattened (``evidence_metric``, ``evidence_value``, ``grade``) with a length per finding.
#: What the engine passes around for a long profile: workers pickle lists of plain values (no
#: object per finding to rebuild), and the table is built from them as Arrow arrays.
Columns = dict[str, list[Any]]
_PLAIN = tuple(n for n in FIELDS if n not in ("evidence", "grades"))


def new_columns() -> Columns:
    """Columns of no findings."""
    names = ("launch_id", *_PLAIN, "evidence_metric", "evidence_value", "evidence_len", "grade", "grade_len")
    return {name: [] for name in names}


def add_findings(columns: Columns, launch_id: int | None, found: Iterable[Finding]) -> None:
    """Append ``found``, the findings of ``launch_id``, to ``columns``."""
    launch_ids, metrics, values, lengths = (
        columns["launch_id"],
        columns["evidence_metric"],
        columns["evidence_value"],
        columns["evidence_len"],
    )
    grades, grade_lengths = columns["grade"], columns["grade_len"]
    plain = [(columns[n], n) for n in _PLAIN]
    for f in found:
        fields_ = f.__dict__
        launch_ids.append(launch_id)
        for column, name in plain:
            column.append(fields_[name])
        evidence = fields_["evidence"]
        metrics.extend(evidence)
        values.extend(map(float, evidence.values()))
        lengths.append(len(evidence))
        grades.extend(fields_["grades"])
        grade_lengths.append(len(fields_["grades"]))


def extend_columns(columns: Columns, more: Columns) -> None:
    """Append the findings of ``more`` to ``columns``."""
    for name, values in more.items():
        columns[name].extend(values)


def findings_frame(found: Iterable[tuple[int | None, Finding]]) -> pl.DataFrame:
    """The ``findings`` table rows of (launch_id, finding) pairs."""
    columns = new_columns()
    for launch_id, f in found:
        add_findings(columns, launch_id, (f,))
    return columns_frame(columns)


def columns_frame(columns: Columns) -> pl.DataFrame:
    """The ``findings`` table of the findings in ``columns``."""
    return table_frame(columns_table(columns))


def table_frame(table: pa.Table) -> pl.DataFrame:
    """The ``findings`` table of a ``columns_table``."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return schema.conform("findings", frame)


def columns_table(columns: Columns) -> pa.Table:
    """The findings in ``columns`` as an Arrow table, made with pyarrow alone (a forked worker
    must not start Polars' thread pool: a fork inherits its locks, not its threads)."""
    # Built column by column as Arrow arrays, the two list columns (evidence, its grades) as
    # flat values with offsets: Python lists of lists through pl.DataFrame took 1 s of a
    # 10k-launch analysis (a Series per row).
    col = columns.__getitem__
    gains = [None if g is None else round(g, 2) for g in col("estimated_speedup_pct")]
    strings = pa.string()

    def text(name: str, values: list[str | None]) -> pa.Array:
        # the categorical columns as Arrow dictionaries: Polars reads them as categoricals
        plain = pa.array(values, strings)
        return plain.dictionary_encode() if name in CATEGORICAL_COLUMNS else plain

    column: dict[str, pa.Array] = {
        "launch_id": pa.array(col("launch_id"), pa.int64()),
        "origin": text("origin", ["warpscope"] * len(gains)),
        **{name: text(name, col(field)) for name, field in TEXT_FIELDS.items()},
        "estimated_speedup_pct": pa.array(gains, pa.float64()),
        "speedup_type": text("speedup_type", [None if g is None else "global" for g in gains]),
        "speedup_formula": text(
            "speedup_formula",
            [None if g is None else f for f, g in zip(col("speedup_formula"), gains, strict=True)],
        ),
        "evidence": pa.ListArray.from_arrays(
            _offsets(col("evidence_len")),
            pa.StructArray.from_arrays(
                [pa.array(col("evidence_metric"), strings), pa.array(col("evidence_value"), pa.float64())],
                names=["metric", "value"],
            ),
        ),
        "evidence_grade": pa.ListArray.from_arrays(
            _offsets(col("grade_len")),
            pa.array(col("grade"), strings),
            mask=pa.array([n == 0 for n in col("grade_len")], pa.bool_()),
        ),
        "est_saved_ns": pa.array(col("est_saved_ns"), pa.float64()),
        "program_share_pct": pa.array(col("program_share_pct"), pa.float64()),
    }
    return pa.table(column)


#: text columns of the table, and the field each comes from
TEXT_FIELDS = {
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


CATEGORICAL_COLUMNS = frozenset(name for name, dtype in schema.FINDINGS.items() if dtype == pl.Categorical)


def _offsets(lengths: list[int]) -> pa.Array:
    return pa.array([0, *accumulate(lengths)], pa.int32())


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
        for f in found:  # the rule's own new findings: stamped where they stand, not copied
            fields_ = f.__dict__
            fields_["rule"], fields_["category"] = self.id, self.category
            if not fields_["speedup_formula"]:
                fields_["speedup_formula"] = self.speedup_formula
        return found


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
