"""How each rule's estimates compared with fixes measured on the H100: the calibration Fix first
publishes beside every estimate.

``warpscope/data/calibration.csv`` holds, per rule, what ``benchmarks/advice_calibration.py``
measures on the calibration suite (``tools/gpu/calibration_pairs.cu``): the pairs whose applied
fix the rule names, and its estimate's error against the time the fix saved (ncu's durations,
what an estimate predicts). ``python tools/update_checklist.py`` rewrites the file and a test
keeps it equal to the benchmark's figures.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "data" / "calibration.csv"
COLUMNS = ("rule", "pairs", "median_error_pts", "worst_error_pts", "within_5")


@dataclass(frozen=True)
class Calibration:
    """One rule's record against measured fixes, in points of the kernel's time."""

    rule: str
    pairs: int
    median_error_pts: float
    worst_error_pts: float
    within_5: int

    @property
    def text(self) -> str:
        """For a sentence: what the estimate's error was on the fixes measured."""
        fixes = "fix" if self.pairs == 1 else "fixes"
        return (
            f"±{self.median_error_pts:.1f} points median (worst {self.worst_error_pts:.1f}; "
            f"{self.within_5} of {self.pairs} within 5) over {self.pairs} {fixes} measured on the H100"
        )

    def as_dict(self) -> dict[str, float | int]:
        return {
            "pairs": self.pairs,
            "median_error_pts": self.median_error_pts,
            "worst_error_pts": self.worst_error_pts,
            "within_5": self.within_5,
        }


@cache
def _table() -> dict[str, Calibration]:
    if not TABLE.exists():
        return {}
    with TABLE.open(newline="") as f:
        return {
            r["rule"]: Calibration(
                r["rule"],
                int(r["pairs"]),
                float(r["median_error_pts"]),
                float(r["worst_error_pts"]),
                int(r["within_5"]),
            )
            for r in csv.DictReader(f)
        }


def cell(calibration: Mapping[str, float] | None, none: str = "–") -> str:
    """A Fix-first entry's ``calibration`` for a table cell: the median error and, in brackets,
    the number of H100 fixes it was judged on; ``none`` where no measured pair names the rule."""
    if not calibration:
        return none
    return f"±{calibration['median_error_pts']:.1f} ({calibration['pairs']:.0f})"


def calibration_of(rule: str | None) -> Calibration | None:
    """The rule's calibration; None for a rule no measured pair names yet."""
    return _table().get(rule or "")
