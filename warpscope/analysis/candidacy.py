"""Which launch rules could fire on which launches, decided for every launch at once.

Each launch rule may have a *candidacy* predicate here: a Polars expression over one row per
launch (its canonical values, the launch row's fallbacks, its stall reasons and its calculated
occupancy, as a ``LaunchView`` sees them) that is true on every launch where the rule could
fire. A predicate is a superset of its rule's condition, never the condition itself: a metric
the predicate reads that the launch lacks keeps the launch unless the rule returns nothing
without it, and comparisons keep a margin. The engine then runs a rule only where its predicate
holds, and builds views and grades findings only for launches some rule may fire on: a long
profile's launches that nothing fires on cost no Python. A rule without a predicate runs on
every launch. ``tests/test_candidacy.py`` compares the prefiltered engine with the full one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

import polars as pl

from warpscope.analysis import atomics, divergence, ilp, launch_config, tensor_cores
from warpscope.analysis.views import FROM_LAUNCH
from warpscope.model.profile import Profile
from warpscope.model.values import stated_values
from warpscope.occupancy.calculator import Occupancy

#: a relative margin on every threshold a predicate compares against a ratio it recomputes
#: (Polars and Python may add the same floats in another order)
EPS = 1e-6


class Row:
    """The columns a predicate reads: ``row("metric")`` is the launch's value or null."""

    def __init__(self, columns: set[str]) -> None:
        self.columns = columns

    def __call__(self, name: str) -> pl.Expr:
        return pl.col(name) if name in self.columns else pl.lit(None, pl.Float64)

    def stall(self, reason: str) -> pl.Expr:
        return self(f"stalls.{reason}")

    @property
    def stalls(self) -> list[str]:
        return [c for c in self.columns if c.startswith("stalls.")]


Predicate = Callable[[Row], pl.Expr]


def _maybe(e: pl.Expr) -> pl.Expr:
    """A condition that keeps the launch where it cannot be decided (a value missing)."""
    return e.fill_null(True)


def _sure(e: pl.Expr) -> pl.Expr:
    """A condition the rule needs its values for: a missing value means the rule returns nothing."""
    return e.fill_null(False)


def _truthy(e: pl.Expr) -> pl.Expr:
    """``bool(x)`` of a value that may be missing (None and 0 are false)."""
    return _sure(e != 0)


def _cpi(r: Row) -> pl.Expr:
    """Warp cycles per issued instruction as ``LaunchView.cycles_per_issue`` gives it."""
    summed = pl.sum_horizontal([r(c) for c in r.stalls]) if r.stalls else pl.lit(0.0)
    return pl.coalesce(r("warp_cycles_per_issued_instruction"), pl.when(summed > 0).then(summed))


def _share_at_least(r: Row, reason: str, share: float) -> pl.Expr:
    """The stall ``reason`` takes at least ``share`` of the warp cycles (with the margin)."""
    cpi = _cpi(r)
    return _sure(_truthy(cpi) & (r.stall(reason) / cpi >= share * (1 - EPS)))


def _top_stall_may_be(r: Row, reason: str) -> pl.Expr:
    """``reason`` may be the top stall (not counting ``selected``): it is there and positive."""
    return _sure(r.stall(reason) > 0)


def _global_atomics(r: Row) -> pl.Expr:
    red = r("global_reduction_requests").fill_null(0.0)
    atom = pl.coalesce(r("global_atomic_l1_requests"), r("global_atomic_requests"), pl.lit(0.0))
    busiest = r("l2_atomic_busiest_slice_pct")
    return (
        _sure(red + atom > 0)
        & _truthy(r("instructions_executed"))
        & _truthy(r("duration_ns"))
        & _sure(busiest >= atomics.CONTENDED_SLICE_PCT * (1 - EPS))
    )


def _shared_atomics(r: Row) -> pl.Expr:
    requests, wavefronts = r("shared_atomic_requests"), r("shared_atomic_wavefronts")
    return _truthy(requests) & _truthy(wavefronts) & _sure(wavefronts > requests)


