"""Per-architecture timing parameters, as data, with where each number comes from.

The same numbers serve every kernel: nothing here is fitted to a seed kernel. sm_90 is
measured on an H100 SXM (``tools/gpu/latency_bench.cu``, results in
``tools/gpu/measured/``); the other architectures take published figures, named in
``SOURCES``. Cycle counts are SM cycles; memory latencies beyond L1 and DRAM bandwidth
are in nanoseconds, since the memory system runs on its own clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

#: SMs of the GPU each architecture's emulated device stands for (its best-known part)
SM_COUNT = {
    "sm_50": 16,
    "sm_52": 24,
    "sm_53": 1,
    "sm_60": 56,
    "sm_61": 28,
    "sm_62": 2,
    "sm_70": 80,
    "sm_72": 8,
    "sm_75": 40,
    "sm_80": 108,
    "sm_86": 84,
    "sm_87": 16,
    "sm_88": 16,
    "sm_89": 128,
    "sm_90": 132,
    "sm_100": 148,
    "sm_103": 148,
    "sm_110": 20,
    "sm_120": 170,
    "sm_121": 48,
}


@dataclass(frozen=True)
class Timing:
    """What one SM of an architecture does per cycle, and how long things take."""

    arch: str
    device: str
    sms: int
    clock_hz: float  # SM clock while profiled (Nsight Compute locks base clocks)
    # fixed latencies (cycles): result to dependent issue
    alu_latency: int = 4
    fma_latency: int = 4
    fp64_latency: int = 8
    # variable latencies (cycles), waited on through a scoreboard
    xu_latency: int = 44  # a transcendental's whole sequence (used when xu_refinement is 0)
    mufu_latency: int = 20  # MUFU result to the first refinement instruction
    xu_refinement: int = 6  # dependent FMA-pipe instructions nvcc puts after MUFU (IEEE sqrtf)
    conversion_latency: int = 8  # I2F / F2I / F2F
    fdiv_latency: int = 44  # fp32 division: MUFU.RCP and refinement
    shared_latency: int = 29
    shuffle_latency: int = 29
    l1_latency: int = 43
    l2_latency_ns: float = 190.0
    dram_latency_ns: float = 330.0
    store_ack_cycles: int = 150  # a store's acknowledgement (what drain waits for)
    branch_cycles: int = 4  # branch target resolution
    # throughput: lanes per cycle per SM of each pipe (CUDA C++ Programming Guide,
    # "Arithmetic Instructions" table); a warp instruction occupies a sub-partition's pipe
    # for 32 / (lanes / 4) cycles
    fma_lanes: int = 128
    alu_lanes: int = 64
    fp64_lanes: int = 64
    xu_lanes: int = 16
    cvt_lanes: int = 64  # I2F / F2I
    shuffle_per_cycle: float = 1.0  # warp shuffles per cycle per SM
    shared_wavefronts_per_cycle: float = 1.0
    l1_lines_per_cycle: float = 1.0  # L1 tag stage: one 128-byte line per cycle
    l2_sectors_per_cycle: float = 0.83  # this SM's share of L2 bandwidth
    dram_gbps: float = 2800.0  # whole GPU
    mio_queue: int = 5  # per sub-partition: 4 entries + 1 latch (Huerta et al.)
    lg_queue: int = 5
    l1_bytes: int = 256 * 1024  # unified L1 + shared memory per SM
    # launch costs
    launch_overhead_ns: float = 2040.0
    blocks_per_cycle: float = 1.04  # whole GPU: how fast the work distributor starts blocks
    warp_start_cycles: int = 11  # a new warp's first fetch, instruction cache warm
    cold_start_cycles: int = 116  # the first warp of a launch on an SM (instruction cache miss)
    exit_cycles: int = 16  # EXIT to the warp's slot being free, nothing outstanding
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def cycles(self, ns: float) -> int:
        return max(1, round(ns * self.clock_hz / 1e9))

    @property
    def dram_sectors_per_cycle(self) -> float:
        """This SM's share of DRAM bandwidth, in 32-byte sectors per SM cycle."""
        return self.dram_gbps * 1e9 / self.sms / self.clock_hz / 32


H100_MEASURED = "measured on the H100 by tools/gpu/latency_bench.cu (tools/gpu/measured/h100_latency.txt)"
H100_NCU = "measured with ncu on the H100 (tools/gpu/measured/h100_ncu_blocks.txt)"
GUIDE = "CUDA C++ Programming Guide, arithmetic instruction throughput table"
HUERTA = "Huerta et al., MICRO 2025 (microbenchmarks of Hopper's MIO and LG queues)"
ASSUMED = "assumed (no measurement): see docs/emulator-validation.md"

