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
#: percentages that real hardware passes by definition, not by damage
_METRIC_BOUNDS: dict[str, tuple[float, float]] = {
    # bytes the lanes asked for per 32-byte sector moved: lanes reading one address (a broadcast)
    # ask for more than was moved — up to 32 lanes x 16 bytes in one sector, 1600%. Seen on the
    # H100: 107% and 386% in a PyTorch step's kernels (sample_traces/h100/cnn_step).
    "global_load_efficiency_pct": (0.0, 1600.0),
    "global_store_efficiency_pct": (0.0, 1600.0),
    # of the peak sustained over the unit's *active* cycles: 110% and 135% on the H100 (cnn_step)
    "l1tex_throughput_pct": (0.0, math.inf),
    # ncu's L2 sector hit rate passes 100% on kernels that only write: 100.2–102.9% on the H100
    # for Thrust's fills and a one-thread store (sample_traces/h100/libmix)
    "l2_hit_rate_pct": (0.0, 105.0),
}


def bounds(metric: str) -> tuple[float, float]:
    """(least, greatest) value ``metric`` can take by its definition."""
    if metric in _METRIC_BOUNDS:
        return _METRIC_BOUNDS[metric]
    return _UNIT_BOUNDS.get(_UNITS.get(metric, ""), (0.0, math.inf))


def within(metric: str, value: float, slack: float = 0.0) -> bool:
    """``value`` lies in ``metric``'s range, give or take ``slack`` of its upper bound (a
    profiler's rounding: 100.01% of peak)."""
    least, greatest = bounds(metric)
    return least - slack <= value <= greatest * (1 + slack)
