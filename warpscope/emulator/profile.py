"""Emulated launches as a Profile: the same tables and canonical metric ids as an import.

The counters are source-level (one instruction per Python operation, memory and
branches where the source has them); the compiler may predicate a short branch or merge
loads, which a real GPU then counts differently. Each source row says so.
"""

from __future__ import annotations

import polars as pl

from warpscope.emulator.kernel import Launch
from warpscope.emulator.simt import SiteCounts
from warpscope.emulator.timing import STATES, TimingResult, timing_for
from warpscope.emulator.timing.params import SM_COUNT
from warpscope.emulator.timing.sm import NOT_RESIDENT
from warpscope.model import schema
from warpscope.model.catalog import BY_ID
from warpscope.model.profile import Profile
from warpscope.occupancy.calculator import evaluate

DEVICE = "warpscope emulator"
SOURCE_LEVEL_NOTE = (
    "emulator counters are source-level: one instruction per Python operation; "
    "the CUDA compiler may predicate short branches or merge loads, which a GPU counts differently"
)


def to_profile(launches: list[Launch], path: str) -> Profile:
    """A Profile of emulated launches, in launch order, from the file ``path``."""
    launch_rows: list[dict[str, object]] = []
    metric_rows: list[dict[str, object]] = []
    source_rows: list[dict[str, object]] = []
    stall_rows: list[dict[str, object]] = []
    timelines: list[pl.DataFrame] = []
    hazard_rows: list[dict[str, object]] = []
    for launch_id, launch in enumerate(launches):
        hazard_rows.extend(_hazard_rows(launch_id, launch))
        sms = SM_COUNT.get(launch.arch, 132)
        launch_rows.append(_launch_row(launch_id, launch, path, sms))
        metrics = launch_metrics(launch, sms)
        metrics |= roofs(launch.arch)
        if launch.timing is not None:
            metrics |= timing_metrics(launch.timing)
            launch_rows[-1]["duration_ns"] = launch.timing.duration_ns
            if launch.timing.duration_ns > 0:
                metrics["achieved_flop_per_s"] = metrics["flop"] / (launch.timing.duration_ns * 1e-9)
            stall_rows.extend(_stall_rows(launch_id, launch.timing))
            timelines.append(timeline_frame(launch_id, launch.timing))
        metric_rows.extend(
            {
                "launch_id": launch_id,
                "metric": k,
                "value": float(v),
                "name": k,
                "section": "warpscope emulator",
                "unit": BY_ID[k].unit,
                "base_unit": BY_ID[k].unit,
                "text": _text(v),
            }
            for k, v in metrics.items()
        )
        source_rows.extend(_source_rows(launch_id, launch))
    notes = [SOURCE_LEVEL_NOTE] + _register_notes(launches) + _timing_notes(launches)
    sources = pl.DataFrame(
        [
            {
                "path": path,
                "format": "emulator",
                "launches": len(launches),
                "rows_in": len(launches),
                "rows_imported": len(launches),
                "rows_rejected": 0,
                "lines_set_aside": 0,
                "messages": [],
                "notes": notes,
            }
        ],
        schema=schema.SOURCES,
    )
    return Profile(
        launches=_frame("launches", launch_rows),
        metrics=_frame("metrics", metric_rows),
        source=_frame("source", source_rows),
        stalls=_frame("stalls", stall_rows),
        timeline=pl.concat(timelines) if timelines else schema.empty("timeline"),
        hazards=_frame("hazards", hazard_rows),
        sources=sources,
    )


def roofs(arch: str) -> dict[str, float]:
    """The roofs of the device the emulator models (its timing parameters): FP32 and FP64
    from the pipes' lanes × SMs × clock (2 flop per FMA), DRAM from the modelled bandwidth."""
    t = timing_for(arch)
    return {
        "peak_fp32_flop_per_s": 2.0 * t.fma_lanes * t.sms * t.clock_hz,
        "peak_fp64_flop_per_s": 2.0 * t.fp64_lanes * t.sms * t.clock_hz,
        "peak_dram_bytes_per_s": t.dram_gbps * 1e9,
    }


