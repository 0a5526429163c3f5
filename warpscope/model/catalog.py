"""The canonical metric catalog: the one place that says what each metric means.

Every importer maps what its file calls a metric onto these ids, in base units
(``warpscope.model.units``), so rules, reports and the TUI read Nsight Compute,
nvprof and emulator profiles alike. ``ncu`` lists internal metric names (raw page,
``--print-metric-name name``, ``--metrics``), ``labels`` the (section, label) pairs of
the details page across versions (2019 ``GPU Speed Of Light`` to 2025), ``nvprof``
the legacy names. A source's ``factor`` turns its base-unit value into the
canonical unit (e.g. threads per warp 0-32 -> percent).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warpscope.model.tensor_paths import TENSOR_PATHS


@dataclass(frozen=True)
class Alias:
    """One name a profiler gives a canonical metric."""

    name: str
    factor: float = 1.0
    section: str | None = None  # details label only: the section it sits in


@dataclass(frozen=True)
class Metric:
    id: str
    unit: str
    definition: str
    formula: str
    ncu: tuple[Alias, ...] = ()
    labels: tuple[Alias, ...] = ()
    nvprof: tuple[Alias, ...] = ()
    derived_from: tuple[str, ...] = field(default=())


def _n(*names: str, factor: float = 1.0) -> tuple[Alias, ...]:
    return tuple(Alias(n, factor) for n in names)


def _l(section: str | tuple[str, ...], *labels: str, factor: float = 1.0) -> tuple[Alias, ...]:
    sections = (section,) if isinstance(section, str) else section
    return tuple(Alias(lab, factor, sec) for sec in sections for lab in labels)


SOL = ("GPU Speed Of Light Throughput", "GPU Speed Of Light")
LAUNCH = "Launch Statistics"
OCC = "Occupancy"
WSS = "Warp State Statistics"
SCHED = "Scheduler Statistics"
SRC = "Source Counters"
MWA = "Memory Workload Analysis"
CWA = "Compute Workload Analysis"
PER_WARP_PCT = 100.0 / 32.0  # threads per warp instruction (0-32) -> percent of 32 lanes

CATALOG: tuple[Metric, ...] = (
    # -- launch ---------------------------------------------------------------
    Metric(
        "duration_ns",
        "ns",
        "GPU time of the launch, from start to end on the device.",
        "gpu__time_duration.sum",
        ncu=_n("gpu__time_duration.sum"),
        labels=_l(SOL, "Duration"),
        nvprof=_n("Duration"),
    ),
    Metric(
        "start_ns",
        "ns",
        "When the launch began, on the profiler's clock (traces).",
        "trace Start",
        nvprof=_n("Start"),
    ),
    Metric(
        "total_duration_ns",
        "ns",
        "GPU time of all the launches a summary row stands for.",
        "summary Time",
        nvprof=_n("Time"),
    ),
    Metric(
        "time_share_pct",
        "%",
        "Share of all GPU activity time (summary Time(%)).",
        "summary Time(%)",
        nvprof=_n("Time(%)"),
    ),
    Metric(
        "elapsed_cycles",
        "cycle",
        "GPU cycles elapsed during the launch (max over GPCs).",
        "gpc__cycles_elapsed.max",
        ncu=_n("gpc__cycles_elapsed.max"),
        labels=_l(SOL, "Elapsed Cycles"),
    ),
    Metric(
        "sm_active_cycles",
        "cycle",
        "Cycles an SM had at least one warp resident, averaged over SMs.",
        "sm__cycles_active.avg",
        ncu=_n("sm__cycles_active.avg"),
        labels=_l(SOL, "SM Active Cycles"),
    ),
    Metric(
        "sm_frequency_hz",
        "hz",
        "SM clock during the launch.",
        "gpc__cycles_elapsed.avg.per_second",
        ncu=_n("gpc__cycles_elapsed.avg.per_second"),
        labels=_l(SOL, "SM Frequency"),
    ),
    Metric(
        "dram_frequency_hz",
        "hz",
        "Memory clock during the launch.",
        "dram__cycles_elapsed.avg.per_second",
        ncu=_n("dram__cycles_elapsed.avg.per_second"),
        labels=_l(SOL, "DRAM Frequency", "Memory Frequency"),
    ),
    Metric(
        "block_size",
        "thread",
        "Threads per block (x*y*z).",
        "launch__block_size",
        ncu=_n("launch__block_size"),
        labels=_l(LAUNCH, "Block Size"),
    ),
    Metric(
        "grid_size",
        "block",
        "Blocks in the grid (x*y*z).",
        "launch__grid_size",
        ncu=_n("launch__grid_size"),
        labels=_l(LAUNCH, "Grid Size"),
    ),
    Metric(
        "threads",
        "thread",
        "Threads launched (grid size x block size).",
        "launch__thread_count",
        ncu=_n("launch__thread_count"),
        labels=_l(LAUNCH, "Threads"),
    ),
    Metric(
        "registers_per_thread",
        "register/thread",
        "Registers the compiler allocated per thread.",
        "launch__registers_per_thread",
        ncu=_n("launch__registers_per_thread"),
        labels=_l(LAUNCH, "Registers Per Thread"),
        nvprof=_n("Registers Per Thread"),
    ),
    Metric(
        "static_shared_bytes",
        "byte",
        "Statically declared shared memory per block.",
        "launch__shared_mem_per_block_static",
        ncu=_n("launch__shared_mem_per_block_static"),
        labels=_l(LAUNCH, "Static Shared Memory Per Block"),
        nvprof=_n("Static SMem"),
    ),
    Metric(
        "dynamic_shared_bytes",
        "byte",
        "Dynamic shared memory per block (launch argument).",
        "launch__shared_mem_per_block_dynamic",
        ncu=_n("launch__shared_mem_per_block_dynamic"),
        labels=_l(LAUNCH, "Dynamic Shared Memory Per Block"),
        nvprof=_n("Dynamic SMem"),
    ),
    Metric(
        "driver_shared_bytes",
        "byte",
        "Shared memory the driver reserves per block (1 KB from sm_80).",
        "launch__shared_mem_per_block_driver",
        ncu=_n("launch__shared_mem_per_block_driver"),
        labels=_l(LAUNCH, "Driver Shared Memory Per Block"),
    ),
    Metric(
        "shared_mem_config_bytes",
        "byte",
        "Shared memory carveout configured per SM for the launch.",
        "launch__shared_mem_config_size",
        ncu=_n("launch__shared_mem_config_size"),
        labels=_l(LAUNCH, "Shared Memory Configuration Size"),
    ),
    Metric(
        "barriers_per_block",
        "barrier",
        "Named barriers (bar.sync ids) a block of the kernel uses.",
        "launch__barrier_count",
        ncu=_n("launch__barrier_count"),
    ),
    Metric(
        "sm_count",
        "SM",
        "Streaming multiprocessors on the device.",
        "launch__sm_count (or device__attribute_multiprocessor_count)",
        ncu=_n("launch__sm_count", "device__attribute_multiprocessor_count"),
        labels=_l(LAUNCH, "# SMs"),
    ),
    Metric(
        "l2_cache_bytes",
        "byte",
        "The device's L2 cache size.",
        "device__attribute_l2_cache_size",
        ncu=_n("device__attribute_l2_cache_size"),
    ),
    Metric(
        "waves_per_sm",
        "",
        "Full waves of blocks per SM: grid size / (active blocks per SM x SMs).",
        "launch__waves_per_multiprocessor",
        ncu=_n("launch__waves_per_multiprocessor"),
        labels=_l(LAUNCH, "Waves Per SM"),
    ),
    # -- occupancy ------------------------------------------------------------
    Metric(
        "theoretical_occupancy_pct",
        "%",
        "Most warps an SM can hold for this launch, as % of its warp slots.",
        "sm__maximum_warps_per_active_cycle_pct",
        ncu=_n("sm__maximum_warps_per_active_cycle_pct"),
        labels=_l(OCC, "Theoretical Occupancy"),
    ),
    Metric(
        "theoretical_active_warps",
        "warp",
        "Most warps an SM can hold for this launch.",
        "sm__maximum_warps_avg_per_active_cycle",
        ncu=_n("sm__maximum_warps_avg_per_active_cycle"),
        labels=_l(OCC, "Theoretical Active Warps per SM"),
    ),
    Metric(
        "achieved_occupancy_pct",
        "%",
        "Warps resident per active cycle, averaged over SMs, as % of the SM's warp slots.",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        ncu=_n("sm__warps_active.avg.pct_of_peak_sustained_active"),
        labels=_l(OCC, "Achieved Occupancy"),
        nvprof=_n("achieved_occupancy", factor=100.0),
    ),
    Metric(
        "achieved_active_warps",
        "warp",
        "Warps resident per active cycle, averaged over SMs.",
        "sm__warps_active.avg.per_cycle_active",
        ncu=_n("sm__warps_active.avg.per_cycle_active"),
        labels=_l(OCC, "Achieved Active Warps Per SM"),
    ),
    Metric(
        "block_limit_registers",
        "block",
        "Blocks per SM the register file allows.",
        "launch__occupancy_limit_registers",
        ncu=_n("launch__occupancy_limit_registers"),
        labels=_l(OCC, "Block Limit Registers"),
    ),
    Metric(
        "block_limit_shared_mem",
        "block",
        "Blocks per SM the shared memory allows.",
        "launch__occupancy_limit_shared_mem",
        ncu=_n("launch__occupancy_limit_shared_mem"),
        labels=_l(OCC, "Block Limit Shared Mem"),
    ),
    Metric(
        "block_limit_warps",
        "block",
        "Blocks per SM the warp slots allow.",
        "launch__occupancy_limit_warps",
        ncu=_n("launch__occupancy_limit_warps"),
        labels=_l(OCC, "Block Limit Warps"),
    ),
    Metric(
        "block_limit_blocks",
        "block",
        "The hardware's limit of resident blocks per SM.",
        "launch__occupancy_limit_blocks",
        ncu=_n("launch__occupancy_limit_blocks"),
        labels=_l(OCC, "Block Limit SM"),
    ),
    Metric(
        "block_limit_barriers",
        "block",
        "Blocks per SM the named barriers allow (sm_90+).",
        "launch__occupancy_limit_barriers",
        ncu=_n("launch__occupancy_limit_barriers"),
        labels=_l(OCC, "Block Limit Barriers"),
    ),
    # -- divergence -----------------------------------------------------------
    Metric(
        "branch_efficiency_pct",
        "%",
        "Share of executed branches whose active threads all took the same target.",
        "smsp__sass_average_branch_targets_threads_uniform.pct",
        ncu=_n("smsp__sass_average_branch_targets_threads_uniform.pct"),
        labels=_l(SRC, "Branch Efficiency"),
        nvprof=_n("branch_efficiency"),
    ),
    Metric(
        "warp_execution_efficiency_pct",
        "%",
        "Active threads per executed warp instruction, as % of 32.",
        "smsp__thread_inst_executed_per_inst_executed.ratio / 32 x 100",
        ncu=_n("smsp__thread_inst_executed_per_inst_executed.ratio", factor=PER_WARP_PCT),
        labels=_l(WSS, "Avg. Active Threads Per Warp", factor=PER_WARP_PCT),
        nvprof=_n("warp_execution_efficiency"),
    ),
    Metric(
        "warp_nonpred_execution_efficiency_pct",
        "%",
        "Active and predicated-on threads per executed warp instruction, as % of 32.",
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio / 32 x 100",
        ncu=_n("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", factor=PER_WARP_PCT),
        labels=_l(WSS, "Avg. Not Predicated Off Threads Per Warp", factor=PER_WARP_PCT),
        nvprof=_n("warp_nonpred_execution_efficiency"),
    ),
    Metric(
        "divergent_branches",
        "branches",
        "Branch instructions whose active threads took more than one target, summed over the GPU.",
        "smsp__sass_branch_targets_threads_divergent.sum "
        "(details: Avg. Divergent Branches x SMs x 4 sub-partitions)",
        ncu=_n("smsp__sass_branch_targets_threads_divergent.sum"),
        nvprof=_n("divergent_branch"),
    ),
    Metric(
        "divergent_branches_per_smsp",
        "branches",
        "Divergent branches per SM sub-partition (the details page's average).",
        "smsp__sass_branch_targets_threads_divergent.avg",
        ncu=_n("smsp__sass_branch_targets_threads_divergent.avg"),
        labels=_l(SRC, "Avg. Divergent Branches"),
    ),
    Metric(
        "branch_instructions",
        "inst",
        "Branch instructions executed (warp level).",
        "smsp__inst_executed_op_branch.sum",
        ncu=_n("smsp__inst_executed_op_branch.sum"),
        labels=_l(SRC, "Branch Instructions"),
    ),
    # -- global memory --------------------------------------------------------
    Metric(
        "global_load_requests",
        "request",
        "Global load instructions sent to L1TEX (one per warp).",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        ncu=_n("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ),
    Metric(
        "global_load_sectors",
        "sector",
        "32-byte sectors global loads touched.",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        ncu=_n("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        nvprof=_n("gld_transactions"),
    ),
    Metric(
        "global_load_sectors_per_request",
        "sector/request",
        "Sectors per global load request: 4 is perfectly coalesced 4-byte access, 32 the worst.",
        "global_load_sectors / global_load_requests",
        ncu=_n("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"),
        nvprof=_n("gld_transactions_per_request"),
        derived_from=("global_load_sectors", "global_load_requests"),
    ),
    Metric(
        "global_store_requests",
        "request",
        "Global store instructions sent to L1TEX (one per warp).",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        ncu=_n("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ),
    Metric(
        "global_store_sectors",
        "sector",
        "32-byte sectors global stores touched.",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        ncu=_n("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
        nvprof=_n("gst_transactions"),
    ),
    Metric(
        "global_store_sectors_per_request",
        "sector/request",
        "Sectors per global store request.",
        "global_store_sectors / global_store_requests",
        ncu=_n("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"),
        nvprof=_n("gst_transactions_per_request"),
        derived_from=("global_store_sectors", "global_store_requests"),
    ),
    Metric(
        "global_load_efficiency_pct",
        "%",
        "Bytes global loads asked for per byte of the sectors they moved.",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
        # 2025 exports state bytes per sector (.ratio, 32 = every byte used), older ones a percent
        ncu=(
            *_n("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"),
            *_n("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", factor=100 / 32),
        ),
        nvprof=_n("gld_efficiency"),
    ),
    Metric(
        "global_store_efficiency_pct",
        "%",
        "Bytes global stores wrote per byte of the sectors they moved.",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
        # 2025 exports state bytes per sector (.ratio, 32 = every byte used), older ones a percent
        ncu=(
            *_n("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"),
            *_n("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", factor=100 / 32),
        ),
        nvprof=_n("gst_efficiency"),
    ),
    Metric(
        "global_excess_sectors",
        "sector",
        "Global-memory sectors moved (loads and stores) beyond the fewest the accessed bytes fit in: "
        "what uncoalesced access costs.",
        "derived__memory_l2_theoretical_sectors_global_excessive (theoretical - ideal sectors)",
        ncu=_n("derived__memory_l2_theoretical_sectors_global_excessive"),
    ),
    Metric(
        "shared_excess_wavefronts",
        "wavefront",
        "Shared-memory wavefronts (loads and stores) beyond the ideal: what bank conflicts cost.",
        "derived__memory_l1_wavefronts_shared_excessive (wavefronts - ideal wavefronts)",
        ncu=_n("derived__memory_l1_wavefronts_shared_excessive"),
    ),
    # -- shared memory --------------------------------------------------------
    Metric(
        "shared_load_requests",
        "inst",
        "Shared-memory load instructions executed (warp level).",
        "smsp__inst_executed_op_shared_ld.sum",
        ncu=_n("smsp__inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ),
    Metric(
        "shared_load_wavefronts",
        "wavefront",
        "Shared-memory load wavefronts: passes the data stage needed; requests + conflicts.",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        ncu=_n("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
        nvprof=_n("shared_load_transactions"),
    ),
    Metric(
        "shared_load_bank_conflicts",
        "conflict",
        "Extra shared-load wavefronts caused by bank conflicts.",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        ncu=_n("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        nvprof=_n("shared_ld_bank_conflict"),
    ),
    Metric(
        "shared_load_transactions_per_request",
        "wavefront/request",
        "Shared-load wavefronts per shared-load instruction: 1 without bank conflicts.",
        "shared_load_wavefronts / shared_load_requests",
        nvprof=_n("shared_load_transactions_per_request"),
        derived_from=("shared_load_wavefronts", "shared_load_requests"),
    ),
    Metric(
        "shared_store_transactions_per_request",
        "wavefront/request",
        "Shared-store wavefronts per shared-store instruction: 1 without bank conflicts.",
        "shared_store_wavefronts / shared_store_requests",
        nvprof=_n("shared_store_transactions_per_request"),
        derived_from=("shared_store_wavefronts", "shared_store_requests"),
    ),
    Metric(
        "shared_efficiency_pct",
        "%",
        "Requested shared-memory bytes as % of bytes moved.",
        "smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct",
        ncu=_n("smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct"),
        nvprof=_n("shared_efficiency"),
    ),
    Metric(
        "shared_store_requests",
        "inst",
        "Shared-memory store instructions executed (warp level).",
        "smsp__inst_executed_op_shared_st.sum",
        ncu=_n("smsp__inst_executed_op_shared_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
    ),
    Metric(
        "shared_store_wavefronts",
        "wavefront",
        "Shared-memory store wavefronts.",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        ncu=_n("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
        nvprof=_n("shared_store_transactions"),
    ),
    Metric(
        "shared_store_bank_conflicts",
        "conflict",
        "Extra shared-store wavefronts caused by bank conflicts.",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        ncu=_n("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
        nvprof=_n("shared_st_bank_conflict"),
    ),
    # -- throughput and scheduling ---------------------------------------------
    Metric(
        "sm_throughput_pct",
        "%",
        "Busiest SM unit's throughput as % of its peak (Compute (SM) Throughput).",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        ncu=_n("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        labels=_l(SOL, "Compute (SM) Throughput", "SM [%]"),
    ),
    Metric(
        "memory_throughput_pct",
        "%",
        "Busiest memory unit's throughput as % of its peak.",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        ncu=_n("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
        labels=_l(SOL, "Memory Throughput", "Memory [%]"),
    ),
    Metric(
        "dram_throughput_pct",
        "%",
        "DRAM throughput as % of its peak.",
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
        ncu=_n(
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        ),
        labels=_l(SOL, "DRAM Throughput", "SOL FB"),
    ),
    Metric(
        "l1tex_throughput_pct",
        "%",
        "L1/TEX cache throughput as % of its peak.",
        "l1tex__throughput.avg.pct_of_peak_sustained_active",
        ncu=_n("l1tex__throughput.avg.pct_of_peak_sustained_active"),
        labels=_l(SOL, "L1/TEX Cache Throughput", "SOL TEX"),
    ),
    Metric(
        "l2_throughput_pct",
        "%",
        "L2 cache throughput as % of its peak.",
        "lts__throughput.avg.pct_of_peak_sustained_elapsed",
        ncu=_n("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
        labels=_l(SOL, "L2 Cache Throughput", "SOL L2"),
    ),
    Metric(
        "dram_bytes_per_second",
        "byte/s",
        "DRAM bytes read and written per second.",
        "dram__bytes.sum.per_second",
        ncu=_n("dram__bytes.sum.per_second"),
        labels=_l(MWA, "Memory Throughput"),
    ),
    Metric(
        "dram_read_bytes_per_second",
        "byte/s",
        "DRAM bytes read per second.",
        "dram__bytes_read.sum.per_second",
        ncu=_n("dram__bytes_read.sum.per_second"),
        nvprof=_n("dram_read_throughput"),
    ),
    Metric(
        "dram_write_bytes_per_second",
        "byte/s",
        "DRAM bytes written per second.",
        "dram__bytes_write.sum.per_second",
        ncu=_n("dram__bytes_write.sum.per_second"),
        nvprof=_n("dram_write_throughput"),
    ),
    Metric(
        "dram_utilization_level",
        "level 0-10",
        "nvprof's DRAM utilisation relative to peak on a 0 (idle) to 10 (max) scale.",
        "nvprof dram_utilization",
        nvprof=_n("dram_utilization"),
    ),
    Metric(
        "sm_efficiency_pct",
        "%",
        "Time at least one warp was active on an SM, as % of elapsed, averaged over SMs.",
        "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed",
        ncu=_n("smsp__cycles_active.avg.pct_of_peak_sustained_elapsed"),
        nvprof=_n("sm_efficiency", "sm_activity"),
    ),
    Metric(
        "l1_hit_rate_pct",
        "%",
        "L1/TEX sector hit rate.",
        "l1tex__t_sector_hit_rate.pct",
        ncu=_n("l1tex__t_sector_hit_rate.pct"),
        labels=_l(MWA, "L1/TEX Hit Rate", "L1 Hit Rate"),
    ),
    Metric(
        "l2_hit_rate_pct",
        "%",
        "L2 sector hit rate.",
        "lts__t_sector_hit_rate.pct",
        ncu=_n("lts__t_sector_hit_rate.pct"),
        labels=_l(MWA, "L2 Hit Rate"),
    ),
    Metric(
        "issue_slot_utilization_pct",
        "%",
        "Cycles a scheduler issued an instruction, as % of active cycles (One or More Eligible).",
        "smsp__issue_active.avg.pct_of_peak_sustained_active",
        ncu=_n("smsp__issue_active.avg.pct_of_peak_sustained_active"),
        labels=_l(SCHED, "One or More Eligible"),
        nvprof=_n("issue_slot_utilization"),
    ),
    Metric(
        "ipc_active",
        "inst/cycle",
        "Warp instructions executed per active SM cycle.",
        "sm__inst_executed.avg.per_cycle_active",
        ncu=_n("sm__inst_executed.avg.per_cycle_active"),
        labels=_l(CWA, "Executed Ipc Active"),
        nvprof=_n("ipc", "executed_ipc"),
    ),
    Metric(
        "active_warps_per_scheduler",
        "warp",
        "Warps resident per scheduler per active cycle.",
        "smsp__warps_active.avg.per_cycle_active",
        ncu=_n("smsp__warps_active.avg.per_cycle_active"),
        labels=_l(SCHED, "Active Warps Per Scheduler"),
    ),
    Metric(
        "eligible_warps_per_scheduler",
        "warp",
        "Warps ready to issue per scheduler per active cycle.",
        "smsp__warps_eligible.avg.per_cycle_active",
        ncu=_n("smsp__warps_eligible.avg.per_cycle_active"),
        labels=_l(SCHED, "Eligible Warps Per Scheduler"),
        nvprof=_n("eligible_warps_per_cycle"),
    ),
    Metric(
        "warp_cycles_per_issued_instruction",
        "cycle",
        "Average cycles between two issued instructions of one warp: the sum of all stall reasons.",
        "smsp__average_warp_latency_per_inst_issued.ratio",
        ncu=_n("smsp__average_warp_latency_per_inst_issued.ratio"),
        labels=_l(WSS, "Warp Cycles Per Issued Instruction"),
    ),
    Metric(
        "instructions_executed",
        "inst",
        "Warp instructions executed.",
        "smsp__inst_executed.sum",
        ncu=_n("smsp__inst_executed.sum"),
        labels=_l("Instruction Statistics", "Executed Instructions"),
        nvprof=_n("inst_executed"),
    ),
    Metric(
        "thread_instructions_executed",
        "inst",
        "Thread instructions executed: the active lanes of every warp instruction, summed.",
        "smsp__thread_inst_executed.sum",
        ncu=_n("smsp__thread_inst_executed.sum", "smsp__sass_thread_inst_executed.sum"),
        nvprof=_n("thread_inst_executed"),
    ),
    Metric(
        "global_atomic_requests",
        "inst",
        "Global atomic and reduction instructions executed (warp level).",
        "smsp__sass_inst_executed_op_global_atom.sum + smsp__sass_inst_executed_op_global_red.sum",
        ncu=_n("smsp__sass_inst_executed_op_global_atom.sum"),
    ),
    Metric(
        "global_reduction_requests",
        "inst",
        "Global reductions executed (RED: an atomic whose old value nobody reads, `atomicAdd` "
        "with its result unused), warp level.",
        "smsp__inst_executed_op_global_red.sum",
        ncu=_n("smsp__inst_executed_op_global_red.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
    ),
    Metric(
        "global_atomic_l1_requests",
        "request",
        "Global atomics that return a value (ATOM, CAS) as L1TEX requests.",
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
        ncu=_n("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"),
    ),
    Metric(
        "global_atomic_sectors",
        "sector",
        "32-byte sectors global atomics (ATOM, CAS) sent to L2: kept apart from load and store "
        "sectors in the coalescing arithmetic.",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
        ncu=_n("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"),
    ),
    Metric(
        "global_reduction_sectors",
        "sector",
        "32-byte sectors global reductions (RED) sent to L2.",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
        ncu=_n("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"),
    ),
    Metric(
        "l2_atomic_busiest_slice_pct",
        "%",
        "How busy the busiest L2 slice's atomic unit was (% of elapsed cycles): near 100% while "
        "the mean is low, every atomic queues on a few addresses (contention).",
        "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
        ncu=_n("lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed"),
    ),
    Metric(
        "l2_atomic_mean_pct",
        "%",
        "How busy the L2 slices' atomic units were on average (% of elapsed cycles).",
        "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ncu=_n("lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ),
    Metric(
        "shared_atomic_requests",
        "inst",
        "Shared-memory atomic instructions executed (warp level).",
        "smsp__sass_inst_executed_op_shared_atom.sum",
        ncu=_n("smsp__sass_inst_executed_op_shared_atom.sum", "smsp__inst_executed_op_shared_atom.sum"),
    ),
    Metric(
        "shared_atomic_wavefronts",
        "wavefront",
        "Shared-memory wavefronts of atomic instructions: one per instruction without contention, "
        "more where lanes update different words of one bank or the same word.",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
        ncu=_n("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
    ),
    Metric(
        "shared_atomic_bank_conflicts",
        "conflict",
        "Bank conflicts of shared-memory atomics (replayed wavefronts).",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
        ncu=_n("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
    ),
    Metric(
        "local_load_requests",
        "inst",
        "Local-memory loads executed (warp level): spills, indexed arrays.",
        "smsp__sass_inst_executed_op_local_ld.sum",
        ncu=_n("smsp__sass_inst_executed_op_local_ld.sum"),
        nvprof=_n("local_load_requests"),
    ),
    Metric(
        "local_store_requests",
        "inst",
        "Local-memory stores executed (warp level).",
        "smsp__sass_inst_executed_op_local_st.sum",
        ncu=_n("smsp__sass_inst_executed_op_local_st.sum"),
        nvprof=_n("local_store_requests"),
    ),
    Metric(
        "local_spill_requests",
        "request",
        "Local-memory requests that are register spills (the compiler's, not the code's arrays).",
        "derived__local_spilling_requests",
        ncu=_n("derived__local_spilling_requests"),
    ),
    Metric(
        "local_load_sectors",
        "sector",
        "32-byte sectors local-memory loads touched in L1TEX (register spills, indexed local "
        "arrays): the traffic behind local_load_requests.",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        ncu=_n("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"),
        nvprof=_n("local_load_transactions"),
    ),
    Metric(
        "local_store_sectors",
        "sector",
        "32-byte sectors local-memory stores touched in L1TEX (register spills, indexed local "
        "arrays): the traffic behind local_store_requests.",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        ncu=_n("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"),
        nvprof=_n("local_store_transactions"),
    ),
    Metric(
        "barrier_instructions",
        "inst",
        "Block barriers (__syncthreads) executed, per warp.",
        "smsp__inst_executed_op_barrier.sum (emulator: syncthreads per warp)",
    ),
    Metric(
        "shuffle_instructions",
        "inst",
        "Warp shuffles executed (warp level).",
        "smsp__inst_executed_op_shfl.sum (emulator: shfl_*_sync per warp)",
    ),
    # -- roofline: work, bytes and the roofs (Nsight Compute's SpeedOfLight_RooflineChart) --
    Metric(
        "sm_clock_hz",
        "hz",
        "SM cycles per second as the SMs count them over the launch: the clock Nsight Compute's "
        "roofline multiplies its per-cycle peaks by (it can differ from the GPC clock by several %).",
        "sm__cycles_elapsed.avg.per_second",
        ncu=_n("sm__cycles_elapsed.avg.per_second"),
    ),
    Metric(
        "smsp_elapsed_cycles",
        "cycle",
        "Cycles elapsed per SM sub-partition during the launch (what the per-cycle rates multiply).",
        "smsp__cycles_elapsed.avg",
        ncu=_n("smsp__cycles_elapsed.avg"),
    ),
    Metric(
        "fp32_add_inst",
        "inst",
        "Single-precision add/subtract instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"),
    ),
    Metric(
        "fp32_add_inst_per_cycle",
        "inst/cycle",
        "Single-precision add/subtract thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp32_mul_inst",
        "inst",
        "Single-precision multiply instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"),
    ),
    Metric(
        "fp32_mul_inst_per_cycle",
        "inst/cycle",
        "Single-precision multiply thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp32_fma_inst",
        "inst",
        "Single-precision fused multiply-add instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"),
    ),
    Metric(
        "fp32_fma_inst_per_cycle",
        "inst/cycle",
        "Single-precision fused multiply-add thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp64_add_inst",
        "inst",
        "Double-precision add/subtract instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"),
    ),
    Metric(
        "fp64_add_inst_per_cycle",
        "inst/cycle",
        "Double-precision add/subtract thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp64_mul_inst",
        "inst",
        "Double-precision multiply instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"),
    ),
    Metric(
        "fp64_mul_inst_per_cycle",
        "inst/cycle",
        "Double-precision multiply thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp64_fma_inst",
        "inst",
        "Double-precision fused multiply-add instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"),
    ),
    Metric(
        "fp64_fma_inst_per_cycle",
        "inst/cycle",
        "Double-precision fused multiply-add thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp16_add_inst",
        "inst",
        "Half-precision add/subtract instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum"),
    ),
    Metric(
        "fp16_add_inst_per_cycle",
        "inst/cycle",
        "Half-precision add/subtract thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp16_mul_inst",
        "inst",
        "Half-precision multiply instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum"),
    ),
    Metric(
        "fp16_mul_inst_per_cycle",
        "inst/cycle",
        "Half-precision multiply thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp16_fma_inst",
        "inst",
        "Half-precision fused multiply-add instructions executed by predicated-on threads (thread level).",
        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
        ncu=_n("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"),
    ),
    Metric(
        "fp16_fma_inst_per_cycle",
        "inst/cycle",
        "Half-precision fused multiply-add thread instructions per elapsed cycle, summed over the SM sub-partitions.",
        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed",
        ncu=_n("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed"),
    ),
    Metric(
        "fp32_flop",
        "flop",
        "Single-precision floating-point operations: adds and multiplies count 1, a fused multiply-add 2.",
        "fadd + fmul + 2 × ffma thread instructions (rates × smsp__cycles_elapsed.avg where only rates are exported)",
        nvprof=_n("flop_count_sp"),
        derived_from=("fp32_add_inst", "fp32_mul_inst", "fp32_fma_inst", "smsp_elapsed_cycles"),
    ),
    Metric(
        "fp64_flop",
        "flop",
        "Double-precision floating-point operations: adds and multiplies count 1, a fused multiply-add 2.",
        "dadd + dmul + 2 × dfma thread instructions",
        nvprof=_n("flop_count_dp"),
        derived_from=("fp64_add_inst", "fp64_mul_inst", "fp64_fma_inst", "smsp_elapsed_cycles"),
    ),
    Metric(
        "fp16_flop",
        "flop",
        "Half-precision floating-point operations: each HADD2/HMUL2 thread instruction counts 2, each HFMA2 4 "
        "(two halves per instruction, as Nsight Compute's roofline counts them).",
        "2 × hadd + 2 × hmul + 4 × hfma thread instructions",
        nvprof=_n("flop_count_hp"),
        derived_from=("fp16_add_inst", "fp16_mul_inst", "fp16_fma_inst", "smsp_elapsed_cycles"),
    ),
    Metric(
        "dram_read_bytes",
        "byte",
        "Bytes read from DRAM.",
        "dram__bytes_read.sum",
        ncu=_n("dram__bytes_read.sum"),
        nvprof=_n("dram_read_bytes"),
    ),
    Metric(
        "dram_write_bytes",
        "byte",
        "Bytes written to DRAM.",
        "dram__bytes_write.sum",
        ncu=_n("dram__bytes_write.sum"),
        nvprof=_n("dram_write_bytes"),
    ),
    Metric(
        "dram_bytes",
        "byte",
        "Bytes moved between the L2 and DRAM, read and written.",
        "dram_read_bytes + dram_write_bytes",
        derived_from=("dram_read_bytes", "dram_write_bytes"),
    ),
    Metric(
        "l2_bytes",
        "byte",
        "Bytes the L2 cache served (all requests).",
        "lts__t_bytes.sum",
        ncu=_n("lts__t_bytes.sum"),
    ),
    Metric(
        "l1_bytes",
        "byte",
        "Bytes the L1/TEX cache served (all requests).",
        "l1tex__t_bytes.sum",
        ncu=_n("l1tex__t_bytes.sum"),
    ),
    Metric(
        "flop",
        "flop",
        "All floating-point operations (fp16 + fp32 + fp64).",
        "fp16_flop + fp32_flop + fp64_flop",
        derived_from=("fp16_flop", "fp32_flop", "fp64_flop"),
    ),
    Metric(
        "arithmetic_intensity_dram",
        "flop/byte",
        "Floating-point operations per DRAM byte: where the kernel sits on the roofline's x axis.",
        "flop / dram_bytes",
        derived_from=("flop", "dram_bytes"),
    ),
    Metric(
        "achieved_flop_per_s",
        "flop/s",
        "Floating-point operations per second of the launch's duration.",
        "flop / duration",
        derived_from=("flop", "duration_ns"),
    ),
    Metric(
        "peak_fp32_fma_per_cycle",
        "inst/cycle",
        "Single-precision FMA thread instructions the whole GPU can execute per SM cycle (its FP32 roof).",
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
        ncu=_n("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"),
    ),
    Metric(
        "peak_fp64_fma_per_cycle",
        "inst/cycle",
        "Double-precision FMA thread instructions the whole GPU can execute per SM cycle (its FP64 roof).",
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
        ncu=_n("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"),
    ),
    Metric(
        "peak_fp16_fma_per_cycle",
        "inst/cycle",
        "Half-precision FMA (HFMA2) thread instructions the whole GPU can execute per SM cycle.",
        "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
        ncu=_n("sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained"),
    ),
    Metric(
        "peak_dram_bytes_per_cycle",
        "byte/cycle",
        "DRAM bytes the memory system can move per DRAM cycle (its bandwidth roof).",
        "dram__bytes.sum.peak_sustained",
        ncu=_n("dram__bytes.sum.peak_sustained"),
    ),
    Metric(
        "peak_fp32_flop_per_s",
        "flop/s",
        "The FP32 roof: 2 × peak FMA per cycle × SM clock, as Nsight Compute's roofline draws it.",
        "2 × sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained × sm__cycles_elapsed.avg.per_second",
        derived_from=("peak_fp32_fma_per_cycle", "sm_clock_hz"),
    ),
    Metric(
        "peak_fp64_flop_per_s",
        "flop/s",
        "The FP64 roof: 2 × peak DFMA per cycle × SM clock.",
        "2 × sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained × sm__cycles_elapsed.avg.per_second",
        derived_from=("peak_fp64_fma_per_cycle", "sm_clock_hz"),
    ),
    Metric(
        "peak_fp16_flop_per_s",
        "flop/s",
        "The FP16 (non-tensor) roof: 4 × peak HFMA2 per cycle × SM clock.",
        "4 × sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained × sm__cycles_elapsed.avg.per_second",
        derived_from=("peak_fp16_fma_per_cycle", "sm_clock_hz"),
    ),
    Metric(
        "fma_pipe_active_pct",
        "%",
        "Share of active cycles the FP32 FMA pipe (the SIMT cores' FFMA/FMUL/FADD, and IMAD) was busy.",
        "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
        ncu=_n("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
    ),
    Metric(
        "tensor_pipe_active_pct",
        "%",
        "Share of the peak the tensor pipe (every precision) was busy: ~0 for a GEMM on the SIMT cores.",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active (the TriageCompute section's "
        "realtime, elapsed form where only it is exported)",
        ncu=_n(
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
            "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    Metric(
        "tensor_hmma_inst_pct",
        "%",
        "Warp-level matrix instructions (HMMA: fp16, bf16, tf32 on mma.sync/wmma) as a share of their peak.",
        "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
        ncu=_n("sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active"),
    ),
    Metric(
        "tensor_gmma_inst_pct",
        "%",
        "Warpgroup matrix instructions (GMMA, sm_90's wgmma) as a share of their peak.",
        "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
        ncu=_n("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active"),
    ),
    Metric(
        "peak_dram_bytes_per_s",
        "byte/s",
        "The DRAM bandwidth roof: peak bytes per DRAM cycle × DRAM clock.",
        "dram__bytes.sum.peak_sustained × dram__cycles_elapsed.avg.per_second",
        derived_from=("peak_dram_bytes_per_cycle", "dram_frequency_hz"),
    ),
    # -- hierarchical roofline (SpeedOfLight_Hierarchical*RooflineChart): L1 and L2 traffic ----
    Metric(
        "l1_writeback_bytes_per_s",
        "byte/s",
        "Bytes per second the L1/TEX cache returned to the SMs for global and local accesses "
        "(128 per writeback cycle): the traffic of Nsight Compute's L1 roofline.",
        "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
        ncu=_n(
            "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
            "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second",
        ),
    ),
    Metric(
        "l1_writeback_bytes",
        "byte",
        "Bytes the L1/TEX cache returned to the SMs for global and local accesses over the launch.",
        "l1_writeback_bytes_per_s × duration",
        derived_from=("l1_writeback_bytes_per_s", "duration_ns"),
    ),
    Metric(
        "peak_l1_writeback_bytes_per_cycle",
        "byte/cycle",
        "Bytes all the L1/TEX caches can return per L1 cycle (128 per SM).",
        "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
        ncu=_n(
            "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
            "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained",
        ),
    ),
    Metric(
        "l1_clock_hz",
        "hz",
        "L1/TEX cycles per second over the launch: the clock of the L1 roof.",
        "l1tex__cycles_elapsed.avg.per_second",
        ncu=_n("l1tex__cycles_elapsed.avg.per_second"),
    ),
    Metric(
        "peak_l1_bytes_per_s",
        "byte/s",
        "The L1 bandwidth roof: peak writeback bytes per L1 cycle × L1 clock.",
        "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained × l1tex__cycles_elapsed.avg.per_second",
        derived_from=("peak_l1_writeback_bytes_per_cycle", "l1_clock_hz"),
    ),
    Metric(
        "l2_xbar_bytes_per_s",
        "byte/s",
        "Bytes per second the L2 slices sent to the crossbar (32 per active cycle): the traffic of "
        "Nsight Compute's L2 roofline.",
        "derived__lts__lts2xbar_bytes.sum.per_second",
        ncu=_n("derived__lts__lts2xbar_bytes.sum.per_second"),
    ),
    Metric(
        "l2_xbar_bytes",
        "byte",
        "Bytes the L2 slices sent to the crossbar over the launch.",
        "l2_xbar_bytes_per_s × duration",
        derived_from=("l2_xbar_bytes_per_s", "duration_ns"),
    ),
    Metric(
        "peak_l2_xbar_bytes_per_cycle",
        "byte/cycle",
        "Bytes all the L2 slices can send to the crossbar per L2 cycle (32 per slice).",
        "derived__lts__lts2xbar_bytes.sum.peak_sustained",
        ncu=_n("derived__lts__lts2xbar_bytes.sum.peak_sustained"),
    ),
    Metric(
        "l2_clock_hz",
        "hz",
        "L2 cycles per second over the launch: the clock of the L2 roof.",
        "lts__cycles_elapsed.avg.per_second",
        ncu=_n("lts__cycles_elapsed.avg.per_second"),
    ),
    Metric(
        "peak_l2_bytes_per_s",
        "byte/s",
        "The L2 bandwidth roof: peak crossbar bytes per L2 cycle × L2 clock.",
        "derived__lts__lts2xbar_bytes.sum.peak_sustained × lts__cycles_elapsed.avg.per_second",
        derived_from=("peak_l2_xbar_bytes_per_cycle", "l2_clock_hz"),
    ),
    # -- tensor-core roofline (SpeedOfLight_HierarchicalTensorRooflineChart), dense paths ----
    *(
        m
        for path in TENSOR_PATHS
        for m in (
            Metric(
                path.ops_id,
                "op",
                f"Tensor-core operations on the {path.label} path (dense; a multiply-add counts 2).",
                f"{path.ncu}.sum",
                ncu=_n(f"{path.ncu}.sum"),
            ),
            Metric(
                path.peak_per_cycle_id,
                "op/cycle",
                f"Tensor-core operations the whole GPU can do per SM cycle on the {path.label} path.",
                f"{path.ncu}.sum.peak_sustained",
                ncu=_n(f"{path.ncu}.sum.peak_sustained"),
            ),
            Metric(
                path.peak_id,
                "op/s",
                f"The {path.label} tensor roof: peak operations per cycle × SM clock.",
                f"{path.ncu}.sum.peak_sustained × sm__cycles_elapsed.avg.per_second",
                derived_from=(path.peak_per_cycle_id, "sm_clock_hz"),
            ),
        )
    ),
)

BY_ID: dict[str, Metric] = {m.id: m for m in CATALOG}


def alias_map(kind: str) -> dict[str, tuple[str, float, int]]:
    """Name a profiler gives a metric (``kind``: "ncu" or "nvprof") -> (canonical id, factor,
    priority); where two ids claim a name, the first in catalog order wins."""
    out: dict[str, tuple[str, float, int]] = {}
    for m in CATALOG:
        for prio, alias in enumerate(getattr(m, kind)):
            out.setdefault(alias.name, (m.id, alias.factor, prio))
    return out
