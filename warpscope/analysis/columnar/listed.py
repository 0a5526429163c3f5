"""The rules without a columnar form, on the launches the columnar engine takes: run on each
launch's view, as the per-launch engine runs them, their findings handed to the columnar grading
as plain lists (one entry per finding) beside the columnar rules' own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from warpscope.analysis import impact
from warpscope.analysis.evidence import grade
from warpscope.analysis.finding import Rule
from warpscope.analysis.views import LaunchView

#: evidence grades, in the order of their codes
GRADES = ("exact", "hardware", "inferred")
_GRADE_CODE = {g: i for i, g in enumerate(GRADES)}


@dataclass
class Listed:
    """Findings of per-launch rules, before grading: each a launch position (in the slice of
    launches evaluated), its rule, its fold key (``impact._key``), its fields, and its evidence
    flattened (finding index, metric, value, grade code)."""

    pos: list[int] = field(default_factory=list)
    rule: list[str] = field(default_factory=list)
    key: list[str] = field(default_factory=list)
    severity: list[str] = field(default_factory=list)
    title: list[str] = field(default_factory=list)
    message: list[str] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    fix: list[str] = field(default_factory=list)
    threshold: list[str] = field(default_factory=list)
    estimate: list[float] = field(default_factory=list)
    confidence: list[str | None] = field(default_factory=list)
    formula: list[str | None] = field(default_factory=list)
    ev_finding: list[int] = field(default_factory=list)
    ev_metric: list[str] = field(default_factory=list)
    ev_value: list[float] = field(default_factory=list)
    ev_grade: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.pos)


@dataclass
class PerLaunch:
    """Which rules each launch needs run on its view (``rules_of``), and the views of those
    launches (``views``: launch order, made a slice at a time, as ``LazyViews`` makes them)."""

    ids: np.ndarray
    views: Sequence[LaunchView]
    rules_of: dict[int, tuple[Rule, ...]]

    def run(self, launch_ids: np.ndarray) -> Listed:
        """The findings of these rules on the launches of ``launch_ids`` (sorted) that need any."""
        out = Listed()
        if not len(launch_ids) or not len(self.ids):
            return out
        start = int(np.searchsorted(self.ids, launch_ids[0]))
        stop = int(np.searchsorted(self.ids, launch_ids[-1], side="right"))
        if start >= stop:
            return out
        for view in self.views[start:stop]:
            pos = int(np.searchsorted(launch_ids, view.launch_id))
            for rule in self.rules_of[view.launch_id]:
                for f in rule.run(view):
                    index = len(out.pos)
                    out.pos.append(pos)
                    out.rule.append(f.rule)
                    out.key.append(impact._key(f))
                    out.severity.append(f.severity)
                    out.title.append(f.title)
                    out.message.append(f.message)
                    out.why.append(f.why)
                    out.fix.append(f.fix)
                    out.threshold.append(f.threshold)
                    out.estimate.append(
                        np.nan if f.estimated_speedup_pct is None else f.estimated_speedup_pct
                    )
                    out.confidence.append(f.confidence)
                    out.formula.append(f.speedup_formula)
                    for metric, value in f.evidence.items():
                        out.ev_finding.append(index)
                        out.ev_metric.append(metric)
                        out.ev_value.append(float(value))
                        out.ev_grade.append(_GRADE_CODE[grade(view, metric)])
        return out
