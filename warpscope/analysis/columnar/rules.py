"""The launch rules that fire on most launches of a long profile, over many launches at once.

Each function here is its rule in ``analysis/*.py`` restated over arrays: the same conditions in
the same order, the same arithmetic (so every float is the view's, bit for bit), and the same
text, made with the same ``num``/``pct`` only for the launches where the rule fires. The rule in
its module stays the reference: ``tests/test_candidacy.py`` compares the two engines' findings on
every shipped export and on profiles whose launches all differ. A change to a rule's text or
logic is made in both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from warpscope.analysis.bottleneck import MEMORY_STALLS, PIPE_STALLS, STALLS
from warpscope.analysis.columnar.launches import NONE, Launches
from warpscope.analysis.occupancy import LIMIT_WHY, limited_fix
from warpscope.analysis.text import num, nums, pct, pcts
from warpscope.occupancy.advice import LIMIT_LABELS
from warpscope.occupancy.calculator import Occupancy

Texts = list[str] | str


@dataclass
class Found:
    """One rule's findings on the launches at ``rows``, before grading: each text a list (one per
    finding) or one string for all, the evidence as (metric, values, present) in the order the
    rule's dict has them, the estimate NaN where the rule makes none."""

    rule: str
    rows: np.ndarray
    severity: list[str]
    title: Texts
    message: list[str]
    why: Texts
    fix: Texts
    threshold: Texts
    evidence: list[tuple[str, np.ndarray, np.ndarray]]
    estimate: np.ndarray
    #: what ``impact.fold_symptoms`` looks a finding up by, where it is not the rule
    #: (``stall_reason:<reason>``); launches with several findings of the rule have them in order
    keys: list[str] | None = None


