"""nvprof exports (CUDA <= 10, Kepler to Turing): metrics, events, GPU and API traces,
summaries and the unified-memory table, as CSV (``--csv``) or nvprof's plain text."""

from __future__ import annotations

import re

import polars as pl

from warpscope.errors import InputError
from warpscope.importers.nvprof import framing, metrics_table, summary_table, text, trace_table
from warpscope.importers.nvprof.sink import Sink
from warpscope.model import schema
from warpscope.model.profile import Profile

_PREFIXED = re.compile(rb"^==(\d+|=+)==", re.M)

_HANDLERS = (
    (metrics_table.is_metrics, metrics_table.read, "nvprof-metrics"),
    (trace_table.is_trace, trace_table.read, "nvprof-gpu-trace"),
    (trace_table.is_api_trace, trace_table.read_api, "nvprof-api-trace"),
    (summary_table.is_summary, summary_table.read, "nvprof-summary"),
    (summary_table.is_unified_memory, summary_table.read_unified_memory, "nvprof-unified-memory"),
)


def looks_like_nvprof(head: bytes) -> bool:
    return bool(_PREFIXED.search(head)) and b"==PROF==" not in head


def import_nvprof(path: str, content: str) -> Profile:
    frames = framing.split(content)
    tables = frames.tables
    set_aside = frames.other_lines
    is_text = not tables
    if is_text:
        tables, aside = text.tables(frames.text_lines)
        set_aside += aside
    else:
        set_aside += len(frames.text_lines)
    if not tables:
        raise InputError(path, _no_table(frames), line=1)
    name = frames.command.split()[0].rsplit("/", 1)[-1] if frames.command else None
    formats: list[str] = []
    sink = Sink(path, "", process_id=frames.process_id, process_name=name)
    rejected = list(frames.rejected)
    for table in tables:
        for matches, read, fmt in _HANDLERS:
            if matches(table):
                sink.fmt = fmt + ("-text" if is_text else "")
                formats.append(sink.fmt)
                start = len(sink.launches)
                read(table, sink, rejected)
                for launch in sink.launches[start:]:
                    launch["source_format"] = sink.fmt
                break
        else:
            raise InputError(
                path,
                "unknown nvprof table (header: "
                f"{', '.join(table.header[:6])}); expected metrics, events, a GPU or "
                "API trace, a summary or the unified-memory table",
                line=table.header_line,
            )
    fmt = "+".join(dict.fromkeys(formats))
    return _profile(path, fmt, sink, rejected, frames, set_aside)


def _no_table(frames: framing.Framing) -> str:
    said = [m for m in frames.messages if m and not m.startswith("NVPROF is profiling")]
    last = said[-1] if said else "nothing"
    return (
        'no nvprof result table found (expected a CSV header such as "Device","Kernel",... '
        f"or nvprof's text tables); nvprof said: {last}"
    )


def _profile(
    path: str, fmt: str, sink: Sink, rejected: list[tuple[int, str]], frames: framing.Framing, set_aside: int
) -> Profile:
    tables = sink.frames()
    rows_in = sink.rows_in + len(frames.rejected)
    sources = pl.DataFrame(
        [
            {
                "path": path,
                "format": fmt,
                "launches": tables["launches"].height,
                "rows_in": rows_in,
                "rows_imported": rows_in - len(rejected),
                "rows_rejected": len(rejected),
                "lines_set_aside": set_aside,
                "messages": frames.messages,
                "notes": [],
            }
        ],
        schema=schema.SOURCES,
    )
    rejected_df = pl.DataFrame(
        {
            "path": [path] * len(rejected),
            "line": [l for l, _ in rejected],
            "reason": [r for _, r in rejected],
        },
        schema=schema.REJECTED,
    )
    return Profile(
        launches=tables["launches"],
        metrics=tables["metrics"],
        stalls=tables["stalls"],
        transfers=tables["transfers"],
        api_calls=tables["api_calls"],
        sources=sources,
        rejected=rejected_df,
    )
