"""Occupancy: what limits it, what would lift it, and when lifting it will not help."""

from __future__ import annotations

from warpscope.analysis.finding import Finding, Severity, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import LaunchView
from warpscope.occupancy.advice import LIMIT_LABELS, what_would_help
from warpscope.occupancy.calculator import Occupancy

LIMIT_WHY = {
    "registers": "registers are allocated per warp from the SM's 64K register file, so "
    "register-hungry threads leave room for fewer blocks",
    "shared_mem": "each block's shared memory is reserved for its lifetime, so big tiles leave "
    "room for few blocks",
    "warps": "the block size does not divide the SM's warp slots evenly",
    "barriers": "the SM's pool of named barriers runs out before its warp slots",
}


def not_limiting_reason(v: LaunchView) -> str | None:
    """Why more occupancy would not help (the seed notes' "high occupancy ≠ high performance"),
    or None when it might."""
    issue = v.get("issue_slot_utilization_pct")
    if issue is not None and issue >= 60:
        return f"the schedulers already issue in {pct(issue)} of cycles"
    roof = max(
        (x for x in (v.get("sm_throughput_pct"), v.get("memory_throughput_pct")) if x is not None),
        default=None,
    )
    if roof is not None and roof >= 80:
        return f"throughput is already at {pct(roof)} of peak"
    top = v.top_stalls(1)
    if top and top[0][0] == "not_selected":
        return "the top stall is not_selected: eligible warps already wait for an issue slot"
    return None


@rule(
    "occupancy_limited",
    "occupancy",
    ncu=("TheoreticalOccupancy",),
    checklist=("C5",),
    speedup="min((1 − theoretical occupancy / 100) × (1 − launch floor / duration), 1 − issue-slot "
    "utilization, 1 − busiest throughput / 90%) × 100: the warp slots left empty, of the time after "
    "the launch's fixed cost, counted only while the schedulers have idle issue slots and no unit "
    "is near its roof (more warps cannot pass the busiest unit)",
    evidence="theoretical occupancy and its limiter (registers, shared memory, warps, barriers), issue slots",
    threshold="theoretical occupancy < 80%",
    severity="high: theoretical occupancy ≤ 50%; else medium; low when more warps would not pay (C12)",
)
def occupancy_limited(v: LaunchView) -> Finding | None:
    """Theoretical occupancy under 80%, limited by registers, shared memory, warps or barriers."""
    occ = v.occupancy
    theo = v.get("theoretical_occupancy_pct")
    if theo is None and occ is not None:
        theo = occ.occupancy_pct
    if theo is None or theo >= 80:
        return None
    limiter = occ.limiter if occ is not None else None
    if limiter == "blocks":
        return None  # blocks_too_small_for_sm
    fix = limited_fix(occ)
    reason = not_limiting_reason(v)
    severity: Severity = "low" if reason else ("high" if theo <= 50 else "medium")
    evidence: dict[str, float] = {"theoretical_occupancy_pct": theo}
    evidence |= v.known(
        "registers_per_thread",
        "block_size",
        "static_shared_bytes",
        "dynamic_shared_bytes",
        "issue_slot_utilization_pct",
    )
    label = LIMIT_LABELS.get(limiter or "", "an unknown limit")
    blocks = (
        f"{occ.active_blocks_per_sm} blocks = {occ.active_warps_per_sm} of {occ.arch.max_warps_per_sm} warps"
        if occ is not None
        else "fewer warps than the SM holds"
    )
    message = f"Theoretical occupancy {pct(theo)}: {label} allow {blocks} per SM."
    if reason:
        message += f" More occupancy is unlikely to pay much here: {reason}."
    return Finding(
        severity=severity,
        title=f"occupancy limited by {label}",
        message=message,
        why=LIMIT_WHY.get(
            limiter or "",
            "fewer resident warps leave the schedulers fewer warps to switch to while others wait",
        )
        + ".",
        fix=fix,
        threshold="theoretical occupancy < 80%",
        evidence=evidence,
        estimated_speedup_pct=100 * v.latency_gain((1 - theo / 100) * v.work_share),
    )


