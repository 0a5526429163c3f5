"""Rows gathered from an nvprof file's tables, turned into a Profile's frames at the end."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from warpscope.model import schema
from warpscope.model.catalog import BY_ID, alias_map
from warpscope.model.devices import compute_capability
from warpscope.model.kernels import short_name
from warpscope.model.stalls import NVPROF_STALLS

#: "GeForce GTX 950 (0)": the name and the device number. Greedy, so a name is scanned once (a
#: lazy name followed by ``\s*`` rescans long runs of spaces: quadratic); the name is stripped after.
#: The name is one line; white space before the number may hold line breaks ("GPU\n(0)")
_DEVICE = re.compile(r"^([^\n]*)(?:\n\s*)?\((\d+)\)\s*$")

NAMES = alias_map("nvprof")


def stall_reason(metric: str) -> str | None:
    if not metric.startswith("stall_"):
        return None
    return NVPROF_STALLS.get(metric, metric.removeprefix("stall_"))


def split_device(device: str | None) -> tuple[str | None, str | None]:
    """'GeForce GTX 950 (0)' -> ('0', 'GeForce GTX 950')."""
    if not device:
        return None, None
    match = _DEVICE.match(device)
    return (match[2], match[1].rstrip()) if match else (None, device)


@dataclass
class Sink:
    path: str
    fmt: str
    process_id: str | None = None
    process_name: str | None = None
    launches: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    stalls: list[dict[str, Any]] = field(default_factory=list)
    transfers: list[dict[str, Any]] = field(default_factory=list)
    api_calls: list[dict[str, Any]] = field(default_factory=list)
    rows_in: int = 0

    def launch(self, kernel: str, device: str | None, **columns: object) -> int:
        index, name = split_device(device)
        launch_id = len(self.launches)
        self.launches.append(
            {
                "launch_id": launch_id,
                "source_file": self.path,
                "source_format": self.fmt,
                "process_id": self.process_id,
                "process_name": self.process_name,
                "device": index,
                "device_name": name,
                "compute_capability": compute_capability(name),
                "kernel": kernel,
                "kernel_short": short_name(kernel),
                **columns,
            }
        )
        return launch_id

    def metric(
        self,
        launch_id: int,
        name: str,
        text: str | None,
        value: float | None,
        unit: str,
        base_unit: str,
        stat: str | None = None,
        section: str | None = None,
    ) -> None:
        canonical = NAMES.get(name)
        if canonical and value is not None and canonical[1] != 1.0:
            value *= canonical[1]
            base_unit = BY_ID[canonical[0]].unit  # e.g. achieved_occupancy: fraction -> %
        self.metrics.append(
            {
                "launch_id": launch_id,
                "metric": canonical[0] if canonical else None,
                "stat": stat,
                "value": value,
                "name": name,
                "section": section,
                "unit": unit,
                "base_unit": base_unit,
                "text": text,
            }
        )

    def frames(self) -> dict[str, pl.DataFrame]:
        def frame(table: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
            if not rows:
                return schema.empty(table)
            return schema.conform(
                table,
                pl.DataFrame(
                    rows,
                    schema_overrides={
                        k: v
                        for k, v in schema.TABLES[table].items()
                        if k in rows[0] and not isinstance(v, pl.Categorical)
                    },
                    infer_schema_length=None,
                ),
            )

        return {
            "launches": frame("launches", self.launches),
            "metrics": frame("metrics", self.metrics),
            "stalls": frame("stalls", self.stalls),
            "transfers": frame("transfers", self.transfers),
            "api_calls": frame("api_calls", self.api_calls),
        }
