"""The Arrow schemas of a Profile's tables (documented in docs/schema.md).

Every table is keyed by ``launch_id`` (int64, unique within a Profile). Text the
profiler wrote (kernel names, metric names, units, values as printed) is stored
verbatim; numbers are float64 in base units (see ``warpscope.model.units``).
"""

from __future__ import annotations

import polars as pl

LAUNCHES: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
    "source_file": pl.String(),  # path of the file it came from
    "source_format": pl.String(),  # e.g. ncu-details, ncu-raw, ncu-summary, ncu-source, ncu-text
    "profiler_launch_id": pl.String(),  # the file's own ID column, verbatim
    "process_id": pl.String(),
    "process_name": pl.String(),
    "host": pl.String(),
    "device": pl.String(),  # device index or name as the file gives it
    "device_name": pl.String(),
    "compute_capability": pl.String(),  # "9.0"
    "kernel": pl.String(),  # demangled name, verbatim
    "kernel_mangled": pl.String(),  # mangled name, where the input has it (.ncu-rep)
    "kernel_short": pl.String(),  # stable short name for grouping across runs
    "context": pl.String(),
    "stream": pl.String(),
    "grid_x": pl.Int64(),
    "grid_y": pl.Int64(),
    "grid_z": pl.Int64(),
    "block_x": pl.Int64(),
    "block_y": pl.Int64(),
    "block_z": pl.Int64(),
    "registers_per_thread": pl.Int64(),
    "static_shared_bytes": pl.Int64(),
    "dynamic_shared_bytes": pl.Int64(),
    "sm_count": pl.Int64(),
    "duration_ns": pl.Float64(),
    "invocations": pl.Int64(),  # launches this row stands for (summaries aggregate)
}

METRICS: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
    "metric": pl.Categorical(),  # canonical id, null when the catalog has none
    "stat": pl.Categorical(),  # null, or min/max/avg where the file aggregates launches
    "value": pl.Float64(),  # base units; null for n/a and text values
    "name": pl.Categorical(),  # metric name or label as exported
    "section": pl.Categorical(),  # section as exported; null on the raw page
    "item": pl.Categorical(),  # body table inside the section (--print-details all), or null
    "unit": pl.Categorical(),  # unit as exported
    "base_unit": pl.Categorical(),  # unit of `value`
    "text": pl.String(),  # value as exported, verbatim
}

STALLS: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
    "reason": pl.String(),  # Nsight Compute taxonomy: long_scoreboard, barrier, ...
    "cycles_per_issue": pl.Float64(),  # warp cycles per issued instruction spent in this state
    "share_pct": pl.Float64(),  # % of the sum over all reasons
}

EVIDENCE = pl.List(pl.Struct({"metric": pl.String(), "value": pl.Float64()}))

#: the long texts a rule repeats on every launch it fires on (why, fix, threshold, formula) are
#: categorical: a long profile's hundreds of thousands of findings hold each text once
FINDINGS: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),  # null for findings about the whole run (transfers)
    "origin": pl.String(),  # "warpscope" or "ncu"
    "rule_id": pl.String(),
    "category": pl.String(),  # divergence, occupancy, launch_config, coalescing, ...
    "severity": pl.String(),  # high | medium | low | info
    "confidence": pl.String(),  # high | medium | low: follows the weakest evidence the claim needs
    "section": pl.String(),  # ncu: the section the rule belongs to
    "title": pl.String(),  # a few words: "32-way shared bank conflicts"
    "message": pl.String(),  # what was seen, with the numbers
    "why": pl.Categorical(),  # why it costs time (warpscope rules)
    "fix": pl.Categorical(),  # the concrete change (warpscope rules)
    "threshold": pl.Categorical(),  # the line that was crossed, e.g. "conflicts >= 10% of wavefronts"
    "estimated_speedup_pct": pl.Float64(),
    "speedup_type": pl.String(),  # global | local | null
    "speedup_formula": pl.Categorical(),  # how estimated_speedup_pct was computed
    "evidence": EVIDENCE,
    "evidence_grade": pl.List(pl.String()),  # exact | hardware | inferred, one per evidence entry
    "est_saved_ns": pl.Float64(),  # the launch's time x its share of the launch's combined gain
    "program_share_pct": pl.Float64(),  # est_saved_ns as % of the profile's kernel time
    "covered_by": pl.String(),  # ncu rows: the warpscope rule that reports the same problem
}

