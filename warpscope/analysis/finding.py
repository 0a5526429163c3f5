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


@dataclass(frozen=True)
class Finding:
    """What a rule saw, why it matters, what to change, and what it may gain."""

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
    # Built column by column, evidence as one flat Arrow struct array with offsets:
    # a dict per row through pl.DataFrame took 0.8 s of a 10k-launch analysis.
    cols: dict[str, list[Any]] = {name: [] for name in schema.FINDINGS if name != "evidence"}
    metrics: list[str] = []
    values: list[float] = []
    offsets = [0]
    for launch_id, f in found:
        gain = None if f.estimated_speedup_pct is None else round(f.estimated_speedup_pct, 2)
        for name, value in (
            ("launch_id", launch_id),
            ("origin", "warpscope"),
            ("rule_id", f.rule),
            ("category", f.category),
            ("severity", f.severity),
            ("confidence", f.confidence),
            ("section", None),
            ("title", f.title),
            ("message", f.message),
            ("why", f.why),
            ("fix", f.fix),
            ("threshold", f.threshold),
            ("estimated_speedup_pct", gain),
            ("speedup_type", None if gain is None else "global"),
            ("speedup_formula", None if gain is None else f.speedup_formula),
            ("evidence_grade", list(f.grades) if f.grades else None),
            ("est_saved_ns", f.est_saved_ns),
            ("program_share_pct", f.program_share_pct),
            ("covered_by", None),
        ):
            cols[name].append(value)
        metrics.extend(f.evidence)
        values.extend(map(float, f.evidence.values()))
        offsets.append(len(metrics))
    evidence = pa.ListArray.from_arrays(
        pa.array(offsets, pa.int32()),
        pa.StructArray.from_arrays(
            [pa.array(metrics, pa.string()), pa.array(values, pa.float64())], names=["metric", "value"]
        ),
    )
    table = pl.DataFrame(cols, schema={n: t for n, t in schema.FINDINGS.items() if n != "evidence"})
    frame = table.insert_column(list(schema.FINDINGS).index("evidence"), pl.Series("evidence", evidence))
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
            Finding(
                **{
                    **f.__dict__,
                    "rule": self.id,
                    "category": self.category,
                    "speedup_formula": f.speedup_formula or self.speedup_formula,
                }
            )
            for f in found
        ]


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
