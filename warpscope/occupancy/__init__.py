"""Occupancy: which per-SM limit binds a launch (the calculator itself comes with its own module)."""

from warpscope.occupancy.limiter import LIMITS, occupancy_limiter

__all__ = ["LIMITS", "occupancy_limiter"]
