"""The emulator's warp timeline as rows of cells: what the timeline view draws.

Each row is one hardware warp slot of one simulated SM; each cell covers
``cycles_per_cell`` cycles and shows the state at the cell's middle cycle (run-length
rows from the profile's ``timeline`` table, looked up with a binary search per cell, so
zooming over 100k-cycle launches stays instant).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from warpscope.model.stalls import WARP_STATES

#: warp states, in the order the legend lists them and cells code them
STATES = WARP_STATES
NONE = -1  # no warp resident in the slot


@dataclass
class _Row:
    sm: int
    slot: int
    smsp: int
    starts: np.ndarray
    ends: np.ndarray
    states: np.ndarray
    blocks: np.ndarray
    warps: np.ndarray


class Timeline:
    """One launch's timeline, row by row."""

    def __init__(self, frame: pl.DataFrame) -> None:
        code = {s: i for i, s in enumerate(STATES)}
        frame = frame.sort(["sm", "warp_slot", "start_cycle"])
        self.rows: list[_Row] = []
        for (sm, slot), part in frame.group_by(["sm", "warp_slot"], maintain_order=True):
            self.rows.append(
                _Row(
                    int(sm),
                    int(slot),
                    int(part["smsp"][0]),
                    part["start_cycle"].to_numpy(),
                    part["end_cycle"].to_numpy(),
                    part["state"].replace_strict(code, default=NONE, return_dtype=pl.Int64).to_numpy(),
                    part["block"].to_numpy(),
                    part["warp"].to_numpy(),
                )
            )
        self.cycles = int(frame["end_cycle"].cast(pl.Int64).max() or 0) if frame.height else 0  # type: ignore[arg-type]
        self.frame = frame

    def cells(self, row: int, first_cycle: int, cycles_per_cell: int, count: int) -> np.ndarray:
        """State codes (index into ``STATES``, or ``NONE``) of ``count`` cells from ``first_cycle``."""
        r = self.rows[row]
        middles = first_cycle + cycles_per_cell * np.arange(count) + cycles_per_cell // 2
        index = np.searchsorted(r.starts, middles, side="right") - 1
        inside = (index >= 0) & (middles < r.ends[np.clip(index, 0, None)])
        return np.where(inside, r.states[np.clip(index, 0, None)], NONE)

    def warp_at(self, row: int, cycle: int) -> tuple[int, int, str] | None:
        """(block, warp, state) resident in ``row`` at ``cycle``, or None."""
        r = self.rows[row]
        i = int(np.searchsorted(r.starts, cycle, side="right")) - 1
        if i < 0 or cycle >= r.ends[i]:
            return None
        state = STATES[r.states[i]] if r.states[i] != NONE else "?"
        return int(r.blocks[i]), int(r.warps[i]), state

    def breakdown(self, block: int, warp: int) -> pl.DataFrame:
        """Cycles per state of one warp over its life (state, cycles, share_pct), largest first."""
        runs = self.frame.filter((pl.col("block") == block) & (pl.col("warp") == warp))
        out = (
            runs.group_by("state")
            .agg((pl.col("end_cycle") - pl.col("start_cycle")).sum().alias("cycles"))
            .sort(["cycles", "state"], descending=[True, False])
        )
        total = out["cycles"].sum()
        return out.with_columns((100 * pl.col("cycles") / total if total else pl.lit(0.0)).alias("share_pct"))
