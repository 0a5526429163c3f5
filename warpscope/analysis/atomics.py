"""Contended atomics: many threads updating few addresses, one update at a time.

Global atomics and reductions (ATOM, RED) execute in the L2 slice that owns the address. When
the addresses are few (a histogram's bins, a global counter) every update queues at the same
slice's atomic unit: that slice is busy while the others, DRAM and the SMs sit idle. Shared
atomics to few addresses serialise the same way in the L1's banks. The fix spreads or merges
the updates: a private copy per block in shared memory (one global atomic per bin per block at
the end), warp aggregation, or a sort and a segmented reduction.
"""

from __future__ import annotations

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import PRACTICAL_ROOF_PCT, LaunchView

#: the busiest L2 slice's atomic unit at least this busy (% of elapsed cycles) ...
CONTENDED_SLICE_PCT = 50.0
#: ... and at least this many times the mean slice's: the updates pile onto few addresses
CONTENDED_RATIO = 4.0
#: the least gain worth a finding: below it the atomics are not where the time goes
MIN_GAIN = 0.05


def _atomics(v: LaunchView) -> float:
    """Global atomic and reduction instructions (warp level) the launch executed."""
    red = v.get("global_reduction_requests") or 0.0
    atom = v.get("global_atomic_l1_requests")
    if atom is None:
        atom = v.get("global_atomic_requests") or 0.0
    return red + atom


@rule(
    "global_atomics",
    "atomics",
    checklist=("C8",),
    speedup="1 − (the time the rest of the kernel needs: its DRAM bytes at 90% of the DRAM peak, its "
    "other instructions at 90% of the issue rate, the launch floor) / duration",
    evidence="global atomic and reduction instructions, the busiest and the mean L2 slice's atomic "
    "unit, DRAM bytes, instructions, duration",
    threshold="busiest L2 slice's atomic unit ≥ 50% busy and ≥ 4× the mean, the rest of the work "
    "needing ≤ 95% of the time",
    severity="high when the estimate is ≥ 20%, medium ≥ 5% (the program-wide caps apply)",
)
def global_atomics(v: LaunchView) -> Finding | None:
    """Global atomics queue on a few L2 slices while the rest of the GPU waits."""
    atomics = _atomics(v)
    instructions = v.get("instructions_executed")
    duration = v.get("duration_ns")
    busiest, mean = v.get("l2_atomic_busiest_slice_pct"), v.get("l2_atomic_mean_pct")
    if atomics <= 0 or not instructions or not duration or busiest is None:
        return None
    if busiest < CONTENDED_SLICE_PCT or (mean is not None and busiest < CONTENDED_RATIO * mean):
        return None
    rest = v.time_at_roofs_ns(dram_bytes=v.get("dram_bytes"), instructions=max(0.0, instructions - atomics))
    if rest is not None:  # whatever else keeps a unit busy stays
        rest = max(rest, duration * (v.get("dram_throughput_pct") or 0.0) / PRACTICAL_ROOF_PCT)
    gain = v.gain_to(rest)
    if gain is None or gain < MIN_GAIN:
        return None
    evidence = v.known(
        "global_reduction_requests",
        "global_atomic_l1_requests",
        "l2_atomic_busiest_slice_pct",
        "l2_atomic_mean_pct",
        "dram_bytes",
        "instructions_executed",
        "duration_ns",
    )
    share = 100 * atomics / instructions
    mean_text = f" (the mean slice's {pct(mean)})" if mean is not None else ""
    return Finding(
        severity="high",
        title="contended global atomics",
        message=f"{num(atomics, 0)} global atomic instructions ({pct(share)} of all) keep the busiest "
        f"L2 slice's atomic unit {pct(busiest)} busy{mean_text}: the updates queue on a few "
        f"addresses. Without them the kernel's DRAM bytes and other instructions need "
        f"{num(rest / 1000, 1)} µs of its {num(duration / 1000, 1)} µs.",  # type: ignore[operator]
        why="Atomics to one address execute one at a time in the L2 slice that owns it; when "
        "thousands of threads update a few addresses, that slice serialises them while DRAM and "
        "the SMs idle.",
        fix="Privatise: accumulate in a per-block copy in shared memory (`__shared__` bins, "
        "`atomicAdd` there), then one global atomic per bin per block after `__syncthreads()`. "
        "Or aggregate within the warp first (`__match_any_sync` groups lanes with the same "
        "address, the leader adds `__popc` of the group; `__reduce_add_sync` for one address), "
        "or sort the keys and reduce segments (CUB `DeviceHistogram`, `DeviceRunLengthEncode`).",
        threshold="busiest L2 slice's atomic unit ≥ 50% busy and ≥ 4× the mean",
        evidence=evidence,
        estimated_speedup_pct=100 * gain,
    )