def _known(L: Launches, rows: np.ndarray, *names: str) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``LaunchView.known``: the values the launches have of ``names``."""
    out = []
    for name in names:
        values = L.get(name)[rows]
        out.append((name, values, ~np.isnan(values)))
    return out


def _always(name: str, values: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    return name, values, np.ones(len(values), dtype=bool)


def _ints(values: np.ndarray) -> list[int]:
    ints: list[int] = values.astype(np.int64).tolist()
    return ints


def _stall_text(L: Launches, rows: np.ndarray) -> list[str]:
    """``bottleneck._stall_text`` (the two largest stalls) of each launch at ``rows``."""
    cpi = L.cycles_per_issue[rows].tolist()
    first, first_cycles = L.top_stall(0)
    second, second_cycles = L.top_stall(1)
    out = []
    for i, row in enumerate(rows.tolist()):
        top = [(first[row], first_cycles[row]), (second[row], second_cycles[row])]
        top = [(r, c) for r, c in top if r is not None]
        c_pi = cpi[i]
        if not top or c_pi != c_pi or not c_pi:
            out.append("")
            continue
        parts = [
            f"{r} ({pct(100 * float(c) / c_pi, 0)} of warp cycles: waiting for {STALLS.get(r, ('?',))[0]})"
            for r, c in top
        ]
        out.append(" Top stalls: " + "; ".join(parts) + ".")
    return out


def _not_limiting_reason(L: Launches, rows: np.ndarray) -> list[str | None]:
    """``occupancy.not_limiting_reason`` of each launch at ``rows``."""
    issue = L.get("issue_slot_utilization_pct")[rows].tolist()
    roof = L.busiest_pct[rows].tolist()
    top = L.top_stall(0)[0]
    out: list[str | None] = []
    for i, row in enumerate(rows.tolist()):
        if issue[i] >= 60:  # NaN compares false
            out.append(f"the schedulers already issue in {pct(issue[i])} of cycles")
        elif roof[i] >= 80:
            out.append(f"throughput is already at {pct(roof[i])} of peak")
        elif top[row] == "not_selected":
            out.append("the top stall is not_selected: eligible warps already wait for an issue slot")
        else:
            out.append(None)
    return out


def latency_bound(L: Launches) -> Found:
    sm, mem = L.get("sm_throughput_pct"), L.get("memory_throughput_pct")
    rows = np.flatnonzero((sm < 60) & (mem < 60))
    sm, mem = sm[rows], mem[rows]
    waves, issue = L.get("waves_per_sm")[rows], L.get("issue_slot_utilization_pct")[rows]
    small = (waves < 1).tolist()
    top = L.top_stall(0)[0]
    fixes = []
    for row, is_small in zip(rows.tolist(), small, strict=True):
        stall = top[row]
        if is_small:
            fixes.append("The grid does not fill the GPU: see the launch-configuration findings.")
        elif stall is not None and stall in STALLS:
            fixes.append(f"Go after the top stall, {stall}: {STALLS[stall][1]}.")
        else:
            fixes.append(
                "Give the schedulers more independent work: more resident warps or more ILP per thread."
            )
    stall_texts = _stall_text(L, rows)
    messages = [
        f"SM {s} and memory {m} of peak"
        + (f"; schedulers issue in {i} of cycles" if known else "")
        + ": neither is busy, warps are waiting."
        + t
        for s, m, i, known, t in zip(
            pcts(sm.tolist()),
            pcts(mem.tolist()),
            pcts(issue.tolist()),
            (~np.isnan(issue)).tolist(),
            stall_texts,
            strict=True,
        )
    ]
    low = np.array(small, dtype=bool) | (np.maximum(sm, mem) >= 40)
    return Found(
        "latency_bound",
        rows,
        ["low" if x else "medium" for x in low.tolist()],
        ["latency-bound (grid too small)" if s else "latency-bound" for s in small],
        messages,
        "With both units idle the time goes to waiting on dependencies; more independent "
        "work per scheduler (warps or instructions in flight) hides it.",
        fixes,
        "SM and memory throughput both < 60% (medium: both < 40%)",
        _known(
            L,
            rows,
            "sm_throughput_pct",
            "memory_throughput_pct",
            "issue_slot_utilization_pct",
            "waves_per_sm",
            "arithmetic_intensity_dram",
        ),
        np.full(len(rows), NONE),
    )


def _per_config(L: Launches, rows: np.ndarray, make: Callable[[Occupancy | None], str]) -> list[str]:
    texts = [make(o) for o in L.configs] + [make(None)]
    return [texts[i] for i in L.occ[rows].tolist()]


def occupancy_limited(L: Launches) -> Found:
    stated = L.get("theoretical_occupancy_pct")
    calculated = L.occ_attr("occupancy_pct")
    theo = np.where(np.isnan(stated), calculated, stated)
    blocks_bound = L.occ_flag(lambda o: o.limiter == "blocks")
    rows = np.flatnonzero((theo < 80) & ~blocks_bound)
    theo = theo[rows]
    reasons = _not_limiting_reason(L, rows)
    labels = _per_config(
        L, rows, lambda o: LIMIT_LABELS.get((o.limiter if o else None) or "", "an unknown limit")
    )
    blocks = _per_config(
        L,
        rows,
        lambda o: (
            f"{o.active_blocks_per_sm} blocks = {o.active_warps_per_sm} of {o.arch.max_warps_per_sm} warps"
            if o is not None
            else "fewer warps than the SM holds"
        ),
    )
    messages = []
    for t, label, block, reason in zip(pcts(theo.tolist()), labels, blocks, reasons, strict=True):
        message = f"Theoretical occupancy {t}: {label} allow {block} per SM."
        if reason:
            message += f" More occupancy is unlikely to pay much here: {reason}."
        messages.append(message)
    severity = [
        "low" if reason else ("high" if t <= 50 else "medium")
        for t, reason in zip(theo.tolist(), reasons, strict=True)
    ]
    why = _per_config(
        L,
        rows,
        lambda o: (
            LIMIT_WHY.get(
                (o.limiter if o else None) or "",
                "fewer resident warps leave the schedulers fewer warps to switch to while others wait",
            )
            + "."
        ),
    )
    gain = 100 * _latency_gain_at(L, rows, (1 - theo / 100) * L.work_share[rows])
    return Found(
        "occupancy_limited",
        rows,
        severity,
        [f"occupancy limited by {label}" for label in labels],
        messages,
        why,
        _per_config(L, rows, limited_fix),
        "theoretical occupancy < 80%",
        [
            _always("theoretical_occupancy_pct", theo),
            *_known(
                L,
                rows,
                "registers_per_thread",
                "block_size",
                "static_shared_bytes",
                "dynamic_shared_bytes",
                "issue_slot_utilization_pct",
            ),
        ],
        gain,
    )


def _latency_gain_at(L: Launches, rows: np.ndarray, fraction: np.ndarray) -> np.ndarray:
    """``LaunchView.latency_gain(fraction)`` of the launches at ``rows``."""
    idle, headroom = L.issue_idle[rows], L.roof_headroom[rows]
    capped = np.where(np.isnan(idle), fraction, np.minimum(fraction, idle))
    return np.where(np.isnan(headroom), capped, np.minimum(capped, headroom))


def achieved_occupancy_gap(L: Launches) -> Found:
    theo, achieved = L.get("theoretical_occupancy_pct"), L.get("achieved_occupancy_pct")
    rows = np.flatnonzero((theo - achieved > 10) & (theo > 0))
    theo, achieved = theo[rows], achieved[rows]
    waves = L.get("waves_per_sm")[rows]
    warps, grid = L.warps_per_block[rows], L.grid_size[rows]
    executed = L.get("instructions_executed")[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_warp = np.where(
            ~np.isnan(executed) & (executed != 0) & ~np.isnan(grid) & ~np.isnan(warps),
            executed / (grid * warps),
            NONE,
        )
    few_waves = waves < 1
    short_lived = ~few_waves & (per_warp < 100)
    reasons = _not_limiting_reason(L, rows)
    gain = 100 * _latency_gain_at(L, rows, (theo - achieved) / theo)
    busiest = L.busiest_pct[rows]
    severity, messages, fixes = [], [], []
    for w, p, a_text, t_text, g, b, reason in zip(
        waves.tolist(),
        per_warp.tolist(),
        pcts(achieved.tolist()),
        pcts(theo.tolist()),
        gain.tolist(),
        busiest.tolist(),
        reasons,
        strict=True,
    ):
        if w < 1:
            cause = f"the grid fills only {pct(100 * w, 0)} of one wave, so SMs run below capacity"
            fix = "Launch more blocks (see the launch-configuration findings)."
        elif p < 100:
            cause = (
                f"each warp lives for only ~{num(p, 0)} instructions, so the SM spends much "
                "of the kernel launching and retiring blocks"
            )
            fix = (
                "Give each thread more work (a grid-stride loop over several elements) so warps live longer."
            )
        elif w < 2:
            cause = f"with {num(w, 2)} waves the SMs drain and sit partly empty for the last one"
            fix = "Launch more, smaller blocks so the end of the launch is a smaller share of it."
        else:
            cause = (
                "warps or blocks finish unevenly (data-dependent loops, early exits), so SMs hold fewer "
                "warps as blocks drain"
            )
            fix = "Even out the work per warp and per block (sort or bin the work, split long items)."
        if reason:
            severity.append("info")
            cause += f"; but more resident warps are unlikely to pay: {reason}"
        elif g >= 20 and (b != b or b < 60):
            severity.append("medium")
        else:
            severity.append("low")
        messages.append(f"Achieved occupancy {a_text} of a theoretical {t_text}: {cause}.")
        fixes.append(fix)
    return Found(
        "achieved_occupancy_gap",
        rows,
        severity,
        "achieved occupancy far below theoretical",
        messages,
        "Theoretical occupancy is what could be resident; warps that are not actually there "
        "cannot hide latency.",
        fixes,
        "theoretical − achieved > 10 points (medium: worth ≥ 20% with SM and memory < 60% of peak)",
        [
            _always("theoretical_occupancy_pct", theo),
            _always("achieved_occupancy_pct", achieved),
            ("waves_per_sm", waves, ~np.isnan(waves)),
            ("instructions_executed", executed, short_lived),
        ],
        gain,
    )


def few_resident_warps(L: Launches) -> Found:
    warps, grid, sms = L.warps_per_block, L.grid_size, L.sm_count
    has = ~np.isnan(warps) & ~np.isnan(grid) & ~np.isnan(sms)
    busy = np.minimum(grid, sms)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_sm_blocks = grid / busy
    with_occ = L.occ >= 0
    active_blocks = L.occ_attr("active_blocks_per_sm")
    per_sm_blocks = np.where(with_occ, np.minimum(per_sm_blocks, active_blocks), per_sm_blocks)
    per_sm_warps = per_sm_blocks * warps
    achieved = L.get("achieved_active_warps")
    low_warps = (per_sm_warps < 6) | (achieved < 6)
    rows = np.flatnonzero(has & (low_warps | (per_sm_blocks < 2)))
    warps, grid, sms, busy = warps[rows], grid[rows], sms[rows], busy[rows]
    per_sm_blocks, per_sm_warps, achieved = per_sm_blocks[rows], per_sm_warps[rows], achieved[rows]
    free = _per_config(
        L,
        rows,
        lambda o: (
            f"Free resources so 2 blocks fit: {o.limiter} limit the SM to {o.active_blocks_per_sm}."
            if o is not None and o.active_blocks_per_sm < 2
            else ""
        ),
    )
    messages, fixes = [], []
    for g, s, b, blocks, warps_, a, blocks_text, warps_text, a_text, freed in zip(
        _ints(grid),
        _ints(sms),
        _ints(busy),
        per_sm_blocks.tolist(),
        per_sm_warps.tolist(),
        achieved.tolist(),
        nums(per_sm_blocks.tolist(), 2),
        nums(per_sm_warps.tolist(), 1),
        nums(np.where(np.isnan(achieved), 0.0, achieved).tolist(), 1),
        free,
        strict=True,
    ):
        configured = warps_ < 6 or blocks < 2
        if configured:
            where = (
                "per SM" if b == s else f"on each of the {b} SMs with a block (the other {s - b} have none)"
            )
            blocks_word = "block" if blocks == 1 else "blocks"
            warps_word = "warp" if warps_ == 1 else "warps"
            seen = f"at most {blocks_text} {blocks_word} and {warps_text} {warps_word} {where}"
            if a == a:
                seen += f" ({a_text} warps measured)"
            short = [w for w, low in (("6 warps", warps_ < 6), ("2 blocks", blocks < 2)) if low]
            seen += f": under the floor of {' and '.join(short)} per SM"
        else:
            seen = (
                f"the launch allows {warps_text} warps per SM, but only {a_text} "
                "were resident on average: under the floor of 6"
            )
        if not configured:
            fix = (
                "The launch allows enough warps; they are not there: warps live briefly or finish unevenly. "
                "Give each thread more work (a grid-stride loop) and even out the work per block."
            )
        elif g < 2 * s:
            fix = f"More blocks: at least {2 * s} for {s} SMs."
        elif freed:
            fix = freed
        else:
            fix = "More warps per SM: bigger blocks or more blocks resident."
        messages.append(f"{seen[0].upper()}{seen[1:]}.")
        fixes.append(fix)
    block_size = L.block_size[rows]
    return Found(
        "few_resident_warps",
        rows,
        ["medium"] * len(rows),
        "too few warps resident per SM",
        messages,
        "Latency is hidden by switching to another warp; with a handful of warps (or one block "
        "stalled at __syncthreads()) the SM has nothing to switch to.",
        fixes,
        "< 6 active warps or < 2 active blocks per SM",
        [
            _always("grid_size", grid),
            _always("sm_count", sms),
            _always("block_size", np.where(np.isnan(block_size), 0.0, block_size)),
            ("achieved_active_warps", achieved, ~np.isnan(achieved)),
        ],
        np.full(len(rows), NONE),
    )


def _parallelism_gain(
    L: Launches, rows: np.ndarray, grid: np.ndarray, sms: np.ndarray, idle: np.ndarray
) -> np.ndarray:
    """``launch_config._parallelism_gain`` of the launches at ``rows``."""
    warps = L.warps_per_block[rows]
    active = L.occ_attr("active_warps_per_sm")[rows]
    usable = ~np.isnan(warps) & (warps != 0) & ~np.isnan(active) & (active != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = np.maximum(0.0, 1.0 - grid * warps / (sms * active)) * L.work_share[rows]
    headroom = L.roof_headroom[rows]
    raw = np.where(np.isnan(headroom), raw, np.minimum(raw, headroom))
    return np.where(usable, raw, idle)


def grid_smaller_than_sms(L: Launches) -> Found:
    grid, sms = L.grid_size, L.sm_count
    rows = np.flatnonzero(grid < sms)
    grid, sms, size = grid[rows], sms[rows], L.block_size[rows]
    capacity = sms * _max_threads(L)[rows]
    threads = grid * size
    fixes = []
    for t, c, s in zip(threads.tolist(), capacity.tolist(), _ints(sms), strict=True):
        if t == t and c == c and t < c:
            fixes.append(
                f"The whole launch is {num(int(t))} threads, less than the GPU holds at once "
                f"({num(int(c))}). If each thread does a lot (a loop per row or item), spread that "
                "work over more threads: a warp or a block per row instead of a thread per row. If the "
                "problem is just small, batch such launches into one (several problems per grid) or "
                "run them concurrently (streams, CUDA Graphs)."
            )
        else:
            fixes.append(
                f"Split the work into at least {2 * s} blocks (2 × {s} SMs): smaller blocks or fewer elements per block."
            )
    idle = (sms - grid) / sms
    idle_pct = pcts((100 * (sms - grid) / sms).tolist())
    messages = [
        f"{g} blocks on {s} SMs: {s - g} SMs ({p}) get no block."
        for g, s, p in zip(_ints(grid), _ints(sms), idle_pct, strict=True)
    ]
    severity = ["high" if x >= 0.5 else "medium" if x >= 0.2 else "low" for x in idle.tolist()]
    return Found(
        "grid_smaller_than_sms",
        rows,
        severity,
        "grid smaller than the SM count",
        messages,
        "Each block runs on one SM; with fewer blocks than SMs the rest of the GPU idles.",
        fixes,
        "blocks < SMs (high: half the SMs idle or more; medium: a fifth)",
        [_always("grid_size", grid), _always("sm_count", sms), ("block_size", size, ~np.isnan(size))],
        100.0 * _parallelism_gain(L, rows, grid, sms, idle),
    )


def _max_threads(L: Launches) -> np.ndarray:
    per_config = np.array([float(o.arch.max_threads_per_sm) for o in L.configs] + [NONE])
    return np.asarray(per_config[L.occ])


def grid_few_blocks_per_sm(L: Launches) -> Found:
    grid, sms = L.grid_size, L.sm_count
    rows = np.flatnonzero((grid >= sms) & (grid < 4 * sms))
    grid, sms = grid[rows], sms[rows]
    per_sm = grid / sms
    waves = L.get("waves_per_sm")[rows]
    fills = waves >= 0.9
    severity = ["medium" if x else "low" for x in ((grid < 2 * sms) & ~fills).tolist()]
    gain = np.where(fills, NONE, 100.0 * _parallelism_gain(L, rows, grid, sms, np.zeros(len(rows))))
    return Found(
        "grid_few_blocks_per_sm",
        rows,
        severity,
        [f"only {p} blocks per SM" for p in nums(per_sm.tolist(), 1)],
        [
            f"{g} blocks on {s} SMs = {p} blocks per SM."
            for g, s, p in zip(_ints(grid), _ints(sms), nums(per_sm.tolist(), 2), strict=True)
        ],
        "With under 2–4 blocks per SM an SM has nothing else to run while a block waits at "
        "__syncthreads(), and SMs that finish early stay idle until the launch ends.",
        [
            f"Aim for {2 * s}–{4 * s} blocks or more (2–4 × {s} SMs): smaller blocks or less work per block."
            for s in _ints(sms)
        ],
        "blocks < 2 × SMs and under 0.9 of a wave (medium), < 4 × SMs (low)",
        [_always("grid_size", grid), _always("sm_count", sms)],
        gain,
    )


def block_size_outside_128_256(L: Launches) -> Found:
    size = L.block_size
    small_blocks_bound = L.occ_flag(lambda o: "blocks" in o.limiters and o.occupancy_pct < 100)
    outside = (size % 32 == 0) & ((size < 128) | (size > 256))
    rows = np.flatnonzero(outside & ~((size < 128) & small_blocks_bound))
    size = size[rows]
    barrier = L.stall_share("barrier")[rows]
    barrier_cycles = L.stall("barrier")[rows]
    cpi = L.cycles_per_issue[rows]
    theo, achieved = L.get("theoretical_occupancy_pct")[rows], L.get("achieved_occupancy_pct")[rows]
    small = size < 128
    bx, by = L.block_x[rows], L.block_y[rows]
    shaped = ~np.isnan(bx) & ~np.isnan(by) & (by > 1) & (bx % 32 == 0)
    heavy_sync = (size >= 512) & (barrier >= 0.10)
    with_gain = ~small & (theo >= 80) & ~np.isnan(achieved) & (theo > achieved)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(with_gain, 100 * _latency_gain_at(L, rows, (theo - achieved) / theo), NONE)
    titles, messages, whys, fixes, thresholds = [], [], [], [], []
    for n, is_small, t, is_shaped, x, y, b, heavy in zip(
        _ints(size),
        small.tolist(),
        theo.tolist(),
        shaped.tolist(),
        bx.tolist(),
        by.tolist(),
        barrier.tolist(),
        heavy_sync.tolist(),
        strict=True,
    ):
        if is_small:
            cost = f"it costs nothing visible here (theoretical occupancy {pct(t)})" if t >= 100 else ""
            titles.append(f"small blocks ({n} threads)")
            messages.append(f"{n} threads per block" + (f": {cost}." if cost else "."))
            whys.append(
                "Small blocks use many of the SM's block slots and give each block's "
                "__syncthreads() few warps to overlap; 128–256 threads is the usual start."
            )
            fixes.append(
                "Try 128 or 256 threads per block (same total threads, fewer blocks) and keep "
                "whichever is faster."
            )
            thresholds.append("block size < 128")
            continue
        reason = (
            f"a {int(x)}×{int(y)} block matches a {int(x)}-wide tile"
            if is_shaped
            else "no tile shape explains it"
        )
        sync = (
            f"; warps spend {pct(100 * (b if b == b else 0.0))} of their cycles waiting at __syncthreads()"
            if heavy
            else ""
        )
        titles.append(f"large blocks ({n} threads)")
        messages.append(f"{n} threads per block ({reason}){sync}.")
        whys.append(
            "A large block waits at every __syncthreads() for its slowest warp, and the SM "
            "gains or loses residency in big steps; 128–256 threads is the usual start."
        )
        fixes.append(
            "Keep the tile but give each thread several elements: e.g. 32×8 threads for a "
            "32×32 tile, each thread handling 4 rows (fewer threads wait at each barrier)."
            if is_shaped
            else "Try 256 threads per block; split the work of one big block across several."
        )
        thresholds.append("block size > 256")
    with_barrier = ~small & ~np.isnan(barrier)
    return Found(
        "block_size_outside_128_256",
        rows,
        ["medium" if h else "low" for h in heavy_sync.tolist()],
        titles,
        messages,
        whys,
        fixes,
        thresholds,
        [
            _always("block_size", size),
            ("stalls.barrier", barrier_cycles, with_barrier),
            ("warp_cycles_per_issued_instruction", np.where(np.isnan(cpi), 0.0, cpi), with_barrier),
            ("theoretical_occupancy_pct", theo, with_gain),
            ("achieved_occupancy_pct", achieved, with_gain),
        ],
        gain,
    )


def tail_effect(L: Launches) -> Found:
    stated = L.get("waves_per_sm")
    grid, sms = L.grid_size, L.sm_count
    resident = L.occ_attr("active_blocks_per_sm")
    by_grid = ~np.isnan(grid) & ~np.isnan(sms) & ~np.isnan(resident) & (resident != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        waves = np.where(by_grid, grid / (sms * resident), stated)  # exactly, from the grid
    whole = np.floor(waves)
    part = waves - whole
    gain = 100.0 * (1.0 - part) / (whole + 1)
    active, elapsed = L.get("sm_active_cycles"), L.get("elapsed_cycles")
    measured = ~np.isnan(active) & ~np.isnan(elapsed) & (elapsed != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        idle = 100.0 * np.maximum(0.0, 1.0 - active / elapsed)
    gain = np.where(measured, np.minimum(gain, idle), gain)
    rows = np.flatnonzero((waves >= 1) & (part >= 1e-6) & (gain >= 5))
    waves, whole, part, gain = waves[rows], whole[rows], part[rows], gain[rows]
    grid, sms, resident = grid[rows], sms[rows], resident[rows]
    shaped = ~np.isnan(grid) & ~np.isnan(sms) & (L.occ[rows] >= 0)
    fill = pcts((100 * part).tolist(), 0)
    fixes = []
    for has, g, s, r, w, f in zip(
        shaped.tolist(),
        np.nan_to_num(grid).astype(np.int64).tolist(),
        np.nan_to_num(sms).astype(np.int64).tolist(),
        np.nan_to_num(resident).astype(np.int64).tolist(),
        whole.astype(np.int64).tolist(),
        fill,
        strict=True,
    ):
        if not has:
            fixes.append(
                "Size the grid to whole waves, or make more, shorter waves (more blocks with less work each)."
            )
            continue
        per_wave = s * r
        fixes.append(
            f"One wave is {per_wave} blocks ({s} SMs × {r} resident): {g} blocks = {w} full waves + {f} of one. "
            f"Use {w * per_wave} or {(w + 1) * per_wave} blocks (a grid-stride loop lets any grid cover the data), "
            "or many more waves so the tail matters less."
        )
    with_cycles = measured[rows]
    return Found(
        "tail_effect",
        rows,
        ["medium" if x >= 15 else "low" for x in gain.tolist()],
        "partial last wave (tail effect)",
        [
            f"{w} waves per SM: the last wave fills {f} of the GPU."
            for w, f in zip(nums(waves.tolist(), 2), fill, strict=True)
        ],
        "Blocks run in waves of what the SMs hold at once; during the last, partial wave most SMs sit idle.",
        fixes,
        "partial last wave costing ≥ 5% of the kernel time",
        [
            _always("waves_per_sm", waves),
            ("sm_active_cycles", L.get("sm_active_cycles")[rows], with_cycles),
            ("elapsed_cycles", L.get("elapsed_cycles")[rows], with_cycles),
            ("grid_size", grid, shaped),
            ("sm_count", sms, shaped),
        ],
        gain,
    )


def _stall_slots(
    L: Launches, rows: np.ndarray, reasons: list[str | None], cycles: np.ndarray
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Evidence ``stalls.<reason>`` of each finding's own reason: a slot per reason the profile
    has (in name order), present where it is the finding's."""
    return [
        (f"stalls.{r}", cycles, np.array([x == r for x in reasons], dtype=bool))
        for r in sorted(x for x in L.stalls if x != "selected")
    ]


