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

CATEGORIES = ("divergence", "occupancy", "launch_config", "coalescing", "bank_conflicts",
              "memory_bound", "latency_bound", "compute_bound", "stalls", "tail_effect",
              "transfers", "reduction")
SEVERITIES = ("high", "medium", "low", "info")
Severity = Literal["high", "medium", "low", "info"]


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

    def to_row(self, launch_id: int | None) -> dict[str, Any]:
        """The row of the Profile's ``findings`` table."""
        return {
            "launch_id": launch_id, "origin": "warpscope", "rule_id": self.rule,
            "category": self.category, "severity": self.severity, "section": None,
            "title": self.title, "message": self.message, "why": self.why, "fix": self.fix,
            "threshold": self.threshold,
            "estimated_speedup_pct": (None if self.estimated_speedup_pct is None
                                      else round(self.estimated_speedup_pct, 2)),
            "speedup_type": None if self.estimated_speedup_pct is None else "global",
            "speedup_formula": self.speedup_formula if self.estimated_speedup_pct is not None else None,
            "evidence": [{"metric": k, "value": float(v)} for k, v in self.evidence.items()],
            "covered_by": None,
        }


@dataclass(frozen=True)
class Rule:
    """A registered rule: its identity, what it covers, and the function that applies it."""

    id: str
    category: str
    apply: Callable[[Any], Iterable[Finding] | Finding | None]
    scope: Literal["launch", "run"] = "launch"
    ncu: tuple[str, ...] = ()          # Nsight Compute rules that report the same problem
    checklist: tuple[str, ...] = ()    # seed checklist items (docs/checklist.md)
    speedup_formula: str | None = None
    doc: str = field(default="", compare=False)

    def run(self, subject: Any) -> list[Finding]:
        out = self.apply(subject)
        if out is None:
            return []
        found = [out] if isinstance(out, Finding) else list(out)
        return [Finding(**{**f.__dict__, "rule": self.id, "category": self.category,
                           "speedup_formula": f.speedup_formula or self.speedup_formula})
                for f in found]


RULES: dict[str, Rule] = {}
F = TypeVar("F", bound=Callable[..., Any])


def rule(id: str, category: str, *, scope: Literal["launch", "run"] = "launch",
         ncu: tuple[str, ...] = (), checklist: tuple[str, ...] = (),
         speedup: str | None = None) -> Callable[[F], F]:
    """Register a rule function under ``id`` (ids are unique; categories are the fixed set)."""
    if category not in CATEGORIES:
        raise ValueError(f"rule {id}: unknown category {category!r}")

    def register(fn: F) -> F:
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        RULES[id] = Rule(id, category, fn, scope, ncu, checklist, speedup,
                         (fn.__doc__ or "").strip().split("\n\n")[0])
        return fn

    return register