def _throughputs(r: Row) -> tuple[pl.Expr, pl.Expr]:
    return r("sm_throughput_pct"), r("memory_throughput_pct")


def _memory_bound(r: Row) -> pl.Expr:
    sm, mem = _throughputs(r)
    return _sure(((mem >= 80) | ((mem >= 55) & (mem - sm >= 10 * (1 - EPS)))) & (sm <= mem))


def _compute_bound(r: Row) -> pl.Expr:
    sm, mem = _throughputs(r)
    return _sure(((sm >= 80) | ((sm >= 60) & (sm - mem >= 10 * (1 - EPS)))) & (mem <= sm))


def _latency_bound(r: Row) -> pl.Expr:
    sm, mem = _throughputs(r)
    return _sure((sm < 60) & (mem < 60))


def _stall_reason(r: Row) -> pl.Expr:
    issue = r("issue_slot_utilization_pct")
    reasons = [
        c.removeprefix("stalls.") for c in r.stalls if c not in ("stalls.selected", "stalls.not_selected")
    ]
    if not reasons:
        return pl.lit(False)
    return _maybe(issue < 80) & pl.any_horizontal([_share_at_least(r, x, 0.30) for x in reasons])


def _lowest_lanes(r: Row) -> pl.Expr:
    """The lower of the active and predicated-on lane efficiencies (null where neither is known)."""
    return pl.min_horizontal(r("warp_execution_efficiency_pct"), r("warp_nonpred_execution_efficiency_pct"))


def _warp_divergence(r: Row) -> pl.Expr:
    return _sure(_lowest_lanes(r) < divergence.LINE)


def _bounds_check_divergence(r: Row) -> pl.Expr:
    return _sure(_lowest_lanes(r) >= 90) & _truthy(r("divergent_branches"))


def _one_output_per_block(r: Row) -> pl.Expr:
    """``divergence.one_output_per_block``, widened: one store per block or fewer."""
    per_block = r("global_store_requests") / r("grid_size").ceil()  # the view rounds the grid
    return _sure((per_block > 0) & (per_block <= 1.0 + 1e-6)) & _maybe(r("block_size") > 32)


def _ilp(r: Row) -> pl.Expr:
    busiest = pl.max_horizontal(*_throughputs(r))
    return (
        _sure(r("issue_slot_utilization_pct") < ilp.NO_ROOF_PCT)
        & _sure(busiest < ilp.NO_ROOF_PCT)
        & _top_stall_may_be(r, ilp.DEPENDENCY_STALL)
        & _share_at_least(r, ilp.DEPENDENCY_STALL, ilp.MIN_SHARE)
    )


def _not_warp_multiple(r: Row) -> pl.Expr:
    return _sure(r("block_size") % launch_config.WARP != 0)  # a multiple stays one when rounded


def _outside_128_256(r: Row) -> pl.Expr:
    size = r("block_size")  # the view rounds it: half a thread of margin
    small_blocks_say_it = _sure(
        (size < 127.5) & (r("occ.blocks_limits") > 0) & (r("occ.occupancy_pct") < 100)
    )
    return _sure((size < 128.5) | (size > 255.5)) & ~small_blocks_say_it


def _blocks_limit(r: Row) -> pl.Expr:
    return _sure((r("occ.blocks_limits") > 0) & (r("occ.occupancy_pct") < 100))


def _grid_sms(r: Row) -> tuple[pl.Expr, pl.Expr]:
    """Grid size and SM count as stated: the view rounds them, so comparisons keep a margin of 1."""
    return r("grid_size"), r("sm_count")


def _grid_smaller_than_sms(r: Row) -> pl.Expr:
    grid, sms = _grid_sms(r)
    return _sure(grid < sms + 1)