def occupancy_not_limiting(L: Launches) -> Found:
    stated, achieved = L.get("theoretical_occupancy_pct"), L.get("achieved_occupancy_pct")
    theo = np.where(np.isnan(stated), L.occ_attr("occupancy_pct"), stated)
    short = (theo < 100) | (theo - achieved > 10)
    candidates = np.flatnonzero(short)
    reasons = _not_limiting_reason(L, candidates)
    keep = np.array([r is not None for r in reasons], dtype=bool)
    rows = candidates[keep]
    reasons = [r for r in reasons if r is not None]
    top, top_cycles = L.top_stall(0)
    top_here = [top[i] for i in rows.tolist()]
    return Found(
        "occupancy_not_limiting",
        rows,
        ["info"] * len(rows),
        "more occupancy will not help much",
        [f"Occupancy is below the maximum, but {r}." for r in reasons],
        "High occupancy is not high performance: extra warps only help when the schedulers "
        "have nothing ready to issue.",
        "Leave occupancy alone; cut instructions or bytes instead (the busiest pipe or memory "
        "unit, the access pattern).",
        "issue slots ≥ 60% busy, throughput ≥ 80% of peak, or not_selected the top stall",
        [
            *_known(
                L,
                rows,
                "theoretical_occupancy_pct",
                "achieved_occupancy_pct",
                "issue_slot_utilization_pct",
                "sm_throughput_pct",
                "memory_throughput_pct",
            ),
            *_stall_slots(L, rows, top_here, top_cycles[rows]),
        ],
        np.full(len(rows), NONE),
    )


