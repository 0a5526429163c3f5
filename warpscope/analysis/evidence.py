"""How far a value can be trusted, and so how sure a finding built on it can be.

Grades (docs/checklist.md, "Confidence, program impact and severity"): *exact* — instrumented SASS counters (``smsp__sass_*``), Nsight
Compute's derived ideal/excess values (``derived__*``), launch attributes, and every count
the emulator makes; *hardware* — hardware counters, and among them the ones Nsight
Compute's documentation qualifies (the shared bank-conflict counter also counts events
that are not conflicts); *inferred* — computed by warpscope from other values.
"""

from __future__ import annotations

from warpscope.analysis.views import LaunchView

EXACT, HARDWARE, INFERRED = "exact", "hardware", "inferred"

#: canonical metrics read from instrumented SASS counters, derived ideal/excess values or
#: launch attributes in Nsight Compute exports
EXACT_METRICS = frozenset(
    {
        "global_excess_sectors",
        "shared_excess_wavefronts",
        "global_load_efficiency_pct",
        "global_store_efficiency_pct",
        "shared_efficiency_pct",
        "global_load_requests",
        "global_store_requests",
        "shared_load_requests",
        "shared_store_requests",
        "branch_efficiency_pct",
        "divergent_branches",
        "divergent_branches_per_smsp",
        "warp_execution_efficiency_pct",
        "warp_nonpred_execution_efficiency_pct",
        "block_size",
        "grid_size",
        "registers_per_thread",
        "static_shared_bytes",
        "dynamic_shared_bytes",
        "sm_count",
        "theoretical_occupancy_pct",
        "duration_ns",
    }
)
#: hardware counters whose documentation says they count more than the name suggests
QUALIFIED = frozenset({"shared_load_bank_conflicts", "shared_store_bank_conflicts"})
#: emulator values that come from the timing model, not from counting
_MODELLED = frozenset(
    {
        "duration_ns",
        "achieved_occupancy_pct",
        "achieved_active_warps",
        "issue_slot_utilization_pct",
        "warp_cycles_per_issued_instruction",
        "ipc_active",
        "eligible_warps_per_scheduler",
        "active_warps_per_scheduler",
    }
)


def grade(view: LaunchView, metric: str) -> str:
    """The grade of ``metric`` as this launch's profile holds it."""
    if view.source_format == "emulator":
        return INFERRED if metric in _MODELLED else EXACT
    if metric in EXACT_METRICS:
        return EXACT
    return HARDWARE if metric in view.stated else INFERRED  # else worked out by warpscope


def confidence(grades: list[str] | tuple[str, ...]) -> str:
    """Confidence of a claim from the grades of the values it needs: exact -> high,
    hardware or inferred -> medium (a rule on ambiguous evidence says low itself)."""
    if not grades:
        return "medium"
    return "high" if all(g == EXACT for g in grades) else "medium"