def limited_fix(occ: Occupancy | None) -> str:
    """``occupancy_limited``'s fix for a launch configuration: the smallest changes of the lever
    its limiter names first (one text per configuration, whatever its launches' values)."""
    limiter = occ.limiter if occ is not None else None
    changes = what_would_help(occ) if occ is not None else []
    lever = {"registers": "registers", "shared_mem": "shared_mem"}.get(limiter or "", "block_size")
    ranked = sorted(changes, key=lambda c: (c.lever != lever, c.lever))
    fix = "; or ".join(c.text for c in ranked[:2]) if ranked else "Reduce what the limiter counts."
    if limiter == "registers":
        fix += ". Forcing fewer registers can spill to local memory: check spills (-Xptxas -v) and time it."
    elif limiter == "shared_mem":
        fix += ". Smaller tiles or less dynamic shared memory per block buy the blocks back."
    else:
        fix += "."
    return fix


@rule(
    "occupancy_not_limiting",
    "occupancy",
    checklist=("C12",),
    evidence="issue slots, SM and memory throughput, not_selected stalls, occupancy",
    threshold="issue slots ≥ 60% busy, throughput ≥ 80% of peak, or not_selected the top stall",
    severity="info",
)
def occupancy_not_limiting(v: LaunchView) -> Finding | None:
    """Occupancy is below the maximum, but more of it would not make this kernel faster."""
    theo, achieved = v.get("theoretical_occupancy_pct"), v.get("achieved_occupancy_pct")
    if theo is None and v.occupancy is not None:
        theo = v.occupancy.occupancy_pct
    short = (theo is not None and theo < 100) or (
        theo is not None and achieved is not None and theo - achieved > 10
    )
    reason = not_limiting_reason(v) if short else None
    if not reason:
        return None
    evidence = v.known(
        "theoretical_occupancy_pct",
        "achieved_occupancy_pct",
        "issue_slot_utilization_pct",
        "sm_throughput_pct",
        "memory_throughput_pct",
    )
    top = v.top_stalls(1)
    if top:
        evidence[f"stalls.{top[0][0]}"] = top[0][1]
    return Finding(
        severity="info",
        title="more occupancy will not help much",
        message=f"Occupancy is below the maximum, but {reason}.",
        why="High occupancy is not high performance: extra warps only help when the schedulers "
        "have nothing ready to issue.",
        fix="Leave occupancy alone; cut instructions or bytes instead (the busiest pipe or memory "
        "unit, the access pattern).",
        threshold="issue slots ≥ 60% busy, throughput ≥ 80% of peak, or not_selected the top stall",
        evidence=evidence,
    )


@rule(
    "achieved_occupancy_gap",
    "occupancy",
    ncu=("AchievedOccupancy",),
    checklist=("C5", "C11"),
    speedup="min((theoretical − achieved) / theoretical, 1 − issue-slot utilization, "
    "1 − busiest throughput / 90%) × 100",
    evidence="achieved and theoretical occupancy, waves per SM, instructions per warp, issue slots, throughputs",
    threshold="theoretical − achieved > 10 points",
    severity="medium: estimate ≥ 20% with the busiest unit < 60% of peak; info when more warps would not pay (C12); else low",
)
def achieved_occupancy_gap(v: LaunchView) -> Finding | None:
    """Achieved occupancy more than 10 points below theoretical: warp slots the launch leaves empty."""
    theo, achieved = v.get("theoretical_occupancy_pct"), v.get("achieved_occupancy_pct")
    if theo is None or achieved is None or theo - achieved <= 10 or theo <= 0:
        return None
    waves = v.get("waves_per_sm")
    warps = v.warps_per_block
    grid = v.grid_size
    executed = v.get("instructions_executed")
    per_warp = executed / (grid * warps) if executed and grid and warps else None
    evidence: dict[str, float] = {"theoretical_occupancy_pct": theo, "achieved_occupancy_pct": achieved}
    if waves is not None:
        evidence["waves_per_sm"] = waves
    if waves is not None and waves < 1:
        cause = f"the grid fills only {pct(100 * waves, 0)} of one wave, so SMs run below capacity"
        fix = "Launch more blocks (see the launch-configuration findings)."
    elif per_warp is not None and per_warp < 100:
        evidence["instructions_executed"] = executed  # type: ignore[assignment]  # per_warp needs it
        cause = (
            f"each warp lives for only ~{num(per_warp, 0)} instructions, so the SM spends much "
            "of the kernel launching and retiring blocks"
        )
        fix = "Give each thread more work (a grid-stride loop over several elements) so warps live longer."
    elif waves is not None and waves < 2:
        cause = f"with {num(waves, 2)} waves the SMs drain and sit partly empty for the last one"
        fix = "Launch more, smaller blocks so the end of the launch is a smaller share of it."
    else:
        cause = "warps or blocks finish unevenly (data-dependent loops, early exits), so SMs hold fewer warps as blocks drain"
        fix = "Even out the work per warp and per block (sort or bin the work, split long items)."
    gap = (theo - achieved) / theo
    gain = 100 * v.latency_gain(gap)
    reason = not_limiting_reason(v)
    busiest = v.busiest_pct
    if reason:
        severity = "info"
        cause += f"; but more resident warps are unlikely to pay: {reason}"
    elif gain >= 20 and (busiest is None or busiest < 60):
        severity = "medium"
    else:
        severity = "low"
    return Finding(
        severity=severity,  # type: ignore[arg-type]
        title="achieved occupancy far below theoretical",
        message=f"Achieved occupancy {pct(achieved)} of a theoretical {pct(theo)}: {cause}.",
        why="Theoretical occupancy is what could be resident; warps that are not actually there "
        "cannot hide latency.",
        fix=fix,
        threshold="theoretical − achieved > 10 points (medium: worth ≥ 20% with SM and memory < 60% of peak)",
        evidence=evidence,
        estimated_speedup_pct=gain,
    )