#: shared atomics replaying at least this share of their wavefronts: lanes queue on a few words
SHARED_REPLAY_SHARE = 0.25
#: the stalls of a warp waiting on shared memory (an atomic's result or a full MIO queue)
SHARED_WAITS = ("short_scoreboard", "mio_throttle")


@rule(
    "shared_atomics",
    "atomics",
    checklist=("C6", "C8"),
    speedup="min(replayed shared-atomic wavefronts / (SMs × elapsed SM cycles), (short-scoreboard + "
    "MIO-throttle stall cycles) / all warp cycles × replay share) × 100: the cycles the replays "
    "hold the shared-memory pipe, as far as warps wait on it",
    evidence="shared atomic instructions, their wavefronts and bank conflicts, elapsed SM cycles, "
    "shared-memory stall cycles",
    threshold="≥ 25% of shared-atomic wavefronts replayed, worth ≥ 2% of the launch",
    severity="medium when the estimate is ≥ 5%, else low; confidence low (no calibration pair yet)",
)
def shared_atomics(v: LaunchView) -> Finding | None:
    """Shared-memory atomics replayed because lanes of a warp update one word or one bank."""
    requests, wavefronts = v.get("shared_atomic_requests"), v.get("shared_atomic_wavefronts")
    cycles, sms, cpi = (
        v.get("smsp_elapsed_cycles") or v.get("elapsed_cycles"),
        v.get("sm_count"),
        v.cycles_per_issue,
    )
    if not requests or not wavefronts or not cycles or not sms or not cpi or wavefronts <= requests:
        return None
    replays = v.get("shared_atomic_bank_conflicts")
    replays = wavefronts - requests if replays is None else min(replays, wavefronts - requests)
    share = replays / wavefronts
    if share < SHARED_REPLAY_SHARE:
        return None
    waits = sum(v.stalls.get(r, 0.0) for r in SHARED_WAITS) / cpi
    gain = min(replays / (sms * cycles), waits * share)
    if gain < 0.02:
        return None
    evidence = v.known("shared_atomic_requests", "shared_atomic_wavefronts", "shared_atomic_bank_conflicts")
    for r in SHARED_WAITS:
        if r in v.stalls:
            evidence[f"stalls.{r}"] = v.stalls[r]
    return Finding(
        severity="medium",
        title=f"contended shared-memory atomics ({num(wavefronts / requests, 1)} wavefronts each)",
        message=f"{num(requests, 0)} shared atomic instructions took {num(wavefronts, 0)} wavefronts: "
        f"{pct(100 * share)} are replays of lanes that update one word or one bank.",
        why="Shared atomics to the same word serialise inside the warp, and different words of one "
        "bank conflict; a histogram with few bins and many equal keys replays most of its updates.",
        fix="Aggregate within the warp first (`__match_any_sync` groups lanes with the same bin, the "
        "leader adds the group's `__popc`), keep one copy of the bins per warp (bins[warp][64], padded "
        "against bank conflicts) and sum the copies at the end, or spread hot bins over several words.",
        threshold="≥ 25% of shared-atomic wavefronts replayed",
        evidence=evidence,
        estimated_speedup_pct=100 * gain,
        confidence="low",
    )
