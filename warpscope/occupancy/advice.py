"""What would buy the next block per SM: fewer registers, less shared memory, another block size."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from warpscope.occupancy.calculator import Occupancy

LIMIT_LABELS = {
    "warps": "warp slots",
    "registers": "registers",
    "shared_mem": "shared memory",
    "blocks": "block slots",
    "barriers": "named barriers",
}


@dataclass(frozen=True)
class Change:
    """One change to the launch and what it buys."""

    lever: str  # "registers", "shared_mem" or "block_size"
    current: int
    proposed: int
    before: Occupancy
    after: Occupancy

    @property
    def text(self) -> str:
        what = {
            "registers": "registers",
            "shared_mem": "B shared memory per block",
            "block_size": "threads per block",
        }[self.lever]
        line = (
            f"{self.current} -> {self.proposed} {what}: "
            f"{self.before.active_blocks_per_sm} -> {self.after.active_blocks_per_sm} blocks, "
            f"{self.before.occupancy_pct:.4g}% -> {self.after.occupancy_pct:.4g}%"
        )
        if self.lever == "registers":
            line += (
                f" (__launch_bounds__({self.before.block_size}, "
                f"{self.after.active_blocks_per_sm}) or -maxrregcount={self.proposed})"
            )
        return line

    def to_dict(self) -> dict[str, object]:
        return {
            "lever": self.lever,
            "current": self.current,
            "proposed": self.proposed,
            "active_blocks_per_sm": self.after.active_blocks_per_sm,
            "active_warps_per_sm": self.after.active_warps_per_sm,
            "occupancy_pct": round(self.after.occupancy_pct, 4),
            "text": self.text,
        }


@lru_cache(maxsize=1024)
def _what_would_help(occ: Occupancy) -> tuple[Change, ...]:
    return tuple(c for c in (_fewer_registers(occ), _less_shared(occ), _other_block_size(occ)) if c)


def what_would_help(occ: Occupancy) -> list[Change]:
    """The smallest change of each lever that raises the warps an SM holds.

    Registers and shared memory keep the block size, so more warps means more blocks;
    the block size changes the work per block, so it is offered as the nearest size
    with higher occupancy. An empty list: the SM is full, or only a change of two
    resources together would help (``blocked_by`` says which).
    """
    if occ.error:
        return []
    return list(_what_would_help(occ))  # kernels launched many times ask once


def blocked_by(occ: Occupancy) -> list[str]:
    """Limits that tie at the active block count: cutting just one of them adds nothing."""
    return [LIMIT_LABELS[k] for k in occ.limiters]


def _gains(occ: Occupancy, candidate: Occupancy) -> bool:
    return not candidate.error and candidate.active_warps_per_sm > occ.active_warps_per_sm


def _fewer_registers(occ: Occupancy) -> Change | None:
    """The most registers per thread that still add a block (counting down from now)."""
    for regs in range(occ.registers_per_thread - 1, -1, -1):
        candidate = occ.changed(registers_per_thread=regs)
        if _gains(occ, candidate):
            return Change("registers", occ.registers_per_thread, regs, occ, candidate)
    return None


def _less_shared(occ: Occupancy) -> Change | None:
    """The most shared memory per block that still adds a block, in allocation units."""
    total = occ.static_smem + occ.dynamic_smem
    unit, reserve = occ.arch.shared_alloc_unit, occ.arch.reserved_shared_per_block
    top = (total + reserve) // unit * unit
    if top == total + reserve:
        top -= unit
    for allocated in range(top, reserve - 1, -unit):
        proposed = max(allocated - reserve, 0)
        static = min(occ.static_smem, proposed)
        candidate = occ.changed(static_smem=static, dynamic_smem=proposed - static)
        if _gains(occ, candidate):
            return Change("shared_mem", total, proposed, occ, candidate)
    return None


def _other_block_size(occ: Occupancy) -> Change | None:
    warp = occ.arch.warp_size
    best: Occupancy | None = None
    for size in range(warp, occ.arch.max_threads_per_block + 1, warp):
        if size == occ.block_size:
            continue
        candidate = occ.changed(block_size=size)
        if not _gains(occ, candidate):
            continue
        if (
            best is None
            or candidate.active_warps_per_sm > best.active_warps_per_sm
            or (
                candidate.active_warps_per_sm == best.active_warps_per_sm
                and abs(size - occ.block_size) < abs(best.block_size - occ.block_size)
            )
        ):
            best = candidate
    if best is None:
        return None
    return Change("block_size", occ.block_size, best.block_size, occ, best)
