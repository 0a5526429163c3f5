"""The runs of a profile, as the reports show them: the repeated step (where there is one)
and one step's kernel time by family of work."""

from __future__ import annotations

from typing import Any

from warpscope.analysis.views import run_views
from warpscope.model.profile import Profile

#: below this a run without a repeated step is too small for a family breakdown to say much
MIN_LAUNCHES = 50


def run_records(profile: Profile, min_launches: int = MIN_LAUNCHES) -> list[dict[str, Any]]:
    """Per run (source file) worth a breakdown: ``source``, ``launches``, ``kernel_ns``,
    ``steps`` (``count``, ``launches_per_step``, ``first_launch``, ``warmup_launches``,
    ``warmup_ns``; null when the run does not repeat) and ``step`` (``launches``,
    ``kernel_ns``, ``families``: family, launches, time_ns, share_pct) — per step where the
    run repeats, else over the whole run (runs of fewer than ``min_launches`` launches that do
    not repeat are left out)."""
    out = []
    for run in run_views(profile):
        s = run.summary
        if (s.steps is None and s.launches < min_launches) or not s.launches:
            continue
        steps = None
        if s.steps is not None:
            steps = {
                "count": s.steps.count,
                "launches_per_step": s.steps.period,
                "first_launch": s.steps.first,
                "warmup_launches": s.warmup_launches,
                "warmup_ns": s.warmup_ns,
            }
        out.append(
            {
                "source": run.source,
                "launches": s.launches,
                "kernel_ns": s.kernel_ns,
                "steps": steps,
                "step": {
                    "launches": s.step_launches,
                    "kernel_ns": s.step_ns,
                    "families": s.families.to_dicts(),
                },
            }
        )
    return out
