"""Too little instruction-level parallelism: each warp waits on its own previous result.

A thread whose every instruction needs the result of the one before (one accumulator, one
dependency chain) issues once per pipeline latency. With few warps per scheduler nothing fills
the cycles between: the schedulers idle with no roof in sight, and the top stall is ``wait``
(a fixed-latency dependency). Several independent chains per thread — unrolling with separate
accumulators, several elements per thread — fill them without needing more warps.
"""

from __future__ import annotations

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView

#: the dependency stall that says "the next instruction needs the last one's result"
DEPENDENCY_STALL = "wait"
#: ... taking at least this share of a warp's cycles
MIN_SHARE = 0.30
#: no unit at this share of its peak or above: nothing but latency stands in the way
NO_ROOF_PCT = 60.0


@rule(
    "ilp",
    "ilp",
    checklist=("C11", "C12"),
    speedup="min(wait stall cycles / all warp cycles per issued instruction, 1 − issue-slot use / 90%, "
    "1 − busiest throughput / 90%) × 100: the cycles warps wait on their own results, as far as "
    "issue slots and roofs allow",
    evidence="the wait stall's share of warp cycles, issue-slot use, eligible and active warps per "
    "scheduler, SM and memory throughput",
    threshold="top stall wait ≥ 30% of warp cycles, SM and memory < 60% of peak, issue slots < 60% busy",
    severity="high when the estimate is ≥ 20%, medium ≥ 5%",
)
def ilp(v: LaunchView) -> Finding | None:
    """Warps stall on their own dependency chains while no unit is near its roof."""
    issue, busiest = v.get("issue_slot_utilization_pct"), v.busiest_pct
    top = v.top_stalls(1)
    if issue is None or busiest is None or not top or issue >= NO_ROOF_PCT or busiest >= NO_ROOF_PCT:
        return None
    reason, cycles = top[0]
    share = v.stall_share(reason)
    if reason != DEPENDENCY_STALL or share is None or share < MIN_SHARE:
        return None
    # independent instructions remove at most the cycles warps now wait on their own results
    gain = v.latency_gain(share)
    eligible, active = v.get("eligible_warps_per_scheduler"), v.get("active_warps_per_scheduler")
    occupancy = v.get("theoretical_occupancy_pct")
    warps = (
        f"; {num(eligible, 2)} of {num(active, 1)} warps per scheduler ready on average"
        if eligible is not None and active is not None
        else ""
    )
    evidence = v.known(
        "issue_slot_utilization_pct",
        "eligible_warps_per_scheduler",
        "active_warps_per_scheduler",
        "sm_throughput_pct",
        "memory_throughput_pct",
        "warp_cycles_per_issued_instruction",
    )
    evidence[f"stalls.{reason}"] = cycles
    return Finding(
        severity="high",
        title="dependency chains (too little ILP)",
        message=f"{pct(100 * share, 0)} of each warp's cycles wait on the result of its own previous "
        f"instruction; the schedulers issue in {pct(issue)} of cycles{warps}, and no unit is above "
        f"{pct(busiest)} of its peak.",
        why="A chain of dependent instructions issues once per pipeline latency (4+ cycles for an FMA); "
        "independent instructions in the same thread issue back to back and fill those cycles.",
        fix="Give each thread independent work: unroll with several accumulators (a += …; b += …; "
        "combined at the end), process 2–4 elements per thread, interleave independent loads and "
        "their uses. More resident warps hide the same latency where registers and shared memory "
        "allow"
        + (
            f" (occupancy is limited to {pct(occupancy)} now)"
            if occupancy is not None and occupancy < 80
            else ""
        )
        + ".",
        threshold="top stall wait ≥ 30% of warp cycles, SM and memory < 60%, issue slots < 60% busy",
        evidence=evidence,
        estimated_speedup_pct=100 * gain,
    )
