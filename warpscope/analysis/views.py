"""What a rule sees: one launch's canonical metrics and stalls, or the whole run's transfers."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Generic, TypeVar, overload

import polars as pl

from warpscope.analysis.steps import RunSummary, summarize
from warpscope.model.libraries import library_of
from warpscope.model.profile import Profile
from warpscope.model.values import canonical_lists, stall_lists
from warpscope.occupancy.calculator import Occupancy
from warpscope.occupancy.profile_check import launch_occupancies

#: launch columns that are canonical quantities too: rules read them as metrics where the
#: profile states none (the candidacy predicates read the same fallbacks)
FROM_LAUNCH = (
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
    "sm_count",
    "duration_ns",
)


#: the share of peak the best streaming kernels reach on real hardware (H100, warpscope's probe
#: kernels in sample_traces/h100/advice_full_raw_base.csv.gz: 88.7–91.5% of DRAM peak), the roof in practice
PRACTICAL_ROOF_PCT = 90.0
#: the launch floor: what Nsight Compute measures for the shortest launch (an empty kernel took
#: 2.24-2.43 us on the H100, tools/gpu/measured/h100_launch_floor.txt); no fix takes a launch
#: below it. Measured on sm_90 only; other architectures are assumed alike.
LAUNCH_FLOOR_NS = 2240.0
#: the most any estimate (and a launch's estimates combined) claims: a 20x speedup. Past it the
#: time left is what the counters cannot see (the fix's own cost, its new bottleneck); the one
#: fix measured beyond it (privatised histogram atomics, 99.2%) is then 4 points under
MAX_GAIN = 0.95
#: the share of the DRAM peak a kernel reaches once enough warps hide its latency, with the
#: accesses it has: what a plain copy (one 4-byte load and store per thread, full occupancy)
#: reaches on the H100, 59–61% (the calibration suite's elementwise kernels). More bytes per
#: access (float4) go further: that is the memory-bound finding's fix, not more warps'.
LATENCY_HIDDEN_DRAM_PCT = 60.0
#: DRAM streams by Little's law: the rate grows with the bytes of loads in flight per SM and
#: saturates, as STREAM_PEAK_PCT × (1 − exp(−KiB in flight / STREAM_KIB)) of the DRAM peak once
#: the launch runs (after the launch floor). Fitted on the H100's coalesced streams of the
#: calibration suite: one 128-byte load per warp at 46 warps/SM (5.8 KiB) 61–63%, two (12 KiB)
#: 80%, float4 and unrolled rows (23–57 KiB) 83–91%
STREAM_PEAK_PCT = 88.0
STREAM_KIB = 4.9
#: loads a warp keeps in flight at most: loops are unrolled about 4× and batch their loads
#: (the column-major GEMV, two loads an iteration at 8 warps/SM, streams at 49%)
LOADS_IN_FLIGHT_PER_WARP = 8.0
#: the share of the L2 a streaming kernel leaves dirty when it ends: written back after ncu's
#: duration stops. Kernels fixed to stream faster left 15.6–18.7 MB of their 67 MB of stores in
#: the H100's 50 MB L2 (the calibration suite's coalesced and float4 "after" kernels)
DIRTY_L2_SHARE = 1 / 3
#: warp schedulers per SM (one instruction issued per cycle each), Maxwell to Blackwell
SCHEDULERS_PER_SM = 4


T = TypeVar("T")


class once(Generic[T]):
    """A property computed on first use and kept in the instance: ``functools.cached_property``
    without its lock (Python 3.11 takes an RLock on every first use, a third of a long profile's
    view time)."""

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: object, owner: type | None = None) -> T:
        value = self.fn(obj)
        obj.__dict__[self.name] = value  # the instance's own attribute from now on
        return value


@dataclass(frozen=True)
class LaunchView:
    """One launch as the rules see it. Its derived quantities (block size, CPI, ...) are
    computed once: the rules of a launch read them many times."""

    launch_id: int
    kernel: str
    block: tuple[int | None, int | None, int | None]
    grid: tuple[int | None, int | None, int | None]
    metrics: Mapping[str, float]  # canonical values, plus the launch row's (block size, ...)
    stalls: Mapping[str, float]  # reason -> warp cycles per issued instruction
    occupancy: Occupancy | None  # from the calculator, where the configuration is known
    stated: Mapping[str, float]  # the canonical values the profile holds, catalog order
    kernel_short: str = ""
    library: str | None = None  # vendor library that ships the kernel (model.libraries)
    source_format: str | None = None  # ncu-raw, nvprof-metrics, emulator, ...

    def __post_init__(self) -> None:
        # ``get`` is the metrics' own ``dict.get``: rules call it ~100 times a launch, and a
        # method around it cost a Python call each time
        object.__setattr__(self, "get", self.metrics.get)

    def get(self, metric: str) -> float | None:
        return self.metrics.get(metric)

    def known(self, *metrics: str) -> dict[str, float]:
        """The values of ``metrics`` the launch has (evidence for a finding)."""
        return {m: x for m in metrics if (x := self.metrics.get(m)) is not None}

    def has(self, *metrics: str) -> bool:
        return all(m in self.metrics for m in metrics)

    @once
    def block_size(self) -> int | None:
        return _positive(self.get("block_size"))

    @once
    def grid_size(self) -> int | None:
        return _positive(self.get("grid_size"))

    @once
    def sm_count(self) -> int | None:
        return _positive(self.get("sm_count"))

    @once
    def warps_per_block(self) -> int | None:
        size = self.block_size
        return None if size is None else -(-size // 32)

    @once
    def issue_idle(self) -> float | None:
        """The time (0..1) more issued instructions per cycle could still save before the
        schedulers reach the practical issue roof: 1 − issue-slot use / PRACTICAL_ROOF_PCT."""
        busy = self.get("issue_slot_utilization_pct")
        return None if busy is None else max(0.0, 1.0 - busy / PRACTICAL_ROOF_PCT)

    @once
    def cycles_per_issue(self) -> float | None:
        """Warp cycles per issued instruction (ncu's CPI), stated or summed over the stall reasons."""
        stated = self.get("warp_cycles_per_issued_instruction")
        if stated is not None:
            return stated
        total = sum(self.stalls.values())
        return total if total > 0 else None

    def stall_share(self, reason: str) -> float | None:
        cpi = self.cycles_per_issue
        if not cpi or reason not in self.stalls:
            return None
        return self.stalls[reason] / cpi

    @once
    def _ranked_stalls(self) -> list[tuple[str, float]]:
        return sorted(
            ((r, c) for r, c in self.stalls.items() if r != "selected" and c > 0),
            key=lambda rc: (-rc[1], rc[0]),
        )

    def top_stalls(self, n: int = 3) -> list[tuple[str, float]]:
        """The largest stall reasons (not counting ``selected``, which is issuing)."""
        return self._ranked_stalls[:n]

    def stores_per_block(self) -> float | None:
        """Global store instructions per block: about 1 is the mark of a block reduction."""
        stores, grid = self.get("global_store_requests"), self.grid_size
        return None if stores is None or not grid else stores / grid

    def capped(self, fraction: float) -> float:
        """A gain (0..1) capped by the idle issue slots, as Nsight Compute's rule tree does."""
        idle = self.issue_idle
        return min(fraction, idle) if idle is not None else fraction

    @once
    def busiest_pct(self) -> float | None:
        """The higher of SM and memory throughput (% of peak): how close the kernel is to a roof."""
        known = [
            x for x in (self.get("sm_throughput_pct"), self.get("memory_throughput_pct")) if x is not None
        ]
        return max(known) if known else None

    @once
    def roof_headroom(self) -> float | None:
        """The time (0..1) latency hiding could still save before the busiest unit reaches the
        practical roof (1 − busiest / PRACTICAL_ROOF_PCT) and DRAM the rate a plain stream
        reaches (1 − DRAM / LATENCY_HIDDEN_DRAM_PCT). Fewer stalls or more warps cannot make a
        kernel faster than its busiest unit allows."""
        busiest = self.busiest_pct
        if busiest is None:
            return None
        headroom = 1.0 - busiest / PRACTICAL_ROOF_PCT
        dram = self.get("dram_throughput_pct")
        if dram is not None:  # more warps or more ILP do not change how each warp streams
            headroom = min(headroom, 1.0 - dram / LATENCY_HIDDEN_DRAM_PCT)
        return max(0.0, headroom)

    def time_at_roofs_ns(self, *, dram_bytes: float | None, instructions: float | None) -> float | None:
        """The least time (ns) work of this size takes on the launch's GPU: ``dram_bytes`` at the
        practical DRAM roof, ``instructions`` (warp level) at the practical issue rate (one per
        cycle on each of an SM's four schedulers), after the launch's fixed cost (the launch
        floor: what an empty kernel takes). None where the profile lacks the roofs it needs."""
        times = [0.0]
        peak = self.get("peak_dram_bytes_per_s")
        if dram_bytes is not None:
            if not peak:
                return None
            times.append(1e9 * dram_bytes / (peak * PRACTICAL_ROOF_PCT / 100))
        clock, sms = self.get("sm_clock_hz") or self.get("sm_frequency_hz"), self.sm_count
        if instructions is not None:
            if not clock or not sms:
                return None
            times.append(1e9 * instructions / (SCHEDULERS_PER_SM * sms * clock * PRACTICAL_ROOF_PCT / 100))
        return LAUNCH_FLOOR_NS + max(times)  # its fixed start and drain, then the work

    def gain_to(self, after_ns: float | None) -> float | None:
        """The gain (0..1) of running in ``after_ns`` instead of the launch's duration."""
        duration = self.get("duration_ns")
        if after_ns is None or not duration:
            return None
        return max(0.0, min(self.floor_ceiling, 1.0 - after_ns / duration))

    @once
    def work_share(self) -> float:
        """The share (0..1) of the launch's time that is work rather than its fixed start and
        drain (the launch floor): what a fix that speeds up the work can shorten."""
        duration = self.get("duration_ns")
        return max(0.0, 1.0 - LAUNCH_FLOOR_NS / duration) if duration else 1.0

    @once
    def floor_ceiling(self) -> float:
        """The largest gain (0..1) any fix can bring: the launch cannot end before the launch
        floor, and no prediction claims more than MAX_GAIN."""
        duration = self.get("duration_ns")
        if not duration:
            return MAX_GAIN
        return max(0.0, min(MAX_GAIN, 1.0 - LAUNCH_FLOOR_NS / duration))

    def stream_rate_pct(self, load_bytes_per_request: float | None = None) -> float | None:
        """The share of the DRAM peak (%) the launch streams at when each load request moves
        ``load_bytes_per_request`` (default: what its loads move now): its resident warps' loads
        in flight (Little's law, saturating at STREAM_PEAK_PCT). None without the occupancy or loads."""
        warps, threads = self.get("achieved_active_warps"), self.get("threads")
        requests = self.get("global_load_requests")
        if warps is None:
            occupancy = self.get("achieved_occupancy_pct")
            warps = occupancy * 64 / 100 if occupancy is not None else None
        if load_bytes_per_request is None:
            sectors = self.get("global_load_sectors")
            load_bytes_per_request = 32 * sectors / requests if sectors and requests else None
        if not warps or not threads or not requests or not load_bytes_per_request:
            return None
        per_warp = min(LOADS_IN_FLIGHT_PER_WARP, requests / (threads / 32))
        in_flight_kib = warps * per_warp * load_bytes_per_request / 1024
        return STREAM_PEAK_PCT * (1.0 - math.exp(-in_flight_kib / STREAM_KIB))

    def dram_bytes_after(self, load_bytes: float | None, store_bytes: float | None) -> float | None:
        """The DRAM bytes a fix that makes the loads move ``load_bytes`` and the stores
        ``store_bytes`` (through L1; None: unchanged) leaves: reads no more than the loads, writes no
        more than the stores less what the L2 still holds dirty when the launch ends. None without
        the DRAM bytes."""
        reads, writes = self.get("dram_read_bytes"), self.get("dram_write_bytes")
        if reads is None or writes is None:
            total = self.get("dram_bytes")
            return None if total is None else min(total, (load_bytes or total) + (store_bytes or 0.0))
        if load_bytes is not None:
            reads = min(reads, load_bytes)
        if store_bytes is not None:
            dirty = DIRTY_L2_SHARE * (self.get("l2_cache_bytes") or 0.0)
            writes = min(writes, max(0.0, store_bytes - dirty))
        return reads + writes

    @once
    def dram_roof_pct(self) -> float:
        """The DRAM rate (% of peak) the launch can reach with the loads it has: the rate its
        loads in flight stream at (at least what it reaches now), at most the practical roof."""
        now = self.get("dram_throughput_pct") or 0.0
        stream = self.stream_rate_pct()
        if not stream:
            return PRACTICAL_ROOF_PCT
        return max(now, min(PRACTICAL_ROOF_PCT, stream))

    def within_untouched_roofs(self, fraction: float, *untouched: str) -> float:
        """A gain (0..1) no larger than the units a fix leaves alone allow: with ``untouched``
        throughputs (% of peak) still to deliver, the kernel cannot run faster than the busiest
        of them at the practical roof, DRAM at the rate its loads in flight stream at (coalescing
        leaves the SM's instructions, padding the DRAM traffic) — nor, where ready warps already wait for issue slots (top stall
        ``not_selected``), faster than its busiest unit runs now."""
        roofs = {
            m: self.dram_roof_pct if m == "dram_throughput_pct" else PRACTICAL_ROOF_PCT for m in untouched
        }
        known = {m: x for m in untouched if (x := self.get(m)) is not None}
        if not known:
            return fraction
        busiest = self.busiest_pct
        top = self.top_stalls(1)
        if top and top[0][0] == "not_selected" and busiest:
            # ready warps wait for an issue slot: latency is hidden and the kernel runs as fast
            # as its busiest unit lets it, so it cannot outrun what an untouched unit does now
            roofs = {m: min(roof, busiest) for m, roof in roofs.items()}
        return min(fraction, max(0.0, 1.0 - max(x / roofs[m] for m, x in known.items())))

    def latency_gain(self, fraction: float) -> float:
        """A latency-hiding gain (0..1) capped by the idle issue slots and the roof headroom."""
        headroom = self.roof_headroom
        capped = self.capped(fraction)
        return min(capped, headroom) if headroom is not None else capped


class Stated(Mapping[str, float]):
    """The values a launch's profile states: its view's metrics without the few taken from the
    launch row (block size, ...). A view of the one dict, not a copy: a long profile's views held
    every launch's values twice."""

    __slots__ = ("_added", "_all")

    def __init__(self, values: Mapping[str, float], added: frozenset[str]) -> None:
        self._all = values
        self._added = added

    def __getitem__(self, metric: str) -> float:
        if metric in self._added:
            raise KeyError(metric)
        return self._all[metric]

    def __contains__(self, metric: object) -> bool:
        return metric not in self._added and metric in self._all

    def __iter__(self) -> Iterator[str]:
        return (m for m in self._all if m not in self._added)

    def __len__(self) -> int:
        return len(self._all) - len(self._added)


def _positive(value: float | None) -> int | None:
    """A count that can describe a launch (a damaged file may say 0, -5 or 1e308): else None."""
    if value is None or not math.isfinite(value) or not 1 <= value < 2**53:
        return None
    return round(value)


@dataclass(frozen=True)
class RunView:
    """One profiled run (one source file): its host-device transfers and kernel launches."""

    source: str
    transfers: pl.DataFrame
    kernels: pl.DataFrame  # launch_id, start_ns, duration_ns, stream
    launches: pl.DataFrame  # the run's rows of the launches table

    @cached_property
    def summary(self) -> RunSummary:
        """Its steps (where it repeats) and one step's time by family of work."""
        return summarize(self.launches)


def launch_views(profile: Profile) -> list[LaunchView]:
    """Every launch of the profile, in launch order."""
    return LazyViews(profile)[:]


#: launch columns a view reads
_ROW = (
    "launch_id",
    "kernel",
    "kernel_short",
    "source_format",
    *(f"{a}_{d}" for a in ("block", "grid") for d in "xyz"),
)


class LazyViews(Sequence[LaunchView]):
    """The views of a profile's launches (``ids``: of these only; every launch by default), in
    launch order, each made when a slice that holds it is asked for. What the views read is
    gathered here once as Arrow tables (``occupancy``: the profile's ``launch_occupancies``,
    where the caller has them); a slice is made from them with pyarrow alone, so a forked
    worker can make the views of its own launches (Polars' thread pool does not survive a fork),
    and the process that forked it never holds them all."""

    def __init__(
        self, profile: Profile, ids: list[int] | None = None, occupancy: dict[int, Occupancy] | None = None
    ) -> None:
        launches = profile.launches.select(*_ROW, *FROM_LAUNCH).sort("launch_id")
        if ids is not None and len(ids) < launches.height:
            keep = pl.col("launch_id").is_in(ids)
            launches = launches.filter(keep)
            # the values of these launches only (the rest may be many: evaluated elsewhere)
            profile = replace(
                profile, metrics=profile.metrics.filter(keep), stalls=profile.stalls.filter(keep)
            )
        values = canonical_lists(profile).rename({"metric": "_metrics", "value": "_values"})
        stalls = stall_lists(profile).rename({"reason": "_reasons", "cycles_per_issue": "_cycles"})
        table = launches.join(values, on="launch_id", how="left", maintain_order="left").join(
            stalls, on="launch_id", how="left", maintain_order="left"
        )
        self.table = table.to_arrow()
        self.ids: list[int] = table["launch_id"].to_list()
        if occupancy is None:
            occupancy = launch_occupancies(profile.launches, profile.metrics)
        self.occupancy = occupancy

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> LaunchView: ...
    @overload
    def __getitem__(self, index: slice) -> list[LaunchView]: ...
    def __getitem__(self, index: int | slice) -> LaunchView | list[LaunchView]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError("views are made a contiguous slice at a time")
            return self._made(start, stop)
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        return self._made(index, index + 1)[0]

    def _made(self, start: int, stop: int) -> list[LaunchView]:
        part = self.table.slice(start, max(0, stop - start))
        column = {name: part.column(name).to_pylist() for name in part.column_names}
        views = []
        added_sets: dict[tuple[str, ...], frozenset[str]] = {}
        rows = zip(
            *(column[c] for c in (*_ROW, *FROM_LAUNCH, "_metrics", "_values", "_reasons", "_cycles")),
            strict=True,
        )
        for (
            lid,
            kernel,
            short,
            fmt,
            bx,
            by,
            bz,
            gx,
            gy,
            gz,
            *launch_values,
            names,
            values,
            reasons,
            cycles,
        ) in rows:
            # the stated values, then the launch row's that they lack
            metrics = dict(zip(names, values, strict=True)) if names is not None else {}
            block = (bx, by, bz)
            grid = (gx, gy, gz)
            added: list[str] = []
            if None not in block and "block_size" not in metrics:
                metrics["block_size"] = float(math.prod(block))
                added.append("block_size")
            if None not in grid and "grid_size" not in metrics:
                metrics["grid_size"] = float(math.prod(grid))
                added.append("grid_size")
            for name, value in zip(FROM_LAUNCH, launch_values, strict=True):
                if value is not None and name not in metrics:
                    metrics[name] = float(value)
                    added.append(name)
            key = tuple(added)
            if key not in added_sets:  # launches of a profile lack the same few: one set each
                added_sets[key] = frozenset(key)
            views.append(
                LaunchView(
                    lid,
                    kernel or "",
                    block,
                    grid,
                    metrics,
                    dict(zip(reasons, cycles, strict=True)) if reasons is not None else {},
                    self.occupancy.get(lid),
                    Stated(metrics, added_sets[key]),
                    short or "",
                    library_of(short),
                    fmt,
                )
            )
        return views


def run_views(profile: Profile) -> list[RunView]:
    """One view per source file with launches or transfers: runs never mix."""
    starts = (
        profile.metrics.filter(pl.col("metric") == "start_ns")
        .group_by("launch_id")
        .agg(pl.col("value").first().alias("start_ns"))
    )
    kernels = profile.launches.select("launch_id", "source_file", "duration_ns", "stream").join(
        starts, on="launch_id", how="left"
    )
    sources = pl.concat([profile.launches["source_file"], profile.transfers["source_file"]]).unique(
        maintain_order=True
    )
    return [
        RunView(
            source,
            profile.transfers.filter(pl.col("source_file") == source),
            kernels.filter(pl.col("source_file") == source),
            profile.launches.filter(pl.col("source_file") == source),
        )
        for source in sources
        if source is not None
    ]
