"""Per-SM limits of every architecture warpscope calculates occupancy for.

Facts, not code: the CUDA C++ Programming Guide's "Technical Specifications per
Compute Capability", the per-arch traits of NVIDIA's CCCL (``cuda/__device/arch_traits.h``)
and the constants inside the toolkit's ``cuda_occupancy.h`` (allocation units, carveout
sizes, barrier pools). Where the guide and the header disagree (sm_120: 24 or 32 blocks
per SM) the header wins, because theoretical occupancy is defined as what it computes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

KB = 1024


@dataclass(frozen=True)
class Arch:
    """What one SM of a compute capability offers a kernel launch."""

    name: str  # "sm_90"
    major: int
    minor: int
    family: str  # "Hopper"
    max_threads_per_sm: int
    max_blocks_per_sm: int
    shared_per_sm: int  # bytes, the largest carveout
    shared_per_block_optin: int  # bytes, cudaFuncAttributeMaxDynamicSharedMemorySize ceiling
    registers_per_block: int = 64 * KB
    registers_per_sm: int = 64 * KB
    shared_per_block: int = 48 * KB  # without opt-in
    carveouts_kb: tuple[int, ...] = ()  # SM shared-memory sizes the L1/shared split can take
    barrier_pool_per_block_slot: int = 0  # sm_90+: named barriers = this x max blocks per SM
    max_threads_per_block: int = 1024
    max_registers_per_thread: int = 255
    warp_size: int = 32
    register_alloc_unit: int = 256  # registers, allocated per warp

    @property
    def compute_capability(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    @property
    def sub_partitions(self) -> int:
        """Register files (and schedulers) per SM: GP100 has two, everything else four."""
        return 2 if (self.major, self.minor) == (6, 0) else 4

    @property
    def shared_alloc_unit(self) -> int:
        """Shared memory is allocated to blocks in these steps (bytes)."""
        return 128 if self.major >= 8 else 256

    @property
    def reserved_shared_per_block(self) -> int:
        """Shared memory the driver keeps per block from Ampere on (bytes)."""
        return 1 * KB if self.major >= 8 else 0

    @property
    def has_carveout(self) -> bool:
        """Volta on: the L1/shared split is a per-launch choice, so the SM's size varies."""
        return self.major >= 7

    @property
    def barrier_limited(self) -> bool:
        """Hopper on: named barriers per SM are a pool that can limit resident blocks."""
        return self.major >= 9

    @property
    def warps_per_sub_partition(self) -> int:
        return self.max_warps_per_sm // self.sub_partitions

    def carveout_size(self, requested: int) -> int | None:
        """The SM shared-memory size a request of ``requested`` bytes gets (rounded up to the
        next supported size), or None when no supported size is that large."""
        for kb in self.carveouts_kb:
            if requested <= kb * KB:
                return kb * KB
        return None


_V = (0, 8, 16, 32, 64, 96)
_GA100 = (0, 8, 16, 32, 64, 100, 132, 164)
_GA10X = (0, 8, 16, 32, 64, 100)
_GH100 = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


def _arch(
    name: str, family: str, threads: int, blocks: int, shared_kb: int, optin_kb: int, **extra: Any
) -> Arch:
    major, minor = divmod(int(name[3:]), 10)
    return Arch(name, major, minor, family, threads, blocks, shared_kb * KB, optin_kb * KB, **extra)


ARCHS: dict[str, Arch] = {
    a.name: a
    for a in (
        _arch("sm_50", "Maxwell", 2048, 32, 64, 48),
        _arch("sm_52", "Maxwell", 2048, 32, 96, 48),
        _arch("sm_53", "Maxwell", 2048, 32, 64, 48, registers_per_block=32 * KB),
        _arch("sm_60", "Pascal", 2048, 32, 64, 48),
        _arch("sm_61", "Pascal", 2048, 32, 96, 48),
        _arch("sm_62", "Pascal", 2048, 32, 64, 48, registers_per_block=32 * KB),
        _arch("sm_70", "Volta", 2048, 32, 96, 96, carveouts_kb=_V),
        _arch("sm_72", "Volta", 2048, 32, 96, 96, carveouts_kb=_V),
        _arch("sm_75", "Turing", 1024, 16, 64, 64, carveouts_kb=(32, 64)),
        _arch("sm_80", "Ampere", 2048, 32, 164, 163, carveouts_kb=_GA100),
        _arch("sm_86", "Ampere", 1536, 16, 100, 99, carveouts_kb=_GA10X),
        _arch("sm_87", "Ampere", 1536, 16, 164, 163, carveouts_kb=_GA100),
        _arch("sm_88", "Ampere", 1536, 16, 100, 99, carveouts_kb=_GA10X),
        _arch("sm_89", "Ada", 1536, 24, 100, 99, carveouts_kb=_GA10X),
        _arch("sm_90", "Hopper", 2048, 32, 228, 227, carveouts_kb=_GH100, barrier_pool_per_block_slot=2),
        _arch("sm_100", "Blackwell", 2048, 32, 228, 227, carveouts_kb=_GH100, barrier_pool_per_block_slot=2),
        _arch("sm_103", "Blackwell", 2048, 32, 228, 227, carveouts_kb=_GH100, barrier_pool_per_block_slot=2),
        _arch("sm_110", "Blackwell", 1536, 24, 228, 227, carveouts_kb=_GH100, barrier_pool_per_block_slot=1),
        _arch("sm_120", "Blackwell", 1536, 24, 100, 99, carveouts_kb=_GA10X, barrier_pool_per_block_slot=1),
        _arch("sm_121", "Blackwell", 1536, 24, 100, 99, carveouts_kb=_GA10X, barrier_pool_per_block_slot=1),
    )
}

_SPEC = re.compile(r"^(?:sm|compute|cc)?[_ ]?(\d{1,2})\.?(\d)[af]?$")


class UnknownArch(ValueError):
    """An architecture name warpscope has no limits for."""


def get_arch(spec: str | Arch) -> Arch:
    """The Arch for ``"sm_90"``, ``"sm90a"``, ``"90"``, ``"9.0"`` or ``"compute_90"``."""
    if isinstance(spec, Arch):
        return spec
    text = str(spec).strip().lower()
    match = _SPEC.match(text)
    if match:
        arch = ARCHS.get(f"sm_{match[1]}{match[2]}")
        if arch is not None:
            return arch
    known = ", ".join(ARCHS)
    raise UnknownArch(f"unknown architecture {spec!r}; known: {known}")
