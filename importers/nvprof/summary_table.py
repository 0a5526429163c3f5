"""Summary mode (``--print-summary``, ``--print-gpu-summary``, ``--print-api-summary``) and the
unified-memory table: GPU activities become one launch row per kernel (standing for
``Calls`` launches) or a ``transfers`` row per copy kind; API calls go to ``api_calls``."""

from __future__ import annotations

from warpscope.importers.nvprof import values
from warpscope.importers.nvprof.framing import Table
from warpscope.importers.nvprof.sink import Sink
from warpscope.importers.nvprof.trace_table import COPY_ROW

_STATS = (("Avg", "avg"), ("Min", "min"), ("Max", "max"))
_UM_KIND = {"Host To Device": "um_HtoD", "Device To Host": "um_DtoH", "Device To Device": "um_DtoD"}


def is_summary(table: Table) -> bool:
    return {"Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"} <= set(table.header)


def is_unified_memory(table: Table) -> bool:
    return {"Count", "Total Size", "Total Time"} <= set(table.header)


def read(table: Table, sink: Sink, rejected: list[tuple[int, str]]) -> None:
    col = {name: i for i, name in enumerate(table.header)}
    units = table.units or [""] * len(table.header)

    def number(row: list[str], name: str) -> tuple[float | None, str]:
        return values.parse(row[col[name]], units[col[name]].strip())

    kind = "API calls" if table.title.startswith("API calls") else "GPU activities"
    for line, row in table.rows:
        sink.rows_in += 1
        if "Type" in col and row[col["Type"]].strip():
            kind = row[col["Type"]].strip().rstrip(":")  # text output states it on the first row only
        name = row[col["Name"]].strip()
        calls_text = row[col["Calls"]].strip()
        calls = values.count(calls_text)
        if not name or calls is None:
            rejected.append((line, f'expected a name and a call count, got "{calls_text}"'))
            continue
        share, _ = number(row, "Time(%)")
        total, _ = number(row, "Time")
        stats = {stat: number(row, column)[0] for column, stat in _STATS}
        if kind.startswith("API"):
            sink.api_calls.append(
                {
                    "source_file": sink.path,
                    "line": line,
                    "name": name,
                    "calls": calls,
                    "total_ns": total,
                    "avg_ns": stats["avg"],
                    "min_ns": stats["min"],
                    "max_ns": stats["max"],
                    "time_share_pct": share,
                }
            )
            continue
        copy = COPY_ROW.match(name)
        if name.startswith("[") and name.endswith("]"):
            sink.transfers.append(
                {
                    "source_file": sink.path,
                    "line": line,
                    "name": name,
                    "kind": (
                        "memset" if copy and copy[1] == "memset" else copy[2] if copy else name.strip("[]")
                    ),
                    "duration_ns": total,
                    "count": calls,
                }
            )
            continue
        launch_id = sink.launch(name, None, invocations=calls, duration_ns=stats["avg"])
        for column in ("Time(%)", "Time", "Avg", "Min", "Max"):
            value, base = number(row, column)
            stat = dict(_STATS).get(column)
            metric = "Duration" if stat else column
            sink.metric(
                launch_id,
                metric,
                row[col[column]],
                value,
                units[col[column]].strip(),
                base,
                stat=stat,
                section="GPU activities",
            )


def read_unified_memory(table: Table, sink: Sink, rejected: list[tuple[int, str]]) -> None:
    col = {name: i for i, name in enumerate(table.header)}
    label_col = len(table.header) - 1
    for line, row in table.rows:
        sink.rows_in += 1
        label = row[label_col].strip()
        count = row[col["Count"]].strip()
        size, size_unit = values.parse(row[col["Total Size"]])
        time, time_unit = values.parse(row[col["Total Time"]])
        sink.transfers.append(
            {
                "source_file": sink.path,
                "line": line,
                "device": row[col["Device"]] if "Device" in col else None,
                "kind": _UM_KIND.get(label, f"um_{label}"),
                "name": label,
                "bytes": size if size_unit == "byte" else None,
                "duration_ns": time if time_unit == "ns" else None,
                "count": values.count(count),
            }
        )
