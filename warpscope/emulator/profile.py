"""Emulated launches as a Profile: the same tables and canonical metric ids as an import.

The counters are source-level (one instruction per Python operation, memory and
branches where the source has them); the compiler may predicate a short branch or merge
loads, which a real GPU then counts differently. Each source row says so.
"""

from __future__ import annotations

import polars as pl

from warpscope.emulator.kernel import Launch
from warpscope.emulator.simt import SiteCounts
from warpscope.model import schema
from warpscope.model.catalog import BY_ID
from warpscope.model.profile import Profile
from warpscope.occupancy.calculator import evaluate

#: SMs of the GPU each architecture's emulated device stands for (its best-known part)
SM_COUNT = {"sm_50": 16, "sm_52": 24, "sm_53": 1, "sm_60": 56, "sm_61": 28, "sm_62": 2, "sm_70": 80,
            "sm_72": 8, "sm_75": 40, "sm_80": 108, "sm_86": 84, "sm_87": 16, "sm_88": 16, "sm_89": 128,
            "sm_90": 132, "sm_100": 148, "sm_103": 148, "sm_110": 20, "sm_120": 170, "sm_121": 48}
DEVICE = "warpscope emulator"
SOURCE_LEVEL_NOTE = ("emulator counters are source-level: one instruction per Python operation; "
                     "the CUDA compiler may predicate short branches or merge loads, which a GPU counts differently")


def to_profile(launches: list[Launch], path: str) -> Profile:
    """A Profile of emulated launches, in launch order, from the file ``path``."""
    launch_rows, metric_rows, source_rows = [], [], []
    for launch_id, launch in enumerate(launches):
        sms = SM_COUNT.get(launch.arch, 132)
        launch_rows.append(_launch_row(launch_id, launch, path, sms))
        metric_rows.extend({"launch_id": launch_id, "metric": k, "value": float(v), "name": k,
                            "section": "warpscope emulator", "unit": BY_ID[k].unit,
                            "base_unit": BY_ID[k].unit, "text": _text(v)}
                           for k, v in launch_metrics(launch, sms).items())
        source_rows.extend(_source_rows(launch_id, launch))
    notes = [SOURCE_LEVEL_NOTE] + _register_notes(launches)
    sources = pl.DataFrame([{"path": path, "format": "emulator", "launches": len(launches),
                             "rows_in": len(launches), "rows_imported": len(launches), "rows_rejected": 0,
                             "lines_set_aside": 0, "messages": [], "notes": notes}], schema=schema.SOURCES)
    return Profile(
        launches=_frame("launches", launch_rows),
        metrics=_frame("metrics", metric_rows),
        source=_frame("source", source_rows),
        sources=sources,
    )


def launch_metrics(launch: Launch, sms: int) -> dict[str, float]:
    """Canonical metric id -> value for one launch (only what the emulator knows)."""
    t = launch.counters.total()
    block = launch.block[0] * launch.block[1] * launch.block[2]
    grid = launch.grid[0] * launch.grid[1] * launch.grid[2]
    out: dict[str, float] = {
        "block_size": block, "grid_size": grid, "threads": block * grid,
        "registers_per_thread": launch.registers, "static_shared_bytes": launch.static_shared,
        "dynamic_shared_bytes": launch.dynamic_shared, "sm_count": sms,
        "barriers_per_block": launch.barriers,
        "instructions_executed": t.warp_instructions, "thread_instructions_executed": t.thread_instructions,
        "branch_instructions": t.branches, "divergent_branches": t.divergent_branches,
        "global_load_requests": t.global_load_requests, "global_load_sectors": t.global_load_sectors,
        "global_store_requests": t.global_store_requests, "global_store_sectors": t.global_store_sectors,
        "shared_load_requests": t.shared_load_requests, "shared_load_wavefronts": t.shared_load_wavefronts,
        "shared_load_bank_conflicts": t.shared_load_wavefronts - t.shared_load_ideal_wavefronts,
        "shared_store_requests": t.shared_store_requests, "shared_store_wavefronts": t.shared_store_wavefronts,
        "shared_store_bank_conflicts": t.shared_store_wavefronts - t.shared_store_ideal_wavefronts,
        "global_atomic_requests": t.global_atomic_requests, "shared_atomic_requests": t.shared_atomic_requests,
        "local_load_requests": t.local_load_requests, "local_store_requests": t.local_store_requests,
        "barrier_instructions": t.barriers, "shuffle_instructions": t.shuffles,
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
    occ = evaluate(launch.arch, block, launch.registers, launch.static_shared, launch.dynamic_shared,
                   barriers=launch.barriers)
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
        "launch_id": launch_id, "source_file": path, "source_format": "emulator",
        "profiler_launch_id": str(launch_id), "process_name": "warpscope emulate",
        "device": f"{DEVICE} ({launch.arch})", "device_name": f"{DEVICE} ({launch.arch})",
        "compute_capability": f"{cc[:-1]}.{cc[-1]}", "kernel": launch.kernel, "kernel_short": launch.kernel,
        "grid_x": launch.grid[0], "grid_y": launch.grid[1], "grid_z": launch.grid[2],
        "block_x": launch.block[0], "block_y": launch.block[1], "block_z": launch.block[2],
        "registers_per_thread": launch.registers, "static_shared_bytes": launch.static_shared,
        "dynamic_shared_bytes": launch.dynamic_shared, "sm_count": sms, "invocations": 1,
    }


def _source_rows(launch_id: int, launch: Launch) -> list[dict[str, object]]:
    rows = []
    row = 0
    for line in sorted(launch.counters.sites):
        counts: SiteCounts = launch.counters.sites[line]
        derived = {"shared_load_bank_conflicts": counts.shared_load_wavefronts - counts.shared_load_ideal_wavefronts,
                   "shared_store_bank_conflicts": counts.shared_store_wavefronts - counts.shared_store_ideal_wavefronts}
        for name, value in list(vars(counts).items()) + list(derived.items()):
            if value:
                rows.append({"launch_id": launch_id, "row": row, "file": launch.file, "line": line,
                             "code": launch.lines.get(line, ""), "counter": name, "value": float(value),
                             "text": str(value)})
        row += 1
    return rows


def _register_notes(launches: list[Launch]) -> list[str]:
    assumed = sorted({(l.kernel, l.registers) for l in launches if not l.registers_stated})
    if not assumed:
        return []
    regs = sorted({r for _, r in assumed})
    return [f"registers per thread assumed {', '.join(map(str, regs))} for "
            f"{', '.join(sorted({k for k, _ in assumed}))} (set @cuda.jit(max_registers=N) or --registers)"]


def _text(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.6g}"


def _frame(table: str, rows: list[dict[str, object]]) -> pl.DataFrame:
    if not rows:
        return schema.empty(table)
    return schema.conform(table, pl.DataFrame(rows, infer_schema_length=None))
