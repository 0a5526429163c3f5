"""The binding occupancy limiter of a launch, from its block limits."""

from __future__ import annotations

from collections.abc import Mapping

# canonical metric -> limiter name, in the order a tie is resolved
LIMITS = {
    "block_limit_warps": "warps",
    "block_limit_registers": "registers",
    "block_limit_shared_mem": "shared_mem",
    "block_limit_blocks": "blocks",
    "block_limit_barriers": "barriers",
}


def occupancy_limiter(metrics: Mapping[str, float]) -> str | None:
    """Name of the limit that caps resident blocks per SM, or None without block limits.

    The smallest block limit binds. Nsight Compute caps the shared-memory and barrier
    limits at the SM's block limit when the kernel uses little of them, so at a tie
    with ``block_limit_blocks`` those two are not the cause. Among real ties the
    order of ``LIMITS`` decides: warps first, because a tie with the warp limit means
    the SM is full (100% theoretical) and no fewer registers or bytes would add a warp.
    """
    present = {k: v for k, v in metrics.items() if k in LIMITS and v is not None}
    if not present:
        return None
    low = min(present.values())
    cap = present.get("block_limit_blocks")
    for key, name in LIMITS.items():
        if present.get(key) != low:
            continue
        if key in ("block_limit_shared_mem", "block_limit_barriers") and cap == low:
            continue
        return name
    return None
