"""The steps of a run: a training or inference loop launches the same kernels in the same
order every iteration, so a profile of several iterations is one step repeated.

``find_steps`` finds the repetition in the sequence of launches (kernel, grid, block), with
no markers: the shortest period that the end of the run repeats with, taken over the longest
stretch it explains. The first iteration often differs (lazy initialisation, the optimizer
creating its state, library heuristics): launches before the repetition are the warm-up,
and step boundaries are placed where the run's own first launches recur, so a step starts
where the program's loop body does. ``summarize`` reports one step: its launches, its
kernel time and that time by family of work (``model/families.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from warpscope.model.families import FAMILIES, family_of

#: a repetition counts as the run's step only if it explains at least this share of the
#: launches and repeats at least twice (a per-parameter optimizer repeats a handful of
#: kernels for each parameter: a period, but not the step)
MIN_COVERAGE = 0.5
MIN_REPEATS = 2


@dataclass(frozen=True)
class Steps:
    """Where the repetition is: ``count`` full steps of ``period`` launches from ``first``."""

    period: int
    first: int
    count: int

    def bounds(self) -> list[tuple[int, int]]:
        """(start, end) launch positions of each full step."""
        return [(self.first + i * self.period, self.first + (i + 1) * self.period) for i in range(self.count)]


def find_steps(codes: np.ndarray) -> Steps | None:
    """The repeated step of a launch sequence (one integer per distinct kernel, grid and block),
    or None when the run does not repeat (a single pass, a test program)."""
    n = len(codes)
    if n < 2 * MIN_REPEATS:
        return None
    best: tuple[int, int] | None = None  # (period, start of the periodic stretch)
    # a period p makes the last launch equal the one p before it: only those are tried
    for p in (n - 1 - np.flatnonzero(codes[: n - 1] == codes[n - 1]))[::-1]:
        p = int(p)
        if p > n // MIN_REPEATS:
            break
        if not np.array_equal(codes[n - p :], codes[n - 2 * p : n - p]):
            continue
        differ = np.flatnonzero(codes[: n - p] != codes[p:])
        start = int(differ[-1]) + 1 if len(differ) else 0
        if best is None or start < best[1]:
            best = (p, start)
        if start == 0:
            break
    if best is None:
        return None
    period, start = best
    covered = n - start
    if covered < MIN_REPEATS * period or covered < MIN_COVERAGE * n or len(np.unique(codes[start:n])) < 2:
        return None
    first = _aligned(codes, period, start)
    if (n - first) // period < MIN_REPEATS:
        first = start
    return Steps(period, first, (n - first) // period)


def _aligned(codes: np.ndarray, period: int, start: int) -> int:
    """The phase of the repetition at which the run's opening launches recur (the top of the
    loop body), searched within one period from ``start``. The run's first launches may be
    set-up that never recurs (making the data): the first of them that does recur is used."""
    window = min(period, 64)
    for i in range(min(start, 32) + 1):
        best, best_len = start, 0
        for j in np.flatnonzero(codes[start : start + period] == codes[i]) + start:
            head = codes[j : j + window]
            differ = np.flatnonzero(head != codes[i : i + len(head)])
            length = int(differ[0]) if len(differ) else len(head)
            if length > best_len:
                best, best_len = int(j), length
        if best_len >= min(2, window):
            return best
    return start


@dataclass(frozen=True)
class RunSummary:
    """One run's launches: in all, and per step where the run repeats."""

    launches: int
    kernel_ns: float
    steps: Steps | None
    #: launches and kernel time of one step (the mean of the full steps), or of the whole run
    step_launches: int
    step_ns: float
    warmup_launches: int
    warmup_ns: float
    #: per step (or run): family, launches, time in ns, share of the step's kernel time in %
    families: pl.DataFrame
    #: per step (or run): duration of each launch, ns (for the launch-size percentiles)
    durations: np.ndarray


def summarize(launches: pl.DataFrame) -> RunSummary:
    """``launches``: one run's rows of the ``launches`` table."""
    ordered = launches.sort("launch_id")
    # only equality matters: the name by its category code (ranking long names sorted them)
    name = pl.col("kernel").cast(pl.Categorical).to_physical()
    keys = ordered.select(
        pl.struct(name, "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")
        .rank("dense")
        .alias("code")
    )["code"].to_numpy()
    steps = find_steps(keys)
    durations = ordered["duration_ns"].fill_null(0.0).to_numpy().astype(float)
    names = ordered["kernel_short"].fill_null("")
    families = names.replace_strict({n: family_of(n) for n in names.unique()}, return_dtype=pl.String)
    if steps is None:
        picked = np.arange(len(ordered))
        per, count, warm = 1, 1, 0
    else:
        picked = np.arange(steps.first, steps.first + steps.count * steps.period)
        per, count, warm = steps.period, steps.count, steps.first
    table = (
        pl.DataFrame({"family": families.gather(picked), "ns": durations[picked]})
        .group_by("family", maintain_order=True)  # the step's time summed in one order: the same each run
        .agg(pl.len().alias("launches"), pl.col("ns").sum())
        .with_columns(
            (pl.col("launches") / count).alias("launches"),
            (pl.col("ns") / count).alias("time_ns"),
        )
        .drop("ns")
    )
    step_ns = float(table["time_ns"].sum())
    table = table.with_columns(
        (100 * pl.col("time_ns") / step_ns if step_ns else pl.lit(None)).alias("share_pct")
    )
    order = {family: i for i, family in enumerate(FAMILIES)}
    table = table.sort(
        [pl.col("time_ns"), pl.col("family").replace_strict(order, return_dtype=pl.Int32)],
        descending=[True, False],
    )
    return RunSummary(
        launches=len(ordered),
        kernel_ns=float(durations.sum()),
        steps=steps,
        step_launches=len(picked) // count if steps else len(ordered),
        step_ns=step_ns,
        warmup_launches=warm,
        warmup_ns=float(durations[:warm].sum()),
        families=table,
        durations=durations[picked[: per if steps else len(picked)]] if steps else durations,
    )