def timing_metrics(r: TimingResult) -> dict[str, float]:
    """The timing model's canonical metrics, defined as Nsight Compute defines them."""
    issued = r.issued
    sm_active = r.total("cycles")  # summed over the simulated SMs
    smsp_active = r.total("smsp_active_cycles")
    resident = r.total("resident_warp_cycles")
    n = max(1, len(r.simulated))
    out: dict[str, float] = {
        "duration_ns": r.duration_ns,
        "elapsed_cycles": r.cycles + round(r.launch_overhead_ns * r.clock_hz / 1e9),
        # averaged over every SM of the device, idle ones included, as sm__cycles_active.avg
        "sm_active_cycles": sm_active / n * r.active_sms / r.sms,
        "sm_frequency_hz": r.clock_hz,
    }
    if sm_active:
        out["ipc_active"] = issued / sm_active
        out["achieved_occupancy_pct"] = 100.0 * resident / (sm_active * r.max_warps)
        out["achieved_active_warps"] = resident / sm_active
    if smsp_active:
        out["issue_slot_utilization_pct"] = 100.0 * issued / smsp_active
        out["active_warps_per_scheduler"] = resident / smsp_active
        out["eligible_warps_per_scheduler"] = r.total("eligible_warp_cycles") / smsp_active
    if issued:
        out["warp_cycles_per_issued_instruction"] = sum(r.state_cycles().values()) / issued
    if r.total("l1_lookups"):
        out["l1_hit_rate_pct"] = 100.0 * r.total("l1_hits") / r.total("l1_lookups")
    if r.total("l2_lookups"):
        out["l2_hit_rate_pct"] = 100.0 * r.total("l2_hits") / r.total("l2_lookups")
    return {k: v for k, v in out.items() if k in BY_ID}


def _stall_rows(launch_id: int, r: TimingResult) -> list[dict[str, object]]:
    issued = r.issued
    if not issued:
        return []
    cycles = r.state_cycles()
    total = sum(cycles.values())
    return [
        {
            "launch_id": launch_id,
            "reason": state,
            "cycles_per_issue": c / issued,
            "share_pct": 100.0 * c / total if total else 0.0,
        }
        for state, c in cycles.items()
    ]


def timeline_frame(launch_id: int, r: TimingResult) -> pl.DataFrame:
    """The run-length encoded warp states of the simulated SMs."""
    names = list(STATES) + ["not_resident"]
    columns = ["warp_slot", "block", "warp", "smsp", "start_cycle", "end_cycle", "state"]
    parts = [
        pl.DataFrame(res.timeline, schema=dict.fromkeys(columns, pl.Int64()), orient="row").with_columns(
            sm=pl.lit(sm, pl.Int64())
        )
        for sm, res in enumerate(r.simulated)
    ]
    frame = pl.concat(parts) if parts else pl.DataFrame(schema=dict.fromkeys(["sm", *columns], pl.Int64()))
    frame = frame.filter(pl.col("state") != NOT_RESIDENT).with_columns(
        launch_id=pl.lit(launch_id, pl.Int64()),
        state=pl.col("state").replace_strict(list(range(len(names))), names, return_dtype=pl.String()),
    )
    return schema.conform("timeline", frame)


