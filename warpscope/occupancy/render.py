"""Plain-text explanation of an occupancy result, for the CLI and the reports."""

from __future__ import annotations

from warpscope.occupancy.advice import LIMIT_LABELS, blocked_by, what_would_help
from warpscope.occupancy.calculator import Occupancy
from warpscope.occupancy.sweeps import SWEEPS, runs, sweep

SWEEP_TITLES = {
    "block_size": "threads per block",
    "registers": "registers per thread",
    "shared_mem": "shared memory per block (B)",
}


def explain(occ: Occupancy, sweeps: tuple[str, ...] = ()) -> str:
    """What the SM holds, which limit binds and why, and what would buy the next block."""
    a = occ.arch
    lines = [
        f"{a.name} ({a.family}, compute capability {a.compute_capability}): {occ.block_size} threads "
        f"per block, {occ.registers_per_thread} registers per thread, "
        f"{occ.static_smem} B static + {occ.dynamic_smem} B dynamic shared memory",
    ]
    if occ.error:
        lines.append(f"cannot launch: {occ.error}")
        return "\n".join(lines) + "\n"
    lines += [
        f"theoretical occupancy {occ.occupancy_pct:.4g}%: {occ.active_blocks_per_sm} blocks x "
        f"{occ.warps_per_block} warps = {occ.active_warps_per_sm} of {a.max_warps_per_sm} warps per SM",
        "",
        "block limits per SM",
    ]
    binding = set(occ.limiters)
    for key, value in occ.limits.items():
        mark = (
            "  <- limits"
            if key in binding and key == occ.limiter
            else ("  <- also at the limit" if key in binding else "")
        )
        shown = "no limit" if value is None else str(value)
        lines.append(f"  {LIMIT_LABELS[key]:<15} {shown:>8}{mark}   {_why(occ, key)}")
    lines += ["", "what would help"]
    changes = what_would_help(occ)
    if changes:
        lines += [f"  {c.text}" for c in changes]
    elif occ.active_warps_per_sm == a.max_warps_per_sm:
        lines.append("  nothing: every warp slot of the SM is in use (100%)")
    else:
        lines.append(
            f"  no single change adds a block: {' and '.join(blocked_by(occ))} "
            f"all stop at {occ.active_blocks_per_sm} blocks; reduce them together"
        )
    for over in sweeps:
        lines += ["", f"occupancy over {SWEEP_TITLES[over]}"] + sweep_lines(occ, over)
    return "\n".join(lines) + "\n"


def sweep_lines(occ: Occupancy, over: str) -> list[str]:
    """One line per run of equal occupancy, the launch's own run marked."""
    out = []
    for r in runs(sweep(occ, over)).iter_rows(named=True):
        span = str(r["first"]) if r["first"] == r["last"] else f"{r['first']}-{r['last']}"
        if r["active_blocks_per_sm"] == 0:
            text = "cannot launch"
        else:
            blocks = r["active_blocks_per_sm"]
            text = (
                f"{blocks:>3} block{'s' if blocks != 1 else ' '} {r['active_warps_per_sm']:>3} warps "
                f"{r['occupancy_pct']:6.2f}%  {r['limiter']}"
            )
        out.append(f"  {span:>13}  {text}{'   <- this launch' if r['current'] else ''}")
    return out


def _why(occ: Occupancy, key: str) -> str:
    a = occ.arch
    if key == "warps":
        return f"{a.max_warps_per_sm} warp slots / {occ.warps_per_block} warps per block"
    if key == "registers":
        if occ.block_limit_registers is None:
            return "no registers"
        per_part = a.registers_per_sm // a.sub_partitions
        return (
            f"{occ.registers_per_thread} x 32 = {occ.registers_per_thread * 32} -> "
            f"{occ.allocated_registers_per_warp} per warp (units of {a.register_alloc_unit}); "
            f"{per_part // occ.allocated_registers_per_warp} warps per sub-partition x "
            f"{a.sub_partitions}"
        )
    if key == "shared_mem":
        if occ.block_limit_shared_mem is None:
            return "no shared memory"
        reserve = f" + {a.reserved_shared_per_block} reserved" if a.reserved_shared_per_block else ""
        return (
            f"{occ.static_smem + occ.dynamic_smem}{reserve} -> "
            f"{occ.allocated_shared_mem_per_block} B per block (units of {a.shared_alloc_unit}) "
            f"in {occ.shared_mem_per_sm} B per SM"
        )
    if key == "blocks":
        return "the SM's block slots"
    if occ.block_limit_barriers is None:
        return "no barrier pool" if not a.barrier_limited else "no barriers"
    pool = a.barrier_pool_per_block_slot * a.max_blocks_per_sm
    return f"{pool} named barriers per SM / {occ.barriers} per block"


__all__ = ["SWEEPS", "explain", "sweep_lines"]
