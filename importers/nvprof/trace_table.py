"""``--print-gpu-trace`` (CSV or text): a row per kernel launch, memcpy and memset.

Kernels become launches with their grid, block, registers and shared memory; copies
and memsets go to the ``transfers`` table. The units row under the CSV header gives each
column's unit for the whole file (``s,ms,...,B,B,MB,GB/s``); text output puts the unit in
every cell. Kernel names carry the correlation id as a `` [1166]`` suffix in older versions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from warpscope.importers.nvprof import values
from warpscope.importers.nvprof.framing import Table
from warpscope.importers.nvprof.sink import Sink

_CORRELATION = re.compile(r"^(.*\S)\s+\[(\d+)\]$")
COPY_ROW = re.compile(r"^\[CUDA (memcpy|memset)\s*([A-Za-z]*)\]$")
_UNIFIED = re.compile(r"^\[Unified Memory (.*)\]$")
_LAUNCH_INTS = {
    "Grid X": "grid_x",
    "Grid Y": "grid_y",
    "Grid Z": "grid_z",
    "Block X": "block_x",
    "Block Y": "block_y",
    "Block Z": "block_z",
    "Registers Per Thread": "registers_per_thread",
    "Static SMem": "static_shared_bytes",
    "Dynamic SMem": "dynamic_shared_bytes",
}
_KERNEL_METRICS = ("Start", "Duration", "Registers Per Thread", "Static SMem", "Dynamic SMem")


def is_trace(table: Table) -> bool:
    cols = set(table.header)
    return {"Start", "Duration", "Name"} <= cols and bool({"Grid X", "Size"} & cols)


def is_api_trace(table: Table) -> bool:
    return {"Start", "Duration", "Name"} <= set(table.header) and not is_trace(table)


def read(table: Table, sink: Sink, rejected: list[tuple[int, str]]) -> None:
    col = {name: i for i, name in enumerate(table.header)}
    units = table.units or [""] * len(table.header)

    def cell(row: list[str], name: str) -> str | None:
        return row[col[name]].strip() if name in col else None

    def number(row: list[str], name: str) -> tuple[float | None, str]:
        return values.parse(cell(row, name), units[col[name]].strip()) if name in col else (None, "")

    for line, row in table.rows:
        sink.rows_in += 1
        name = cell(row, "Name") or ""
        device = cell(row, "Device")
        start, _ = number(row, "Start")
        duration, _ = number(row, "Duration")
        if name.startswith("[") and name.endswith("]"):
            _transfer(sink, table, line, row, name, device, start, duration, cell, number)
            continue
        if not name:
            rejected.append((line, "a trace row without a Name"))
            continue
        kernel, correlation = name, cell(row, "Correlation_ID")
        match = _CORRELATION.match(name)
        if match:
            kernel, correlation = match[1], correlation or match[2]
        ints = {}
        for column, key in _LAUNCH_INTS.items():
            value, _ = number(row, column)
            ints[key] = values.whole(value)
        launch_id = sink.launch(
            kernel,
            device,
            profiler_launch_id=correlation,
            context=cell(row, "Context"),
            stream=cell(row, "Stream"),
            duration_ns=duration,
            invocations=1,
            **ints,
        )
        for column in _KERNEL_METRICS:
            if column in col and row[col[column]].strip():
                value, base = number(row, column)
                sink.metric(
                    launch_id,
                    column,
                    row[col[column]],
                    value,
                    values.unit_of(row[col[column]]) or units[col[column]].strip(),
                    base,
                    section="GPU trace",
                )


def _transfer(
    sink: Sink,
    table: Table,
    line: int,
    row: list[str],
    name: str,
    device: str | None,
    start: float | None,
    duration: float | None,
    cell: Callable[[list[str], str], str | None],
    number: Callable[[list[str], str], tuple[float | None, str]],
) -> None:
    size, _ = number(row, "Size")
    rate, _ = number(row, "Throughput")
    copy, unified = COPY_ROW.match(name), _UNIFIED.match(name)
    kind = (copy[2] or copy[1]) if copy else (f"um_{unified[1]}" if unified else name.strip("[]"))
    if copy and copy[1] == "memset":
        kind = "memset"
    sink.transfers.append(
        {
            "source_file": sink.path,
            "line": line,
            "device": device,
            "context": cell(row, "Context"),
            "stream": cell(row, "Stream"),
            "kind": kind,
            "name": name,
            "start_ns": start,
            "duration_ns": duration,
            "bytes": size,
            "throughput_bytes_per_s": rate,
            "src_mem": cell(row, "SrcMemType") or None,
            "dst_mem": cell(row, "DstMemType") or None,
            "count": 1,
            "correlation_id": cell(row, "Correlation_ID"),
        }
    )


def read_api(table: Table, sink: Sink, rejected: list[tuple[int, str]]) -> None:
    col = {name: i for i, name in enumerate(table.header)}
    units = table.units or [""] * len(table.header)
    for line, row in table.rows:
        sink.rows_in += 1
        start, _ = values.parse(row[col["Start"]], units[col["Start"]].strip())
        duration, _ = values.parse(row[col["Duration"]], units[col["Duration"]].strip())
        sink.api_calls.append(
            {
                "source_file": sink.path,
                "line": line,
                "name": row[col["Name"]],
                "calls": 1,
                "total_ns": duration,
                "avg_ns": duration,
                "min_ns": duration,
                "max_ns": duration,
                "start_ns": start,
            }
        )
