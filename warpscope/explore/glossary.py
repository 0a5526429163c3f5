"""The glossary the TUI shows: every canonical metric, stall reason and occupancy limit.

Metrics come from the catalog (``warpscope.model.catalog``) word for word; stall reasons
from the findings' own explanations (``warpscope.analysis.bottleneck.STALLS``) with the
Nsight Compute metric each is read from; limits from the occupancy calculator's names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from warpscope.analysis.bottleneck import STALLS
from warpscope.model.catalog import CATALOG
from warpscope.model.stalls import NVPROF_STALLS
from warpscope.occupancy.advice import LIMIT_LABELS


@dataclass(frozen=True)
class Entry:
    """One glossary entry."""

    id: str
    kind: str  # metric | stall | limiter
    unit: str
    definition: str
    formula: str
    ncu: tuple[str, ...] = ()
    nvprof: tuple[str, ...] = ()
    fix: str = ""


@cache
def entries() -> tuple[Entry, ...]:
    """All entries: metrics in catalog order, then stall reasons, then occupancy limits."""
    out = [
        Entry(
            m.id,
            "metric",
            m.unit,
            m.definition,
            m.formula,
            tuple(dict.fromkeys([a.name for a in m.ncu] + [f"{a.section}: {a.name}" for a in m.labels])),
            tuple(a.name for a in m.nvprof),
            "derived from " + ", ".join(m.derived_from) if m.derived_from else "",
        )
        for m in CATALOG
    ]
    nvprof = _nvprof_stalls()
    for reason, (waits_for, fix) in STALLS.items():
        out.append(
            Entry(
                f"stall.{reason}",
                "stall",
                "cycles per issued instruction",
                f"A warp that is not issuing because it waits for {waits_for}.",
                "warp cycles spent in this state / instructions issued (summed over reasons: "
                "warp_cycles_per_issued_instruction)",
                (f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio",),
                nvprof.get(reason, ()),
                fix,
            )
        )
    out.append(
        Entry(
            "stall.selected",
            "stall",
            "cycles per issued instruction",
            "The warp issued an instruction this cycle (1 per issued instruction).",
            "always 1.0",
            ("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",),
        )
    )
    for limit, label in LIMIT_LABELS.items():
        out.append(
            Entry(
                f"limiter.{limit}",
                "limiter",
                "blocks per SM",
                f"Occupancy limited by {label}: this resource allows the fewest resident blocks per SM.",
                f"block_limit_{limit} = the blocks per SM {label} allow; the smallest block limit binds",
                (f"launch__occupancy_limit_{limit}",),
            )
        )
    return tuple(out)


def lookup(entry_id: str) -> Entry | None:
    """The entry for a metric id, ``stall.<reason>`` (or a bare reason) or ``limiter.<name>``."""
    by_id = {e.id: e for e in entries()}
    return by_id.get(entry_id) or by_id.get(f"stall.{entry_id}") or by_id.get(f"limiter.{entry_id}")


def _nvprof_stalls() -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for name, reason in NVPROF_STALLS.items():
        out[reason] = (*out.get(reason, ()), name)
    return out