def launch_metrics(launch: Launch, sms: int) -> dict[str, float]:
    """Canonical metric id -> value for one launch (only what the emulator knows)."""
    t = launch.counters.total()
    block = launch.block[0] * launch.block[1] * launch.block[2]
    grid = launch.grid[0] * launch.grid[1] * launch.grid[2]
    out: dict[str, float] = {
        "block_size": block,
        "grid_size": grid,
        "threads": block * grid,
        "registers_per_thread": launch.registers,
        "static_shared_bytes": launch.static_shared,
        "dynamic_shared_bytes": launch.dynamic_shared,
        "sm_count": sms,
        "barriers_per_block": launch.barriers,
        "instructions_executed": t.warp_instructions,
        "thread_instructions_executed": t.thread_instructions,
        "branch_instructions": t.branches,
        "divergent_branches": t.divergent_branches,
        "global_load_requests": t.global_load_requests,
        "global_load_sectors": t.global_load_sectors,
        "global_store_requests": t.global_store_requests,
        "global_store_sectors": t.global_store_sectors,
        "shared_load_requests": t.shared_load_requests,
        "shared_load_wavefronts": t.shared_load_wavefronts,
        "shared_load_bank_conflicts": t.shared_load_wavefronts - t.shared_load_ideal_wavefronts,
        "shared_store_requests": t.shared_store_requests,
        "shared_store_wavefronts": t.shared_store_wavefronts,
        "shared_store_bank_conflicts": t.shared_store_wavefronts - t.shared_store_ideal_wavefronts,
        "global_atomic_requests": t.global_atomic_requests,
        "shared_atomic_requests": t.shared_atomic_requests,
        "local_load_requests": t.local_load_requests,
        "local_store_requests": t.local_store_requests,
        "barrier_instructions": t.barriers,
        "shuffle_instructions": t.shuffles,
        "fp32_flop": t.fp32_flop,
        "fp64_flop": t.fp64_flop,
        "fp16_flop": t.fp16_flop,
        "flop": t.fp32_flop + t.fp64_flop + t.fp16_flop,
    }
    if t.warp_instructions:
        eff = 100.0 * t.thread_instructions / (32 * t.warp_instructions)
        out["warp_execution_efficiency_pct"] = eff
        out["warp_nonpred_execution_efficiency_pct"] = eff  # no predication at source level
    if t.branches:
        out["branch_efficiency_pct"] = 100.0 * (t.branches - t.divergent_branches) / t.branches
    _ratio(out, "global_load_sectors_per_request", t.global_load_sectors, t.global_load_requests)
    _ratio(out, "global_store_sectors_per_request", t.global_store_sectors, t.global_store_requests)
    _ratio(out, "shared_load_transactions_per_request", t.shared_load_wavefronts, t.shared_load_requests)
    _ratio(out, "shared_store_transactions_per_request", t.shared_store_wavefronts, t.shared_store_requests)
    _ratio(out, "global_load_efficiency_pct", 100.0 * t.global_load_bytes, 32 * t.global_load_sectors)
    _ratio(out, "global_store_efficiency_pct", 100.0 * t.global_store_bytes, 32 * t.global_store_sectors)
    occ = evaluate(
        launch.arch,
        block,
        launch.registers,
        launch.static_shared,
        launch.dynamic_shared,
        barriers=launch.barriers,
    )
    if not occ.error:
        out["theoretical_occupancy_pct"] = occ.occupancy_pct
        out["theoretical_active_warps"] = occ.active_warps_per_sm
        for name, limit in occ.limits.items():
            if limit is not None:
                out[f"block_limit_{name}"] = limit
        out["waves_per_sm"] = grid / (occ.active_blocks_per_sm * sms)
        out["driver_shared_bytes"] = occ.arch.reserved_shared_per_block
    return out


def _ratio(out: dict[str, float], key: str, num: float, den: float) -> None:
    if den:
        out[key] = num / den