SOURCE: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
    "row": pl.Int64(),  # order within the kernel's listing
    "file": pl.String(),
    "line": pl.Int64(),  # source line, null on SASS-only rows
    "address": pl.String(),  # SASS address, null on source-line rows
    "code": pl.String(),  # source or SASS text, verbatim
    "counter": pl.Categorical(),  # column name as exported
    "value": pl.Float64(),
    "text": pl.String(),
}

SOURCES: dict[str, pl.DataType] = {
    "path": pl.String(),
    "format": pl.String(),
    "launches": pl.Int64(),
    "rows_in": pl.Int64(),
    "rows_imported": pl.Int64(),
    "rows_rejected": pl.Int64(),
    "lines_set_aside": pl.Int64(),  # program output and embedded side tables, not profile rows
    "messages": pl.List(pl.String()),  # profiler lines (==PROF==, ==WARNING==, ...) kept as said
    "notes": pl.List(pl.String()),  # what warpscope found while importing (e.g. occupancy checks)
}

TRANSFERS: dict[str, pl.DataType] = {
    "source_file": pl.String(),
    "line": pl.Int64(),  # line of the file the row came from
    "device": pl.String(),
    "context": pl.String(),
    "stream": pl.String(),
    "kind": pl.String(),  # HtoD, DtoH, DtoD, HtoH, PtoP, memset, um_HtoD, ...
    "name": pl.String(),  # as exported, e.g. "[CUDA memcpy HtoD]"
    "start_ns": pl.Float64(),  # trace rows only
    "duration_ns": pl.Float64(),  # total over `count` copies
    "bytes": pl.Float64(),  # total over `count` copies
    "throughput_bytes_per_s": pl.Float64(),
    "src_mem": pl.String(),  # Pageable, Pinned, Device, Array, Managed (where exported)
    "dst_mem": pl.String(),
    "count": pl.Int64(),  # copies this row stands for (1 in a trace)
    "correlation_id": pl.String(),
}

API_CALLS: dict[str, pl.DataType] = {
    "source_file": pl.String(),
    "line": pl.Int64(),
    "name": pl.String(),  # cudaMemcpy, cudaLaunch, ...
    "calls": pl.Int64(),
    "total_ns": pl.Float64(),
    "avg_ns": pl.Float64(),
    "min_ns": pl.Float64(),
    "max_ns": pl.Float64(),
    "time_share_pct": pl.Float64(),  # of all API time, as the summary states it
    "start_ns": pl.Float64(),  # API trace rows only
}

TIMELINE: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
    "sm": pl.Int64(),  # which simulated SM (0 unless single-block SMs were sampled)
    "warp_slot": pl.Int64(),  # hardware warp slot; sub-partition = slot % 4
    "smsp": pl.Int64(),
    "block": pl.Int64(),  # linear block index in the grid
    "warp": pl.Int64(),  # warp index within its block
    "start_cycle": pl.Int64(),
    "end_cycle": pl.Int64(),  # exclusive
    "state": pl.String(),  # selected, not_selected or a stall reason (ncu names)
}

#: Emulator only: races between barriers (racecheck), one row per launch, kind and pair of lines.
HAZARDS: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
    "kernel": pl.String(),
    "source_file": pl.String(),
    "kind": pl.String(),  # RAW, WAR or WAW; barrier: a syncthreads in divergent code; past_end: a read just past an array
    "space": pl.String(),  # shared or global
    "array": pl.String(),
    "first_line": pl.Int64(),  # the earlier access: the write of RAW/WAW, the read of WAR
    "second_line": pl.Int64(),
    "count": pl.Int64(),  # accesses that raced (barrier: blocks that arrived there partly)
    "block": pl.List(pl.Int64()),  # (x, y, z) of a block where it happened
    "first_thread": pl.List(pl.Int64()),  # a thread pair of that block
    "second_thread": pl.List(pl.Int64()),
    "message": pl.String(),  # the one line warpscope emulate prints
}

