"""The warp timeline as Chrome / Perfetto trace JSON (open in ui.perfetto.dev or chrome://tracing).

One process per launch (and simulated SM), one thread per warp slot; every run of one
state is a complete event (``ph: "X"``) named after the state, with one cycle shown as
one microsecond so the time axis reads in cycles.
"""

from __future__ import annotations

import json
from typing import Any

from warpscope.model.profile import Profile


def trace_events(profile: Profile) -> dict[str, object]:
    """The Trace Event Format object for every emulated launch with a timeline."""
    events: list[dict[str, object]] = []
    kernels = dict(zip(profile.launches["launch_id"].to_list(), profile.launches["kernel"].to_list()))
    timeline = profile.timeline.sort("launch_id", "sm", "warp_slot", "start_cycle")
    for (launch_id, sm), rows in timeline.group_by(["launch_id", "sm"], maintain_order=True):
        pid = int(launch_id) * 1000 + int(sm)
        events.append(
            {
                "ph": "M",
                "pid": pid,
                "name": "process_name",
                "args": {"name": f"launch {launch_id}: {kernels.get(launch_id, '?')} (SM {sm})"},
            }
        )
        for slot, smsp in rows.select("warp_slot", "smsp").unique().sort("warp_slot").iter_rows():
            events.append(
                {
                    "ph": "M",
                    "pid": pid,
                    "tid": slot,
                    "name": "thread_name",
                    "args": {"name": f"warp slot {slot} (SMSP {smsp})"},
                }
            )
        for slot, block, warp, start, end, state in rows.select(
            "warp_slot", "block", "warp", "start_cycle", "end_cycle", "state"
        ).iter_rows():
            events.append(
                {
                    "ph": "X",
                    "pid": pid,
                    "tid": slot,
                    "ts": start,
                    "dur": end - start,
                    "name": state,
                    "cat": "stall" if state not in ("selected", "not_selected") else "issue",
                    "args": {"block": block, "warp": warp},
                }
            )
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"producer": "warpscope emulate", "time_unit": "1 us = 1 SM cycle"},
    }


def write_trace(profile: Profile, path: str) -> int:
    """Write the trace JSON to ``path`` atomically; the number of state events written."""
    from warpscope.files import write_text_atomic

    data = trace_events(profile)
    write_text_atomic(path, json.dumps(data, separators=(",", ":"), ensure_ascii=True))
    events: list[dict[str, Any]] = data["traceEvents"]  # type: ignore[assignment]
    return sum(1 for e in events if e["ph"] == "X")