def _grid_few_blocks_per_sm(r: Row) -> pl.Expr:
    grid, sms = _grid_sms(r)
    return _sure((grid > sms - 1) & (grid < 4 * sms + 3))


def _tail_effect(r: Row) -> pl.Expr:
    grid, sms = _grid_sms(r)
    # from the grid where the occupancy is known (one wave or more), else the stated waves
    by_grid = _sure(grid + 1 >= (sms - 1) * r("occ.active_blocks_per_sm"))
    return by_grid | _sure(r("waves_per_sm") >= 1 - EPS)


def _local_memory(r: Row) -> pl.Expr:
    moved = r("local_load_requests").fill_null(0.0) + r("local_store_requests").fill_null(0.0)
    return _sure(moved > 0) & _truthy(r("instructions_executed")) & _truthy(r("duration_ns"))


def _sectors_per_request(r: Row, op: str) -> pl.Expr:
    """``memory._global_op``'s sectors per request (null where it has none)."""
    requests, sectors = r(f"global_{op}_requests"), r(f"global_{op}_sectors")
    derived = pl.when(_truthy(requests) & sectors.is_not_null()).then(sectors / requests)
    return pl.coalesce(r(f"global_{op}_sectors_per_request"), derived)


def _uncoalesced(r: Row) -> pl.Expr:
    # with excess sectors counted: any excess; otherwise an op above the least ideal (1 sector)
    spr = pl.max_horizontal(_sectors_per_request(r, "load"), _sectors_per_request(r, "store"))
    return _sure(r("global_excess_sectors") > 0) | _sure(spr > 1.1 * (1 - EPS))


def _bank_conflicts(r: Row) -> pl.Expr:
    def op(name: str) -> pl.Expr:
        requests, wavefronts = r(f"shared_{name}_requests"), r(f"shared_{name}_wavefronts")
        conflicts = pl.coalesce(r(f"shared_{name}_bank_conflicts"), wavefronts - requests)
        share = _maybe((conflicts / wavefronts >= 0.10 * (1 - EPS)) | (wavefronts < 0) | (requests < 0))
        return _truthy(requests) & _truthy(wavefronts) & share

    return op("load") | op("store")


def _theoretical(r: Row) -> pl.Expr:
    return pl.coalesce(r("theoretical_occupancy_pct"), r("occ.occupancy_pct"))


def _occupancy_limited(r: Row) -> pl.Expr:
    return _sure(_theoretical(r) < 80)


def _not_limiting(r: Row) -> pl.Expr:
    theo, achieved = _theoretical(r), r("achieved_occupancy_pct")
    short = _sure(theo < 100) | _sure(theo - achieved > 10 * (1 - EPS))
    reason = (
        _sure(r("issue_slot_utilization_pct") >= 60)
        | _sure(pl.max_horizontal(*_throughputs(r)) >= 80)
        | _top_stall_may_be(r, "not_selected")
    )
    return short & reason


def _achieved_gap(r: Row) -> pl.Expr:
    theo, achieved = r("theoretical_occupancy_pct"), r("achieved_occupancy_pct")
    return _sure((theo - achieved > 10 * (1 - EPS)) & (theo > 0))


def _serial_reduction(r: Row) -> pl.Expr:
    return _one_output_per_block(r) & _sure(_lowest_lanes(r) < 50)


def _tree_reduction(r: Row) -> pl.Expr:
    return (
        _one_output_per_block(r)
        & _truthy(r("shared_load_requests"))
        & _truthy(r("shared_store_requests"))
        & (_truthy(r.stall("barrier")) | _truthy(r("barriers_per_block")))
    )


def _fp32_matrix(r: Row) -> pl.Expr:
    library = pl.col("_library").is_in(tensor_cores.LIBRARIES)
    return _sure(library) & _sure(r("fma_pipe_active_pct") >= tensor_cores.FMA_BUSY_PCT * (1 - EPS))


