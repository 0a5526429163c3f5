"""Per-instruction counters of a report: what the source page lists for each SASS address.

The SourceCounters section stores them as metrics with one value per program counter
(``inst_executed``, the warp-state samples ``smsp__pcsamp_*``, the memory counters), and
names the columns itself: its source metrics carry the labels the source page prints
("Instructions Executed", "Warp Stall Sampling (All Samples)", ...) and the groups that
sum several of them. Rows have an address and the CUDA file and line where the cubin has a
line table (``cubin.py``); each CUDA line is a row too, its counters summed over its
instructions, with the line's text where the report embeds the file. The SASS text is not
in the report (Nsight Compute disassembles the cubin): ``sass_text.py`` asks NVIDIA's reader.
"""

from __future__ import annotations

import posixpath

import numpy as np
import polars as pl

from warpscope.importers.ncurep import cubin, instances, messages
from warpscope.importers.ncurep.messages import Msg, text
from warpscope.model import schema

GROUP = "group:"
#: source metrics whose per-instruction values are codes the source page prints as words
#: (address space, access operation and size, eviction policy): left out rather than shown
#: as numbers that mean nothing to a reader
_ENUMERATIONS = {
    "memory_type",
    "memory_access_type",
    "memory_access_size_type",
    "smsp__sass_inst_executed_memdesc_explicit_evict_type",
}


