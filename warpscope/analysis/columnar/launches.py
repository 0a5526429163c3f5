"""What the columnar rules read: many launches' values as numpy arrays, as their views see them.

Made in the process that asks (from ``candidacy.launch_rows``, Polars) and read with numpy alone,
so a forked worker can evaluate a slice of it (Polars' thread pool does not survive a fork).
Every derived quantity mirrors ``LaunchView``'s, operation for operation, so a float comes out
bit for bit as the view's does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import polars as pl

from warpscope.analysis.views import LATENCY_HIDDEN_DRAM_PCT, LAUNCH_FLOOR_NS, MAX_GAIN, PRACTICAL_ROOF_PCT
from warpscope.occupancy.calculator import Occupancy

NONE = np.nan
#: the largest count a view reads as a count (``views._positive``)
_COUNT_LIMIT = float(2**53)


@dataclass
class Launches:
    """``n`` launches: their ids, values (NaN where the launch has none), stall reasons,
    block shape, calculated occupancy (an index into ``configs``, -1 without), library and kernel."""

    launch_id: np.ndarray
    values: dict[str, np.ndarray]
    stalls: dict[str, np.ndarray]
    block_x: np.ndarray
    block_y: np.ndarray
    occ: np.ndarray
    configs: list[Occupancy]
    library: list[str | None]
    kernel_short: list[str]
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _tops: dict[int, tuple[list[str | None], np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return len(self.launch_id)

    def get(self, name: str) -> np.ndarray:
        """The launch's value of ``name``, NaN where it has none."""
        column = self.values.get(name)
        return np.full(self.n, NONE) if column is None else np.asarray(column)

    def take(self, rows: np.ndarray | slice) -> Launches:
        """The launches at ``rows`` (a slice or indices)."""
        return Launches(
            self.launch_id[rows],
            {k: v[rows] for k, v in self.values.items()},
            {k: v[rows] for k, v in self.stalls.items()},
            self.block_x[rows],
            self.block_y[rows],
            self.occ[rows],
            self.configs,
            [self.library[i] for i in np.arange(self.n)[rows]],
            [self.kernel_short[i] for i in np.arange(self.n)[rows]],
        )

    # -- counts, as the view rounds them (``views._positive``)

    @cached_property
    def block_size(self) -> np.ndarray:
        return _positive(self.get("block_size"))

    @cached_property
    def grid_size(self) -> np.ndarray:
        return _positive(self.get("grid_size"))

    @cached_property
    def sm_count(self) -> np.ndarray:
        return _positive(self.get("sm_count"))

    @cached_property
    def warps_per_block(self) -> np.ndarray:
        return -(-self.block_size // 32)

    # -- the view's derived quantities

    @cached_property
    def issue_idle(self) -> np.ndarray:
        busy = self.get("issue_slot_utilization_pct")
        return np.maximum(0.0, 1.0 - busy / PRACTICAL_ROOF_PCT)

    @cached_property
    def busiest_pct(self) -> np.ndarray:
        return np.asarray(np.fmax(self.get("sm_throughput_pct"), self.get("memory_throughput_pct")))

    @cached_property
    def roof_headroom(self) -> np.ndarray:
        headroom = 1.0 - self.busiest_pct / PRACTICAL_ROOF_PCT
        dram = self.get("dram_throughput_pct")
        limited = np.where(
            np.isnan(dram), headroom, np.minimum(headroom, 1.0 - dram / LATENCY_HIDDEN_DRAM_PCT)
        )
        return np.where(np.isnan(headroom), NONE, np.maximum(0.0, limited))

    @cached_property
    def work_share(self) -> np.ndarray:
        duration = self.get("duration_ns")
        ok = ~np.isnan(duration) & (duration != 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.maximum(0.0, 1.0 - LAUNCH_FLOOR_NS / duration)
        return np.where(ok, share, 1.0)

    @cached_property
    def floor_ceiling(self) -> np.ndarray:
        duration = self.get("duration_ns")
        ok = ~np.isnan(duration) & (duration != 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ceiling = np.maximum(0.0, np.minimum(MAX_GAIN, 1.0 - LAUNCH_FLOOR_NS / duration))
        return np.where(ok, ceiling, MAX_GAIN)

    @cached_property
    def cycles_per_issue(self) -> np.ndarray:
        """The stated CPI (launches with stalls and none are left to the views: their sum's order)."""
        return self.get("warp_cycles_per_issued_instruction")

    @cached_property
    def ranked_stalls(self) -> tuple[list[str], np.ndarray]:
        """Stall reasons in name order, and per launch the reasons' columns ranked as
        ``LaunchView.top_stalls`` ranks them (largest first, ties by name; -1 past the last)."""
        names = sorted(r for r in self.stalls if r != "selected")
        if not names:
            return names, np.full((self.n, 0), -1)
        cycles = np.column_stack([self.stalls[r] for r in names])
        usable = ~np.isnan(cycles) & (cycles > 0)
        keyed = np.where(usable, -cycles, np.inf)
        order = np.argsort(keyed, axis=1, kind="stable")  # names sorted: a stable sort breaks ties by name
        ranked = np.where(np.take_along_axis(usable, order, axis=1), order, -1)
        return names, ranked

    def top_stall(self, k: int = 0) -> tuple[list[str | None], np.ndarray]:
        """The ``k``-th largest stall reason of each launch (None past its last) and its cycles."""
        if k not in self._tops:
            names, ranked = self.ranked_stalls
            if ranked.shape[1] <= k:
                self._tops[k] = ([None] * self.n, np.full(self.n, NONE))
            else:
                column = ranked[:, k]
                cycles = np.column_stack([self.stalls[r] for r in names])
                value = np.where(column >= 0, cycles[np.arange(self.n), np.maximum(column, 0)], NONE)
                self._tops[k] = ([names[i] if i >= 0 else None for i in column.tolist()], value)
        return self._tops[k]

    def stall(self, reason: str) -> np.ndarray:
        column = self.stalls.get(reason)
        return np.full(self.n, NONE) if column is None else column

    def stall_share(self, reason: str) -> np.ndarray:
        cpi = self.cycles_per_issue
        ok = ~np.isnan(cpi) & (cpi != 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(ok, self.stall(reason) / cpi, NONE)

    # -- the occupancy calculator's answer, per launch

    def occ_attr(self, attr: str) -> np.ndarray:
        """An attribute of each launch's occupancy (NaN without one)."""
        key = f"occ.{attr}"
        if key not in self._cache:
            per_config = np.array([float(getattr(o, attr)) for o in self.configs] + [NONE])
            self._cache[key] = per_config[self.occ]  # -1: the NaN at the end
        return self._cache[key]

    def occ_flag(self, test: Callable[[Occupancy], bool]) -> np.ndarray:
        """``test(occupancy)`` of each launch's occupancy (False without one), once per configuration."""
        flags: np.ndarray = np.array([bool(test(o)) for o in self.configs] + [False], dtype=bool)
        return np.asarray(flags[self.occ])


def _positive(value: np.ndarray) -> np.ndarray:
    """``views._positive``: a count the launch can have, else NaN (integral values only reach
    the columnar engine: others are left to the views)."""
    return np.where((value >= 1) & (value < _COUNT_LIMIT), value, NONE)


def from_rows(rows: pl.DataFrame, occupancy: dict[int, Occupancy], names: list[str]) -> Launches:
    """The launches of ``rows`` (``candidacy.launch_rows``' table) with the values ``names``."""
    ids = rows["launch_id"].to_numpy()
    configs: list[Occupancy] = []
    index: dict[int, int] = {}
    occ = np.empty(len(ids), dtype=np.int64)
    for i, launch_id in enumerate(ids.tolist()):
        o = occupancy.get(launch_id)
        if o is None:
            occ[i] = -1
            continue
        key = id(o)
        if key not in index:
            index[key] = len(configs)
            configs.append(o)
        occ[i] = index[key]

    def floats(column: str) -> np.ndarray:
        return rows[column].cast(pl.Float64).to_numpy() if column in rows.columns else np.full(len(ids), NONE)

    return Launches(
        ids,
        {n: floats(n) for n in names if n in rows.columns},
        {c.removeprefix("stalls."): floats(c) for c in rows.columns if c.startswith("stalls.")},
        floats("_block_x"),
        floats("_block_y"),
        occ,
        configs,
        rows["_library"].to_list(),
        rows["_kernel_short"].to_list(),
    )