#: rule id -> its candidacy predicate (a rule not here runs on every launch)
PREDICATES: dict[str, Predicate] = {
    "global_atomics": _global_atomics,
    "shared_atomics": _shared_atomics,
    "memory_bound": _memory_bound,
    "compute_bound": _compute_bound,
    "latency_bound": _latency_bound,
    "stall_reason": _stall_reason,
    "warp_divergence": _warp_divergence,
    "bounds_check_divergence": _bounds_check_divergence,
    "ilp": _ilp,
    "block_size_not_warp_multiple": _not_warp_multiple,
    "block_size_outside_128_256": _outside_128_256,
    "blocks_too_small_for_sm": _blocks_limit,
    "grid_smaller_than_sms": _grid_smaller_than_sms,
    "grid_few_blocks_per_sm": _grid_few_blocks_per_sm,
    "tail_effect": _tail_effect,
    "local_memory": _local_memory,
    "uncoalesced_global_access": _uncoalesced,
    "shared_bank_conflicts": _bank_conflicts,
    "occupancy_limited": _occupancy_limited,
    "occupancy_not_limiting": _not_limiting,
    "achieved_occupancy_gap": _achieved_gap,
    "serial_reduction": _serial_reduction,
    "shared_memory_tree_reduction": _tree_reduction,
    "fp32_matrix_on_simt_cores": _fp32_matrix,
}


def read_by_predicates() -> frozenset[str]:
    """The canonical values the predicates read (stall reasons aside: ``launch_rows`` keeps them all)."""
    names: set[str] = set()

    class Recorder(Row):
        def __call__(self, name: str) -> pl.Expr:
            names.add(name)
            return pl.col(name)

        @property
        def stalls(self) -> list[str]:
            return []

    recorder = Recorder(set())
    for predicate in PREDICATES.values():
        predicate(recorder)
    return frozenset(n for n in names if not n.startswith(("stalls.", "occ.")))


