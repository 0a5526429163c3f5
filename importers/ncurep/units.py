"""Metric units for a report, which stores values but not their units.

Nsight Compute takes a metric's unit from its own metrics database, not from anything in the
report, and the names do not settle it (``smsp__warps_active.avg.per_cycle_active`` prints as
"warp", ``sm__icc_requests.sum`` as "cycle"). So the units are looked up in
``metric_units.csv``: the units Nsight Compute 2025.3 prints on the raw page in base units,
for every metric of the exports in ``sample_traces/`` (made by ``tools/make_metric_units.py``).
A metric not in the table is "%" when its name says percent, else unknown (""); its value is
right either way, only the label is missing.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("metric_units.csv")


@cache
def _table() -> dict[str, str]:
    with TABLE.open(newline="") as f:
        return {row["name"]: row["unit"] for row in csv.DictReader(f)}


def unit_of(name: str) -> str:
    """The unit Nsight Compute prints for metric ``name`` (base units), "" if unknown."""
    unit = _table().get(name)
    if unit is not None:
        return unit
    return "%" if name.endswith(".pct") or ".pct_of_peak" in name else ""