def stall_reason(L: Launches) -> Found:
    """Each of a launch's three largest stall reasons with ≥ 30% of its warp cycles (the stated
    CPI: the launches this engine takes state it wherever they have stall reasons)."""
    cpi = L.cycles_per_issue
    issue = L.get("issue_slot_utilization_pct")
    able = ~np.isnan(cpi) & (cpi != 0) & ~(issue >= 80)
    sm, mem = L.get("sm_throughput_pct"), L.get("memory_throughput_pct")
    store_spr = L.get("global_store_sectors_per_request")
    parts: list[tuple[np.ndarray, list[str], np.ndarray]] = []
    for k in range(3):  # in rank order: a launch's findings keep it
        names, cycles = L.top_stall(k)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = cycles / cpi
        fires = able & ~np.isnan(cycles) & (share >= 0.30)
        rows = np.array(
            [i for i in np.flatnonzero(fires).tolist() if names[i] != "not_selected"], dtype=np.int64
        )
        parts.append((rows, [names[i] for i in rows.tolist()], cycles[rows]))
    rows = np.concatenate([p[0] for p in parts])
    reasons: list[str] = [r for p in parts for r in p[1]]
    cycles = np.concatenate([p[2] for p in parts])
    c, i_, s_, m_, spr = cpi[rows], issue[rows], sm[rows], mem[rows], store_spr[rows]
    roof = np.where(
        [r in MEMORY_STALLS for r in reasons],
        m_,
        np.where([r in PIPE_STALLS for r in reasons], s_, NONE),
    )
    roof = np.where(np.isnan(roof), 0.0, roof)
    at_roof = roof >= 80
    memory_roof = at_roof & np.array([r in MEMORY_STALLS for r in reasons], dtype=bool)
    titles, messages, fixes = [], [], []
    for r, cy, cp, rf, at, sp in zip(
        reasons, cycles.tolist(), c.tolist(), roof.tolist(), at_roof.tolist(), spr.tolist(), strict=True
    ):
        waits, fix = STALLS.get(r, ("an unlisted reason", "see the source view's stall columns"))
        if r == "drain" and sp > 4.4:  # NaN compares false
            fix = (
                f"the stores are uncoalesced ({num(sp, 1)} sectors per request), which is "
                "what keeps warps draining: coalesce them"
            )
        message = f"Each warp spends {num(cy, 1)} of its {num(cp, 1)} cycles per issued instruction waiting for {waits}."
        if at:
            message += f" Expected here: the unit it waits on runs at {pct(rf)} of peak."
        titles.append(f"{r} stalls ({pct(100 * (cy / cp), 0)} of warp cycles)")
        messages.append(message)
        fixes.append(fix[0].upper() + fix[1:] + ".")
    return Found(
        "stall_reason",
        rows,
        ["info" if at else "low" for at in at_roof.tolist()],
        titles,
        messages,
        "A stalled warp issues nothing; when most warps stall for the same reason the "
        "schedulers run out of ready warps. A stall is a symptom: fix its cause.",
        fixes,
        "one reason ≥ 30% of warp cycles, issue slots < 80% busy",
        [
            _always("warp_cycles_per_issued_instruction", c),
            *_stall_slots(L, rows, list(reasons), cycles),
            ("issue_slot_utilization_pct", i_, ~np.isnan(i_)),
            ("memory_throughput_pct", roof, memory_roof),
            ("sm_throughput_pct", roof, at_roof & ~memory_roof),
        ],
        np.full(len(rows), NONE),
        keys=[f"stall_reason:{r}" for r in reasons],
    )