def launch_rows(
    profile: Profile,
    occupancy: Mapping[int, Occupancy],
    library: Mapping[int, str | None],
    metrics_read: frozenset[str] | None = None,
) -> pl.DataFrame:
    """One row per launch (launch order): the values the predicates read, as its view has them
    (``metrics_read``: only these canonical values, and every stall reason; all by default)."""
    stated = stated_values(profile)
    if metrics_read is not None:  # a long profile's pivot of every value took most of the time
        stated = stated.filter(pl.col("metric").is_in(sorted(metrics_read)))
    metrics = stated.collect()
    stalls = profile.stalls.filter(pl.col("cycles_per_issue").is_finite()).select(
        "launch_id", ("stalls." + pl.col("reason").cast(pl.String)).alias("metric"), "cycles_per_issue"
    )
    # a repeated value: the first, as a view keeps it; a repeated stall reason the last (a dict's)
    wide = metrics.select("launch_id").unique()
    pivots: tuple[tuple[pl.DataFrame, str, Literal["first", "last"]], ...] = (
        (metrics, "value", "first"),
        (stalls, "cycles_per_issue", "last"),
    )
    for long, values, keep in pivots:
        if long.height:
            part = long.pivot(on="metric", index="launch_id", values=values, aggregate_function=keep)
            wide = wide.join(part, on="launch_id", how="full", coalesce=True)
    launches = profile.launches.select(
        "launch_id",
        pl.when(pl.all_horizontal(pl.col("block_x", "block_y", "block_z").is_not_null()))
        .then(pl.col("block_x").cast(pl.Float64) * pl.col("block_y") * pl.col("block_z"))
        .alias("_block_size"),
        pl.when(pl.all_horizontal(pl.col("grid_x", "grid_y", "grid_z").is_not_null()))
        .then(pl.col("grid_x").cast(pl.Float64) * pl.col("grid_y") * pl.col("grid_z"))
        .alias("_grid_size"),
        *[pl.col(c).cast(pl.Float64).alias(f"_{c}") for c in FROM_LAUNCH],
    ).sort("launch_id")
    ids = launches["launch_id"].to_list()
    # per configuration (a long profile has a few hundred), then taken for each launch
    configs: dict[int, int] = {}
    distinct: list[Occupancy] = []
    at: list[int | None] = []
    for i in ids:
        o = occupancy.get(i)
        if o is None:
            at.append(None)
            continue
        if id(o) not in configs:
            configs[id(o)] = len(distinct)
            distinct.append(o)
        at.append(configs[id(o)])
    where = pl.Series("_config", at, pl.Int64)

    def per_config(name: str, values: list[float]) -> pl.Series:
        return pl.Series(values, dtype=pl.Float64).gather(where).alias(name)

    launches = launches.with_columns(
        per_config("occ.occupancy_pct", [o.occupancy_pct for o in distinct]),
        per_config("occ.active_blocks_per_sm", [float(o.active_blocks_per_sm) for o in distinct]),
        per_config("occ.blocks_limits", [float("blocks" in o.limiters) for o in distinct]),
        pl.Series("_library", [library.get(i) for i in ids], pl.String),
    )
    # what the columnar rules read besides the values (``analysis.columnar``)
    launches = launches.join(
        profile.launches.select(
            "launch_id",
            pl.col("kernel_short").fill_null("").alias("_kernel_short"),
            pl.col("block_x").alias("_block_x"),
            pl.col("block_y").alias("_block_y"),
            pl.col("source_format").alias("_format"),
        ),
        on="launch_id",
        how="left",
        maintain_order="left",
    )
    # a launch column that is not a finite number (a damaged file) reads differently in Python:
    # such a launch is a candidate for every rule
    odd = ~pl.all_horizontal([pl.col(f"_{c}").is_finite().fill_null(True) for c in FROM_LAUNCH])
    launches = launches.with_columns(odd.alias("_odd"))
    rows = launches.join(wide, on="launch_id", how="left", maintain_order="left")
    fallbacks = {"block_size": "_block_size", "grid_size": "_grid_size", **{c: f"_{c}" for c in FROM_LAUNCH}}
    rows = rows.with_columns(
        [
            (pl.coalesce(name, fallback) if name in rows.columns else pl.col(fallback)).alias(name)
            for name, fallback in fallbacks.items()
        ]
    )
    # a launch row's non-finite value reads as nothing here: every predicate then keeps the launch
    floats = [c for c, t in rows.schema.items() if t == pl.Float64]
    return rows.with_columns(pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(c) for c in floats)


def candidate_flags(rows: pl.DataFrame, rule_ids: list[str]) -> pl.DataFrame:
    """``launch_id`` and, per rule of ``rule_ids``, whether it may fire on the launch (one row
    per row of ``rows``, in its order)."""
    r = Row(set(rows.columns))
    odd = pl.col("_odd")
    return rows.select(
        "launch_id",
        *[
            ((PREDICATES[i](r) if i in PREDICATES else pl.lit(True)).fill_null(True) | odd).alias(i)
            for i in rule_ids
        ],
    )


def candidates(rows: pl.DataFrame, rule_ids: list[str]) -> dict[int, tuple[str, ...]]:
    """launch_id -> the ids (of ``rule_ids``, in their order) of the rules that may fire on it;
    launches no rule may fire on are left out."""
    return flagged(candidate_flags(rows, rule_ids))


def flagged(flags: pl.DataFrame) -> dict[int, tuple[str, ...]]:
    """``candidates`` of a ``candidate_flags`` table."""
    rule_ids = flags.columns[1:]
    out: dict[int, tuple[str, ...]] = {}
    kept: dict[tuple[bool, ...], tuple[str, ...]] = {}
    for launch_id, *flag in flags.iter_rows():
        key = tuple(flag)
        if key not in kept:
            kept[key] = tuple(i for i, f in zip(rule_ids, key, strict=True) if f)
        if kept[key]:
            out[launch_id] = kept[key]
    return out