def _columns(result: Msg, cache: dict[bytes, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The source page's columns as (metric, label), in the sections' order. ``cache`` holds
    each distinct serialized section's columns (launches repeat the same definitions)."""
    columns: list[tuple[str, str]] = []
    for raw in result.Sections:
        found = cache.get(raw)
        if found is None:
            found = cache[raw] = [
                (text(m.Name), text(m.Label) or text(m.Name))
                for m in messages.parse(messages.Section, raw, "a section definition").SourceMetrics.Metrics
                if text(m.Name) not in _ENUMERATIONS
            ]
        columns += [c for c in found if all(c[0] != n for n, _ in columns)]
    return columns


#: a launch's metrics by name: the source counters read those with per-instance values and
#: the group metrics (whose value names their members)
Lists = dict[str, Msg]


def _per_pc(
    lists: Lists, base: int, wanted: set[str]
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[str, list[str]]]:
    """The ``wanted`` metrics that have one value per program counter of the function, as
    metric -> (offsets from the function's start, values), and the members of each group
    metric, which the report states as the group's value ("member,member,...")."""
    groups = {
        name: text(messages.parse(messages.MetricValue, lists[name].Value, "a group").StringValue).split(",")
        for name in wanted
        if name.startswith(GROUP) and name in lists
    }
    wanted = wanted | {member for members in groups.values() for member in members}
    # in the launch's metric order (the bulk decode's fallback reports in it)
    chosen = [(name, lists[name].MetricValueList) for name in lists if name in wanted]
    chosen = [(name, items) for name, items in chosen if len(items)]
    # one bulk decode for all of the launch's lists; list by list where one departs from the
    # common shape (a list of text ids is then left out)
    decoded = instances.decode([e for _, items in chosen for e in items])
    pieces: list[tuple[str, tuple[np.ndarray, np.ndarray] | None]] = []
    if decoded is None:
        pieces = [(name, instances.decode(items)) for name, items in chosen]
    else:
        bounds = np.cumsum([0] + [len(items) for _, items in chosen])
        ids, values = decoded
        pieces = [
            (name, (ids[a:b], values[a:b]))
            for (name, _), a, b in zip(chosen, bounds[:-1], bounds[1:], strict=True)
        ]
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, got in pieces:
        # a list whose ids are not program counters (partitions, timestamps' ids) is left out
        if got is not None and len(got[0]) and got[0].min() >= base:
            out[name] = ((got[0] - np.uint64(base)).astype(np.int64), got[1])
    return out, groups


def function_start(lists: Lists) -> int | None:
    """The kernel's first program counter: ``launch__function_pcs`` lists it (the metric's
    value is how many it lists), the per-instruction counters are keyed by absolute PCs."""
    listed = lists.get("launch__function_pcs")
    if listed is None or not len(listed.MetricValueList):
        return None
    starts = [
        messages.parse(messages.MetricListElement, e, "a kernel's start address").ElementValue.Uint64Value
        for e in listed.MetricValueList
    ]
    return min(starts) or None


class SourceCounters:
    """The per-instruction counters of a report's launches, as ``source`` rows: per launch,
    one per SASS address (with its CUDA file and line where the cubin has a line table) and
    counter where the counter is not zero (nine cells in ten are zero:
    most stall reasons at most instructions; an absent cell is a zero), counter by counter in
    program order; ``row`` numbers the launch's instructions in program order. ``text`` is
    null: a report stores numbers, not printed text."""

    def __init__(self) -> None:
        self._parts: list[pl.DataFrame] = []
        self._sections: dict[bytes, list[tuple[str, str]]] = {}

    def add(
        self,
        launch_id: int,
        result: Msg,
        lists: Lists,
        base: int | None,
        lines: cubin.Lines | None,
        files: dict[str, str] | None = None,
    ) -> None:
        """The launch's counters (``base``: its function's first program counter; ``lines``:
        its line table, when the cubin has one, which gives each address its CUDA line;
        ``files``: the CUDA files the report embeds, by the line table's names)."""
        columns = _columns(result, self._sections) if base else []
        if not base or not columns:
            return
        per_pc, groups = _per_pc(lists, base, {name for name, _ in columns})
        # each column: its metric, or a group's members (the group's value is their sum)
        feeds = [
            (label, [per_pc[m] for m in groups.get(name, [name]) if m in per_pc]) for name, label in columns
        ]
        feeds = [(label, parts) for label, parts in feeds if parts]
        if not feeds:
            return
        offsets = np.unique(np.concatenate([pcs for _, parts in feeds for pcs, _ in parts]))
        grid = np.zeros((len(feeds), len(offsets)))
        for row, (_, parts) in enumerate(feeds):
            for pcs, values in parts:
                np.add.at(grid[row], np.searchsorted(offsets, pcs), values)
        counter, pc = np.nonzero(grid)  # row-major: counter by counter, in program order
        if not len(pc):
            return
        addresses = pl.Series([f"0x{base + int(o):x}" for o in offsets], dtype=pl.String)
        labels = pl.Series([label for label, _ in feeds], dtype=pl.Categorical)
        frame = pl.DataFrame(
            {
                "row": pc.astype(np.int64),
                "address": addresses.gather(pc),
                "counter": labels.gather(counter),
                "value": grid[counter, pc],
            }
        )
        if lines is not None:
            names, numbers = lines.at(offsets)
            frame = frame.with_columns(
                pl.Series("file", names, dtype=pl.String).gather(pc),
                pl.Series("line", numbers, dtype=pl.Int64).gather(pc).replace(0, None),
            )
            frame = pl.concat([frame, _line_rows(frame, len(offsets), files or {})], how="diagonal")
        else:  # a kernel built without -lineinfo, beside others built with it
            frame = frame.with_columns(
                pl.lit(None, pl.String).alias("file"), pl.lit(None, pl.Int64).alias("line")
            )
        self._parts.append(frame.with_columns(pl.lit(launch_id, dtype=pl.Int64).alias("launch_id")))

    def rows(self) -> pl.DataFrame:
        if not self._parts:
            return schema.empty("source")
        return schema.conform("source", pl.concat(self._parts, how="diagonal_relaxed"))


def embedded_files(code: Msg) -> dict[str, str]:
    """The CUDA files a ``SourceData`` message embeds (``ncu --import-source yes``), by the
    name the cubin's line table gives them; {} when the report was made without them."""
    return {
        posixpath.normpath(text(f.FileName)): text(f.Content) for f in code.SourceFiles.Files if f.FileName
    }


def _line_rows(instructions: pl.DataFrame, first_row: int, files: dict[str, str]) -> pl.DataFrame:
    """A CUDA line's rows, as ncu's CUDA+SASS source page lists them above the line's
    instructions: each counter summed over the instructions the line table puts on the line
    (the page's line rows are those sums), ``address`` null, ``code`` the line's text where
    the report embeds the file (else null). ``row`` numbers them after the instructions."""
    sums = (
        instructions.filter(pl.col("line").is_not_null())
        .group_by("file", "line", "counter", maintain_order=True)
        .agg(pl.col("value").sum())
        .sort("file", "line", maintain_order=True)
    )
    where = sums.select("file", "line").unique(maintain_order=True).with_row_index("index")
    texts = {name: content.splitlines() for name, content in files.items()}
    code = [
        texts[f][n - 1] if f in texts and 0 < n <= len(texts[f]) else None
        for f, n in zip(where["file"].to_list(), where["line"].to_list(), strict=True)
    ]
    where = where.with_columns(
        (pl.col("index").cast(pl.Int64) + first_row).alias("row"), pl.Series("code", code, dtype=pl.String)
    ).drop("index")
    return sums.join(where, on=["file", "line"], how="left").with_columns(
        pl.lit(None, pl.String).alias("address")
    )
