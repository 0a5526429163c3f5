"""Theoretical occupancy, computed the way CUDA's occupancy calculator computes it.

Resident blocks per SM are the minimum of five limits, each with the hardware's
allocation granularity (the seed notes' formula ignores it and gets 40 registers x 256
threads on sm_90 wrong: 6 blocks = 75%, not 79.7%):

- warps: whole blocks of ceil(threads / 32) warps in the SM's warp slots;
- registers: allocated per warp in units of 256 and per sub-partition, so an SM holds
  4 x floor(16384 / registers per warp) warps, in whole blocks;
- shared memory: static + dynamic + the driver's per-block reserve (1 KB from sm_80),
  rounded up to the allocation unit, in the SM's carveout (the requested split rounded up
  to a supported size, grown to fit one block);
- blocks: the SM's block slots;
- barriers (sm_90+): a pool of named barriers per SM shared by the resident blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpscope.occupancy.arch import Arch, get_arch
from warpscope.occupancy.limiter import occupancy_limiter

LIMIT_NAMES = ("warps", "registers", "shared_mem", "blocks", "barriers")


class OccupancyError(ValueError):
    """A launch configuration that cannot run at all on the architecture."""


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


@dataclass(frozen=True)
class Occupancy:
    """One launch configuration's occupancy on one architecture.

    A block limit of None means that resource does not limit this launch (no registers,
    no shared memory before Ampere, no barriers or an architecture without the pool).
    ``error`` says why no block fits; then ``active_blocks_per_sm`` is 0.
    """

    arch: Arch
    block_size: int
    registers_per_thread: int
    static_smem: int
    dynamic_smem: int
    carveout: int | None
    barriers: int
    warps_per_block: int
    block_limit_warps: int | None
    block_limit_registers: int | None
    block_limit_shared_mem: int | None
    block_limit_blocks: int
    block_limit_barriers: int | None
    allocated_registers_per_warp: int
    allocated_registers_per_block: int
    allocated_shared_mem_per_block: int
    shared_mem_per_sm: int
    error: str | None = None
    limits: dict[str, int | None] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "limits",
            {
                "warps": self.block_limit_warps,
                "registers": self.block_limit_registers,
                "shared_mem": self.block_limit_shared_mem,
                "blocks": self.block_limit_blocks,
                "barriers": self.block_limit_barriers,
            },
        )
        # read for every launch of a configuration (the rules of 100,000 launches: 800,000 times)
        object.__setattr__(self, "_active_blocks", min(v for v in self.limits.values() if v is not None))

    @property
    def active_blocks_per_sm(self) -> int:
        return self._active_blocks  # type: ignore[attr-defined, no-any-return]

    @property
    def active_warps_per_sm(self) -> int:
        return self.active_blocks_per_sm * self.warps_per_block

    @property
    def occupancy_pct(self) -> float:
        return 100.0 * self.active_warps_per_sm / self.arch.max_warps_per_sm

    @property
    def limiters(self) -> tuple[str, ...]:
        """Every limit that equals the active block count (CUDA's limiting-factor flags)."""
        low = self.active_blocks_per_sm
        return tuple(k for k in LIMIT_NAMES if self.limits[k] == low)

    @property
    def limiter(self) -> str | None:
        """The one limit to act on: ties resolved as for Nsight Compute exports."""
        return occupancy_limiter({f"block_limit_{k}": v for k, v in self.limits.items() if v is not None})

    def changed(self, **changes: int) -> Occupancy:
        """The same launch with some inputs changed (what-if and sweeps); never raises for a
        launch that cannot run."""
        args: dict[str, Any] = dict(
            arch=self.arch,
            block_size=self.block_size,
            registers_per_thread=self.registers_per_thread,
            static_smem=self.static_smem,
            dynamic_smem=self.dynamic_smem,
            carveout=self.carveout,
            barriers=self.barriers,
        )
        return evaluate(**(args | changes))

    def to_dict(self) -> dict[str, object]:
        return {
            "arch": self.arch.name,
            "block_size": self.block_size,
            "registers_per_thread": self.registers_per_thread,
            "static_smem": self.static_smem,
            "dynamic_smem": self.dynamic_smem,
            "carveout": self.carveout,
            "barriers": self.barriers,
            "active_blocks_per_sm": self.active_blocks_per_sm,
            "active_warps_per_sm": self.active_warps_per_sm,
            "max_warps_per_sm": self.arch.max_warps_per_sm,
            "occupancy_pct": round(self.occupancy_pct, 4),
            "limiter": self.limiter,
            "limiters": list(self.limiters),
            **{f"block_limit_{k}": v for k, v in self.limits.items()},
            "allocated_registers_per_block": self.allocated_registers_per_block,
            "allocated_shared_mem_per_block": self.allocated_shared_mem_per_block,
            "shared_mem_per_sm": self.shared_mem_per_sm,
            "error": self.error,
        }


def calculate(
    arch: str | Arch,
    block_size: int,
    registers_per_thread: int,
    static_smem: int = 0,
    dynamic_smem: int = 0,
    carveout: int | None = None,
    barriers: int = 1,
    shared_mem_config: int | None = None,
) -> Occupancy:
    """Occupancy of a launch; raises OccupancyError when the launch cannot run at all.

    ``carveout`` is the preferred shared-memory share of the unified L1 in percent
    (``cudaFuncAttributePreferredSharedMemoryCarveout``; None = the driver's default, the
    largest). ``shared_mem_config`` instead fixes the SM's shared memory in bytes, as
    Nsight Compute reports it per launch (``launch__shared_mem_config_size``).
    Dynamic shared memory beyond 48 KB is taken as opted in
    (``cudaFuncAttributeMaxDynamicSharedMemorySize``), up to the architecture's ceiling.
    """
    result = evaluate(
        arch,
        block_size,
        registers_per_thread,
        static_smem,
        dynamic_smem,
        carveout,
        barriers,
        shared_mem_config,
    )
    if result.error:
        raise OccupancyError(result.error)
    return result


def evaluate(
    arch: str | Arch,
    block_size: int,
    registers_per_thread: int,
    static_smem: int = 0,
    dynamic_smem: int = 0,
    carveout: int | None = None,
    barriers: int = 1,
    shared_mem_config: int | None = None,
) -> Occupancy:
    """Like ``calculate``, but a launch that cannot run comes back with 0 blocks and ``error``
    set (sweeps and batch mode need those points too)."""
    a = get_arch(arch)
    _check_inputs(block_size, registers_per_thread, static_smem, dynamic_smem, carveout, barriers)
    warps = -(-block_size // a.warp_size)
    errors: list[str] = []

    limit_warps = _warps_limit(a, block_size, warps, errors)
    limit_regs, regs_warp = _registers_limit(a, registers_per_thread, warps, errors)
    limit_smem, smem_block, smem_sm = _shared_limit(
        a, static_smem, dynamic_smem, carveout, shared_mem_config, errors
    )
    limit_bars = None
    if a.barrier_limited and barriers > 0:
        limit_bars = a.barrier_pool_per_block_slot * a.max_blocks_per_sm // barriers
    return Occupancy(
        arch=a,
        block_size=block_size,
        registers_per_thread=registers_per_thread,
        static_smem=static_smem,
        dynamic_smem=dynamic_smem,
        carveout=carveout,
        barriers=barriers,
        warps_per_block=warps,
        block_limit_warps=limit_warps,
        block_limit_registers=limit_regs,
        block_limit_shared_mem=limit_smem,
        block_limit_blocks=a.max_blocks_per_sm,
        block_limit_barriers=limit_bars,
        allocated_registers_per_warp=regs_warp,
        allocated_registers_per_block=regs_warp * warps,
        allocated_shared_mem_per_block=smem_block,
        shared_mem_per_sm=smem_sm,
        error="; ".join(errors) or None,
    )


def _check_inputs(
    block_size: int, registers: int, static: int, dynamic: int, carveout: int | None, barriers: int
) -> None:
    if block_size < 1:
        raise OccupancyError(f"block size {block_size}: a block has at least 1 thread")
    if registers < 0 or static < 0 or dynamic < 0 or barriers < 0:
        raise OccupancyError("registers, shared memory and barriers cannot be negative")
    if carveout is not None and not 0 <= carveout <= 100:
        raise OccupancyError(f"carveout {carveout}%: expected a percentage from 0 to 100")


def _warps_limit(a: Arch, block_size: int, warps: int, errors: list[str]) -> int:
    if block_size > a.max_threads_per_block:
        errors.append(f"{block_size} threads per block: {a.name} allows at most {a.max_threads_per_block}")
        return 0
    return a.max_warps_per_sm // warps


def _registers_limit(a: Arch, registers: int, warps: int, errors: list[str]) -> tuple[int | None, int]:
    per_warp = _round_up(registers * a.warp_size, a.register_alloc_unit)
    if registers > a.max_registers_per_thread:
        errors.append(f"{registers} registers per thread: at most {a.max_registers_per_thread}")
        return 0, per_warp
    # The launch check assumes a block's warps are spread over all sub-partitions at once.
    assumed_per_block = per_warp * _round_up(warps, a.sub_partitions)
    if assumed_per_block > a.registers_per_block:
        errors.append(
            f"{registers} registers x {warps} warps need {assumed_per_block} registers per block "
            f"({per_warp} per warp, warps counted in groups of {a.sub_partitions}); "
            f"{a.name} allows {a.registers_per_block}"
        )
        return 0, per_warp
    if per_warp == 0:
        return None, 0
    blocks = _registers_blocks(a.registers_per_sm, a.sub_partitions, per_warp, warps)
    if a.sub_partitions == 2 and (
        per_warp * _round_up(warps, 4) > a.registers_per_block
        or _registers_blocks(a.registers_per_sm, 4, per_warp, warps) == 0
    ):
        # GP100: what cannot run on the 4-partition Pascal parts is refused here too.
        errors.append(
            f"{registers} registers x {warps} warps do not fit the register file "
            "of a 4-partition Pascal SM, so CUDA refuses them on GP100 as well"
        )
        return 0, per_warp
    return blocks, per_warp


def _registers_blocks(registers_per_sm: int, partitions: int, per_warp: int, warps: int) -> int:
    warps_per_partition = (registers_per_sm // partitions) // per_warp
    return warps_per_partition * partitions // warps


def _shared_limit(
    a: Arch, static: int, dynamic: int, carveout: int | None, config: int | None, errors: list[str]
) -> tuple[int | None, int, int]:
    """(block limit, bytes allocated per block, bytes of shared memory the SM is configured with)."""
    need = static + dynamic + a.reserved_shared_per_block
    allocated = _round_up(need, a.shared_alloc_unit)
    per_block = a.shared_per_block
    if a.has_carveout and static + dynamic + a.reserved_shared_per_block > a.shared_per_block:
        per_block = a.shared_per_block_optin
    ceiling = per_block + a.reserved_shared_per_block
    sm_bytes = _sm_shared(a, carveout, config, allocated)
    if allocated > ceiling:
        reserve = f" + {a.reserved_shared_per_block} B driver reserve" if a.reserved_shared_per_block else ""
        errors.append(
            f"{static + dynamic} B shared memory per block{reserve} exceeds "
            f"{a.name}'s {per_block} B per block"
        )
        return 0, allocated, sm_bytes
    if allocated == 0:
        return None, 0, sm_bytes
    return sm_bytes // allocated, allocated, sm_bytes


def _sm_shared(a: Arch, carveout: int | None, config: int | None, allocated: int) -> int:
    """Shared memory the SM offers this launch: the carveout, grown to fit one block."""
    if not a.has_carveout:
        return a.shared_per_sm
    preferred: int | None
    if config is not None:
        preferred = config
    elif carveout is None:
        preferred = a.shared_per_sm
    else:
        preferred = a.carveout_size(carveout * a.shared_per_sm // 100)
    if preferred is not None and preferred >= allocated:
        return preferred
    grown = a.carveout_size(allocated)
    return a.shared_per_sm if grown is None else grown
