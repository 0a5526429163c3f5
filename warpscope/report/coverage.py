"""What an Nsight Compute export lacks: the sections some rules read, named with the rules that
therefore could not run (ncu's default set, or a few ``--section`` flags, leave them out)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from warpscope.model.profile import Profile


@dataclass(frozen=True)
class Section:
    """Counters of an Nsight Compute section, the metrics that show them, the rules that need them."""

    what: str
    sections: str
    metrics: tuple[str, ...]
    rules: tuple[str, ...]
    stalls: bool = False  # shown by the stalls table, not by a metric


SECTIONS = (
    Section(
        "memory-access counters",
        "Memory Workload Analysis and Source Counters sections",
        ("global_load_sectors_per_request", "shared_load_bank_conflicts"),
        ("uncoalesced_global_access", "shared_bank_conflicts"),
    ),
    Section("warp stall reasons", "Warp State Statistics section", (), ("stall_reason",), stalls=True),
    Section(
        "active threads per warp",
        "Warp State Statistics section",
        ("warp_execution_efficiency_pct",),
        ("warp_divergence", "bounds_check_divergence"),
    ),
    Section(
        "throughput",
        "GPU Speed Of Light Throughput section",
        ("sm_throughput_pct", "memory_throughput_pct"),
        ("memory_bound", "compute_bound", "latency_bound"),
    ),
    Section(
        "achieved occupancy", "Occupancy section", ("achieved_occupancy_pct",), ("achieved_occupancy_gap",)
    ),
)


def missing(profile: Profile) -> list[Section]:
    """The sections an Nsight Compute export's launches all lack (none for other formats)."""
    if profile.launches.is_empty() or not any(f.startswith("ncu") for f in profile.sources["format"]):
        return []
    present = set(profile.metrics["metric"].unique().cast(pl.String).to_list())
    return [
        s
        for s in SECTIONS
        if (profile.stalls.is_empty() if s.stalls else not present.intersection(s.metrics))
    ]


def notes(profile: Profile) -> list[str]:
    """One markdown line per missing section: what is missing, the rules it keeps from running."""
    return [
        f"- This export has no {s.what} (Nsight Compute's {s.sections}): "
        + ", ".join(f"`{r}`" for r in s.rules)
        + ' could not run. `ncu --set full` collects them (see the README\'s "Make the inputs").'
        for s in missing(profile)
    ]