#: the canonical values the columnar rules read (``tests/test_columnar.py`` checks it)
READS = frozenset(
    {
        "achieved_active_warps",
        "achieved_occupancy_pct",
        "arithmetic_intensity_dram",
        "block_size",
        "dram_throughput_pct",
        "duration_ns",
        "dynamic_shared_bytes",
        "elapsed_cycles",
        "global_store_sectors_per_request",
        "grid_size",
        "instructions_executed",
        "issue_slot_utilization_pct",
        "memory_throughput_pct",
        "registers_per_thread",
        "sm_active_cycles",
        "sm_count",
        "sm_throughput_pct",
        "static_shared_bytes",
        "theoretical_occupancy_pct",
        "warp_cycles_per_issued_instruction",
        "waves_per_sm",
    }
)
#: rule id -> its columnar form
COLUMNAR: dict[str, Callable[[Launches], Found]] = {
    "latency_bound": latency_bound,
    "occupancy_limited": occupancy_limited,
    "achieved_occupancy_gap": achieved_occupancy_gap,
    "few_resident_warps": few_resident_warps,
    "grid_smaller_than_sms": grid_smaller_than_sms,
    "grid_few_blocks_per_sm": grid_few_blocks_per_sm,
    "block_size_outside_128_256": block_size_outside_128_256,
    "tail_effect": tail_effect,
    "occupancy_not_limiting": occupancy_not_limiting,
    "stall_reason": stall_reason,
}
