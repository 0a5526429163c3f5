"""The range a canonical metric's definition allows its value to take.

A percentage of a whole (occupancy, efficiency, a share, a hit rate, a fraction of peak) is
0-100; counts, sizes, times and rates are never negative; a warp request touches at most 32
sectors (one per lane). A value outside its range is a bug in whatever computed it (the
emulator, a derivation, a view), or damage in a file: ``tests/test_bounds.py`` checks every
emulated and imported metric against these.
"""

from __future__ import annotations

import math

from warpscope.model.catalog import CATALOG

_UNIT_BOUNDS: dict[str, tuple[float, float]] = {
    "%": (0.0, 100.0),
    "sector/request": (0.0, 32.0),
    "level 0-10": (0.0, 10.0),
}
_UNITS = {m.id: m.unit for m in CATALOG}


def bounds(metric: str) -> tuple[float, float]:
    """(least, greatest) value ``metric`` can take by its definition."""
    return _UNIT_BOUNDS.get(_UNITS.get(metric, ""), (0.0, math.inf))


def within(metric: str, value: float, slack: float = 0.0) -> bool:
    """``value`` lies in ``metric``'s range, give or take ``slack`` of its upper bound (a
    profiler's rounding: 100.01% of peak)."""
    least, greatest = bounds(metric)
    return least - slack <= value <= greatest * (1 + slack)