def _launch_row(launch_id: int, launch: Launch, path: str, sms: int) -> dict[str, object]:
    cc = launch.arch.removeprefix("sm_")
    return {
        "launch_id": launch_id,
        "source_file": path,
        "source_format": "emulator",
        "profiler_launch_id": str(launch_id),
        "process_name": "warpscope emulate",
        "device": f"{DEVICE} ({launch.arch})",
        "device_name": f"{DEVICE} ({launch.arch})",
        "compute_capability": f"{cc[:-1]}.{cc[-1]}",
        "kernel": launch.kernel,
        "kernel_short": launch.kernel,
        "grid_x": launch.grid[0],
        "grid_y": launch.grid[1],
        "grid_z": launch.grid[2],
        "block_x": launch.block[0],
        "block_y": launch.block[1],
        "block_z": launch.block[2],
        "registers_per_thread": launch.registers,
        "static_shared_bytes": launch.static_shared,
        "dynamic_shared_bytes": launch.dynamic_shared,
        "sm_count": sms,
        "invocations": 1,
    }


def _source_rows(launch_id: int, launch: Launch) -> list[dict[str, object]]:
    rows = []
    for row, line in enumerate(sorted(launch.counters.sites)):
        counts: SiteCounts = launch.counters.sites[line]
        derived = {
            "shared_load_bank_conflicts": counts.shared_load_wavefronts - counts.shared_load_ideal_wavefronts,
            "shared_store_bank_conflicts": counts.shared_store_wavefronts
            - counts.shared_store_ideal_wavefronts,
        }
        for name, value in list(vars(counts).items()) + list(derived.items()):
            if value:
                rows.append(
                    {
                        "launch_id": launch_id,
                        "row": row,
                        "file": launch.file,
                        "line": line,
                        "code": launch.lines.get(line, ""),
                        "counter": name,
                        "value": float(value),
                        "text": str(value),
                    }
                )
    return rows


def _hazard_rows(launch_id: int, launch: Launch) -> list[dict[str, object]]:
    return [
        {
            "launch_id": launch_id,
            "kernel": launch.kernel,
            "source_file": launch.file,
            "kind": h.kind,
            "space": h.space,
            "array": h.array,
            "first_line": h.first_line,
            "second_line": h.second_line,
            "count": h.count,
            "block": list(h.block),
            "first_thread": list(h.first_thread),
            "second_thread": list(h.second_thread),
            "message": f"kernel {launch.kernel}: {h.describe(launch.file)}",
        }
        for h in launch.hazards
    ] + [
        {
            "launch_id": launch_id,
            "kernel": launch.kernel,
            "source_file": launch.file,
            "kind": w.kind,
            "first_line": w.line,
            "count": w.blocks,
            "block": list(w.block),
            "first_thread": list(w.thread),
            "message": w.describe(launch.file, launch.kernel),
        }
        for w in launch.barrier_warnings
    ]


def _register_notes(launches: list[Launch]) -> list[str]:
    assumed = sorted({(l.kernel, l.registers) for l in launches if not l.registers_stated})
    if not assumed:
        return []
    regs = sorted({r for _, r in assumed})
    return [
        f"registers per thread assumed {', '.join(map(str, regs))} for "
        f"{', '.join(sorted({k for k, _ in assumed}))} (set @cuda.jit(max_registers=N) or --registers)"
    ]


def _timing_notes(launches: list[Launch]) -> list[str]:
    timed = [l for l in launches if l.timing is not None]
    if not timed:
        return []
    notes = [
        f"timing modelled for {timed[0].timing.arch} ({timed[0].timing.policy} scheduler): durations, "  # type: ignore[union-attr]
        "stalls and achieved occupancy come from simulating one SM's share of the grid "
        "(docs/emulator.md, docs/emulator-validation.md)"
    ]
    cut = sorted({l.kernel for l in timed if not all(r.timeline_complete for r in l.timing.simulated)})  # type: ignore[union-attr]
    if cut:
        notes.append(f"timeline table cut short (row limit) for {', '.join(cut)}")
    return notes


def _text(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.6g}"


def _frame(table: str, rows: list[dict[str, object]]) -> pl.DataFrame:
    if not rows:
        return schema.empty(table)
    return schema.conform(table, pl.DataFrame(rows, infer_schema_length=None))
