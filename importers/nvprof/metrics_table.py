"""``--metrics ... --csv`` and ``--events ... --csv``: one row per (device, kernel, metric),
aggregated over the kernel's invocations. Each (device, kernel) becomes one launch row
standing for ``invocations`` launches; Min, Max and Avg (and an event's Total) are all kept,
the canonical value is Avg."""

from __future__ import annotations

from warpscope.importers.nvprof import values
from warpscope.importers.nvprof.framing import Table
from warpscope.importers.nvprof.sink import Sink, stall_reason

STATS = (("Min", "min"), ("Max", "max"), ("Avg", "avg"), ("Total", "total"))


def is_metrics(table: Table) -> bool:
    cols = set(table.header)
    return {"Kernel", "Invocations", "Avg"} <= cols and bool({"Metric Name", "Event Name"} & cols)


def read(table: Table, sink: Sink, rejected: list[tuple[int, str]]) -> None:
    col = {name: i for i, name in enumerate(table.header)}
    name_col = col["Metric Name"] if "Metric Name" in col else col["Event Name"]  # is_metrics: one is there
    section = "Event result" if "Event Name" in col else "Metric result"
    launches: dict[tuple[str | None, str], int] = {}
    for line, cells in table.rows:
        sink.rows_in += 1
        device = cells[col["Device"]] if "Device" in col else None
        kernel = cells[col["Kernel"]]
        invocations_text = cells[col["Invocations"]].strip()
        invocations = values.count(invocations_text)
        if not kernel or invocations is None:
            rejected.append((line, f'expected a kernel and an invocation count, got "{invocations_text}"'))
            continue
        key = (device, kernel)
        if key not in launches:
            launches[key] = sink.launch(kernel, device, invocations=invocations)
        launch_id = launches[key]
        record = sink.launches[launch_id]
        record["invocations"] = max(record["invocations"], invocations)
        metric = cells[name_col]
        for column, stat in STATS:
            if column not in col:
                continue
            text = cells[col[column]]
            value, base = values.parse(text)
            unit = "level" if base == "level" else values.unit_of(text)
            sink.metric(launch_id, metric, text, value, unit, base, stat=stat, section=section)
        reason = stall_reason(metric)
        if reason is not None:
            share, _ = values.parse(cells[col["Avg"]])
            if share is not None:
                sink.stalls.append({"launch_id": launch_id, "reason": reason, "share_pct": share})
