"""Mapping ncu metric names and labels onto the canonical catalog, as join tables."""

from __future__ import annotations

import re
from functools import lru_cache

from warpscope.model.catalog import CATALOG, alias_map

STALL_RAW = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
STALL_SECTION = "Warp State Statistics"
STALL_TABLE = "Warp State (All Cycles)"


@lru_cache(maxsize=1)
def by_name() -> dict[str, tuple[str, float, int]]:
    """Internal metric name -> (canonical id, factor, priority); the first alias wins."""
    return alias_map("ncu")


@lru_cache(maxsize=1)
def by_label() -> dict[tuple[str | None, str], tuple[str, float, int]]:
    """(section, label) of the details page -> (canonical id, factor, priority)."""
    out: dict[tuple[str | None, str], tuple[str, float, int]] = {}
    for m in CATALOG:
        for prio, alias in enumerate(m.labels):
            out.setdefault((alias.section, alias.name), (m.id, alias.factor, 100 + prio))
    return out


def stall_reason_from_label(label: str) -> str:
    """'Stall Long Scoreboard' -> 'long_scoreboard'; 'Selected' -> 'selected'."""
    text = label.removeprefix("Stall ").strip()
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")