_SM90 = Timing(
    arch="sm_90",
    device="H100 SXM",
    sms=132,
    clock_hz=1.59e9,
    sources={
        "clock_hz": "gpc__cycles_elapsed.avg.per_second in the H100 seed export (ncu locks base clocks)",
        "alu_latency": H100_MEASURED + ": dependent IADD/LOP chain 4.26 cycles",
        "fma_latency": H100_MEASURED + ": FFMA chain 4.24",
        "fp64_latency": "GPGPU-Sim QV100 config (DP add 8)",
        "xu_latency": H100_MEASURED + ": sqrtf + FADD chain 47.8 cycles, less the FADD",
        "mufu_latency": "the measured 44-cycle sqrtf less its refinement: 44 - 6 x 4",
        "xu_refinement": "SASS of the seed export: withDivergence runs 13.7 instructions per loop iteration "
        "where the source has 6; the IEEE sqrtf expansion is MUFU.RSQ plus ~6 FFMA/FMUL/FSETP",
        "conversion_latency": ASSUMED,
        "fdiv_latency": ASSUMED + " (equal to the sqrt sequence)",
        "shared_latency": H100_MEASURED + ": shared pointer chase 29.0",
        "shuffle_latency": ASSUMED + " (equal to LDS)",
        "l1_latency": H100_MEASURED + ": L1 pointer chase 42.9",
        "l2_latency_ns": H100_MEASURED + ": 367-382 cycles at 1980 MHz",
        "dram_latency_ns": H100_MEASURED + ": 638-683 cycles at 1980 MHz",
        "store_ack_cycles": H100_NCU + ": drain of store_many<<<.., 64>>> (159 cycles per warp)",
        "branch_cycles": ASSUMED,
        "fma_lanes": GUIDE,
        "alu_lanes": GUIDE,
        "fp64_lanes": GUIDE,
        "xu_lanes": GUIDE + "; " + H100_MEASURED + ": rsqrtf 15.8 per SM per cycle",
        "cvt_lanes": H100_MEASURED + ": I2F at 40.5 per SM per cycle, issue-bound (IADD + I2F + FADD each), "
        "so not on the 16-lane MUFU pipe; taken as the integer pipe's 64",
        "shuffle_per_cycle": GUIDE + " (32 shuffle lanes per SM)",
        "shared_wavefronts_per_cycle": "Nsight Compute: 128 B per cycle",
        "l1_lines_per_cycle": "Nsight Compute L1TEX t-stage: one tag lookup per cycle",
        "l2_sectors_per_cycle": H100_MEASURED + ": 6905 GB/s L2 reads at 1980 MHz / 132 SMs",
        "dram_gbps": H100_MEASURED + ": 2614 (read) - 2822 (copy) GB/s",
        "mio_queue": HUERTA,
        "lg_queue": HUERTA,
        "l1_bytes": "NVIDIA Hopper tuning guide (256 KB L1 + shared)",
        "launch_overhead_ns": H100_NCU + ": empty kernel 2.18 us less its 224 SM-active cycles",
        "blocks_per_cycle": H100_NCU + ": 33,792 empty blocks take 32,437 more cycles than one",
        "warp_start_cycles": H100_NCU + ": no_instruction of empty_many (5.3 per issue x 2)",
        "cold_start_cycles": H100_NCU + ": no_instruction of the empty kernel (58 per issue x 2)",
        "exit_cycles": H100_NCU + ": drain of empty_many<<<.., 256>>> (8 per issue x 2)",
    },
)

LITERATURE = (
    "published figures (GPGPU-Sim / Accel-Sim configs, Jia et al. microbenchmarks, vendor "
    "datasheets), not measured here; latencies other than these default to the sm_90 values"
)

TIMINGS: dict[str, Timing] = {
    "sm_90": _SM90,
    "sm_70": replace(
        _SM90,
        arch="sm_70",
        device="V100 SXM2",
        sms=80,
        clock_hz=1.38e9,
        fma_lanes=64,
        fp64_lanes=32,
        shared_latency=19,
        shuffle_latency=19,
        l1_latency=28,
        l2_latency_ns=150.0,
        dram_latency_ns=300.0,
        dram_gbps=900.0,
        l2_sectors_per_cycle=0.6,
        l1_bytes=128 * 1024,
        launch_overhead_ns=2500.0,
        blocks_per_cycle=0.6,
        sources={"*": LITERATURE},
    ),
    "sm_80": replace(
        _SM90,
        arch="sm_80",
        device="A100 SXM4",
        sms=108,
        clock_hz=1.41e9,
        fma_lanes=64,
        fp64_lanes=32,
        shared_latency=23,
        shuffle_latency=23,
        l1_latency=33,
        l2_latency_ns=180.0,
        dram_latency_ns=350.0,
        dram_gbps=1555.0,
        l2_sectors_per_cycle=0.8,
        l1_bytes=192 * 1024,
        launch_overhead_ns=2200.0,
        blocks_per_cycle=0.8,
        sources={"*": LITERATURE},
    ),
    "sm_86": replace(
        _SM90,
        arch="sm_86",
        device="RTX A6000",
        sms=84,
        clock_hz=1.80e9,
        fma_lanes=128,
        fp64_lanes=2,
        shared_latency=23,
        shuffle_latency=23,
        l1_latency=33,
        l2_latency_ns=160.0,
        dram_latency_ns=350.0,
        dram_gbps=768.0,
        l2_sectors_per_cycle=0.6,
        l1_bytes=128 * 1024,
        launch_overhead_ns=2200.0,
        blocks_per_cycle=0.6,
        sources={"*": LITERATURE},
    ),
    "sm_89": replace(
        _SM90,
        arch="sm_89",
        device="RTX 4090",
        sms=128,
        clock_hz=2.23e9,
        fma_lanes=128,
        fp64_lanes=2,
        shared_latency=23,
        shuffle_latency=23,
        l1_latency=33,
        l2_latency_ns=140.0,
        dram_latency_ns=320.0,
        dram_gbps=1008.0,
        l2_sectors_per_cycle=0.6,
        l1_bytes=128 * 1024,
        launch_overhead_ns=2200.0,
        blocks_per_cycle=0.8,
        sources={"*": LITERATURE},
    ),
}


def timing_for(arch: str) -> Timing:
    """The timing parameters of ``arch``; an architecture without its own uses the nearest older one."""
    if arch in TIMINGS:
        return TIMINGS[arch]
    number = int(arch.removeprefix("sm_")) if arch.removeprefix("sm_").isdigit() else 90
    older = [a for a in TIMINGS if int(a[3:]) <= number]
    base = TIMINGS[max(older, key=lambda a: int(a[3:]))] if older else TIMINGS["sm_70"]
    return replace(base, arch=arch, sms=SM_COUNT.get(arch, base.sms))