#: The raw page's metric columns that the catalog does not map, as the file wrote them: one
#: row per launch, ``launch_id`` plus one String column per metric name (which columns exist
#: depends on the sections, the GPU and the ncu version: thousands, most of them constant).
#: Wide, because a long table of these cells costs ~60 bytes each (2,000+ per launch).
RAW_METRICS: dict[str, pl.DataType] = {
    "launch_id": pl.Int64(),
}
WIDE_TABLES = {"raw_metrics"}

RAW_UNITS: dict[str, pl.DataType] = {
    "source_file": pl.String(),  # the file whose units row said it
    "name": pl.String(),  # a column of raw_metrics
    "unit": pl.String(),  # as exported (the raw page's units row), verbatim
}

#: A raw page read whole keeps its unmapped columns as its own CSV text, compressed, one row
#: per page (``raw_pages.py``): launch ``first_launch_id + i`` is its ``i``-th data row.
RAW_PAGES: dict[str, pl.DataType] = {
    "first_launch_id": pl.Int64(),
    "launches": pl.Int64(),
    "units_row": pl.Boolean(),  # a units row follows the header
    "columns": pl.List(pl.String()),  # the unmapped columns it holds
    "size": pl.Int64(),  # bytes of text
    "text": pl.Binary(),  # the page's text (header, units row, data rows), zstd
}

LABEL = pl.Struct({"key": pl.String(), "value": pl.String()})
FILE = pl.Struct({"path": pl.String(), "format": pl.String(), "sha256": pl.String(), "bytes": pl.Int64()})

RUNS: dict[str, pl.DataType] = {
    "run_id": pl.String(),  # sortable: the import time (UTC, to the microsecond), then a random suffix
    "imported_at": pl.Datetime("us", "UTC"),
    "commit": pl.String(),  # the label `commit`, where given
    "branch": pl.String(),  # the label `branch`, where given
    "labels": pl.List(LABEL),  # every --label / WARPSCOPE_LABELS pair, in the order given
    "files": pl.List(FILE),  # the exports read: path as given, format, SHA-256, size
    "gpu": pl.String(),  # device names the launches ran on, " + "-joined
    "compute_capability": pl.String(),
    "sm_count": pl.Int64(),
    "driver": pl.String(),  # where the export says (.ncu-rep), else null
    "profiler": pl.String(),  # ncu, nvprof or emulator
    "profiler_version": pl.String(),  # where the export says (.ncu-rep), else null
    "host": pl.String(),
    "launches": pl.Int64(),
    "kernel_time_ns": pl.Float64(),  # sum of launch durations
    "warpscope_version": pl.String(),
}

REJECTED: dict[str, pl.DataType] = {
    "path": pl.String(),
    "line": pl.Int64(),
    "reason": pl.String(),
}

TABLES: dict[str, dict[str, pl.DataType]] = {
    "launches": LAUNCHES,
    "metrics": METRICS,
    "stalls": STALLS,
    "findings": FINDINGS,
    "source": SOURCE,
    "transfers": TRANSFERS,
    "api_calls": API_CALLS,
    "sources": SOURCES,
    "rejected": REJECTED,
    "timeline": TIMELINE,
    "hazards": HAZARDS,
    "raw_metrics": RAW_METRICS,
    "raw_units": RAW_UNITS,
    "raw_pages": RAW_PAGES,
    "runs": RUNS,
}


def empty(table: str) -> pl.DataFrame:
    """An empty frame with the table's schema."""
    return pl.DataFrame(schema=TABLES[table])


def conform(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Give ``frame`` exactly the table's columns, order and types (missing columns null).

    A wide table keeps its own columns after the fixed ones, as text."""
    schema = TABLES[table]
    if table in WIDE_TABLES:
        rest = [pl.col(c).cast(pl.String) for c in frame.columns if c not in schema]
        return frame.select(*(pl.col(c).cast(t) for c, t in schema.items()), *rest)
    cols = []
    for name, dtype in schema.items():
        if name in frame.columns:
            cols.append(pl.col(name).cast(dtype))
        else:
            cols.append(pl.lit(None, dtype=dtype).alias(name))
    return frame.select(cols)


def single_value() -> pl.Expr:
    """Whether a ``metrics`` row is its launch's one value of the metric: a plain value, or
    the average where the file aggregates launches (``stat`` min/max/avg), never min or max."""
    return pl.col("stat").is_null() | (pl.col("stat") == "avg")