@rule(
    "few_resident_warps",
    "occupancy",
    checklist=("C11",),
    evidence="grid, block size, SM count, the occupancy calculator's blocks per SM, achieved active warps",
    threshold="< 6 active warps or < 2 active blocks per SM that has work",
    severity="medium",
)
def few_resident_warps(v: LaunchView) -> Finding | None:
    """Fewer than 6 active warps or 2 active blocks per SM (the seed checklist's floor)."""
    warps, grid, sms = v.warps_per_block, v.grid_size, v.sm_count
    if warps is None or grid is None or not sms:
        return None
    # per SM that has work: a grid smaller than the SMs leaves the rest empty (that is
    # grid_smaller_than_sms), and averaging over them would call a 32-warp block "1.9 warps"
    busy = min(grid, sms)
    per_sm_blocks = grid / busy
    occ = v.occupancy
    if occ is not None:
        per_sm_blocks = min(per_sm_blocks, occ.active_blocks_per_sm)
    per_sm_warps = per_sm_blocks * warps
    achieved = v.get("achieved_active_warps")
    low_warps = per_sm_warps < 6 or (achieved is not None and achieved < 6)
    if not low_warps and per_sm_blocks >= 2:
        return None
    evidence: dict[str, float] = {"grid_size": grid, "sm_count": sms, "block_size": v.block_size or 0}
    if achieved is not None:
        evidence["achieved_active_warps"] = achieved
    configured = per_sm_warps < 6 or per_sm_blocks < 2
    if configured:
        where = (
            "per SM"
            if busy == sms
            else f"on each of the {int(busy)} SMs with a block (the other {int(sms - busy)} have none)"
        )
        blocks_word = "block" if per_sm_blocks == 1 else "blocks"
        warps_word = "warp" if per_sm_warps == 1 else "warps"
        seen = (
            f"at most {num(per_sm_blocks, 2)} {blocks_word} and {num(per_sm_warps, 1)} {warps_word} {where}"
        )
        if achieved is not None:
            seen += f" ({num(achieved, 1)} warps measured)"
        short = [w for w, low in (("6 warps", per_sm_warps < 6), ("2 blocks", per_sm_blocks < 2)) if low]
        seen += f": under the floor of {' and '.join(short)} per SM"
    else:  # the launch allows enough, but few were there on average
        seen = (
            f"the launch allows {num(per_sm_warps, 1)} warps per SM, but only {num(achieved or 0.0, 1)} "
            "were resident on average: under the floor of 6"
        )
    if not configured:
        fix = (
            "The launch allows enough warps; they are not there: warps live briefly or finish unevenly. "
            "Give each thread more work (a grid-stride loop) and even out the work per block."
        )
    elif grid < 2 * sms:
        fix = f"More blocks: at least {2 * int(sms)} for {int(sms)} SMs."
    elif occ is not None and occ.active_blocks_per_sm < 2:
        fix = f"Free resources so 2 blocks fit: {occ.limiter} limit the SM to {occ.active_blocks_per_sm}."
    else:
        fix = "More warps per SM: bigger blocks or more blocks resident."
    return Finding(
        severity="medium",
        title="too few warps resident per SM",
        message=f"{seen[0].upper()}{seen[1:]}.",
        why="Latency is hidden by switching to another warp; with a handful of warps (or one block "
        "stalled at __syncthreads()) the SM has nothing to switch to.",
        fix=fix,
        threshold="< 6 active warps or < 2 active blocks per SM",
        evidence=evidence,
    )
