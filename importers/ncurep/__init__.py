"""Nsight Compute reports (``.ncu-rep``), read without Nsight Compute.

The report holds what ``ncu --import R --csv --page raw`` and ``--page details`` print: every
launch with its metrics, and the results of ncu's rules. This reader turns each launch into
the row the raw page would have (the same identity columns, one column per metric) and each
rule message into the row the details page would have, and hands both to the CSV importers'
own assembly, so a report and its exported pages give the same tables.

Differences from the CSV pages, all in the report's favour or said where they apply:
values keep the precision the report stores (the raw page rounds to two decimals); metric
units are not stored in a report, so they are the units Nsight Compute prints for that metric
(``units.py``); the per-instruction counters and their CUDA lines are read too (``source.py``,
``cubin.py``), other per-instance values (``--print-metric-instances``) and range,
command-list and graph results are not, and the import notes say how many were skipped.
"""

from __future__ import annotations

import posixpath
import struct
import zlib
from collections.abc import Iterable
from dataclasses import replace
from typing import BinaryIO

import polars as pl

from warpscope.errors import InputError
from warpscope.importers import _input
from warpscope.importers.ncu import assemble_profile
from warpscope.importers.ncu import framing as csv_framing
from warpscope.importers.ncu.framing import CsvBlock
from warpscope.importers.ncu.long_page import rule_findings
from warpscope.importers.ncu.raw_page import import_raw
from warpscope.importers.ncurep import (
    cubin,
    framing,
    messages,
    pages,
    sass_text,
    source,
    via_ncu,
    via_ncu_report,
)
from warpscope.importers.ncurep.messages import Msg, ReportDamage, parse, text
from warpscope.model.profile import Profile

__all__ = ["import_report"]

FORMAT = "ncu-rep"
#: names in a report's string table that are section helpers, not metrics (the raw page
#: has no column for them)
_HELPER_PREFIXES = ("group:", "breakdown:")


def import_report_via_ncu_report(path: str) -> Profile:
    """The report read by NVIDIA's ``ncu-report`` (``via_ncu_report.py``): its raw and details
    pages as warpscope's reader would give them, with ncu's rule tables after each message."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="warpscope-ncu-report-") as tmp:
        plain = Path(tmp) / "report.ncu-rep"
        try:
            with _input.open_binary(path) as stream, plain.open("wb") as out:
                while chunk := stream.read(1 << 20):
                    out.write(chunk)
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(path, f"damaged gzip file ({e})") from None
        rows, rules = via_ncu_report.read(path, str(plain))
    if not rows:
        raise InputError(path, "an Nsight Compute report with no kernel launch in it")
    page = import_raw(pages.raw_frame(rows), fmt=FORMAT)
    page.findings = rule_findings(pages.rule_rows(rules))
    profile = assemble_profile(path, [(page, CsvBlock(b"", 0, None), FORMAT)], csv_framing.Framing())
    said = ["read through NVIDIA's ncu-report (--via-ncu): no process columns, no per-line counters"]
    return replace(
        profile,
        sources=profile.sources.with_columns(
            pl.lit("ncu-rep via ncu-report").alias("format"),
            pl.Series([said], dtype=pl.List(pl.String)).alias("notes"),
        ),
    )


def import_report(path: str) -> Profile:
    """Every kernel launch of the report (plain or gzip-compressed), its metrics and ncu's
    rule results."""
    try:
        with _input.open_binary(path) as stream:
            report = _read(stream)
    except ReportDamage as e:
        raise InputError(path, f"damaged Nsight Compute report ({e})") from None
    except (OSError, EOFError, zlib.error) as e:  # a damaged gzip stream
        raise InputError(path, f"damaged gzip file ({e})") from None
    if not report.launch_rows:
        raise InputError(path, "an Nsight Compute report with no kernel launch in it")
    frame = _raw_frame(report)
    page = import_raw(frame, fmt=FORMAT)
    page.findings = rule_findings(pages.rule_rows(report.rule_rows))
    profile = assemble_profile(path, [(page, CsvBlock(b"", 0, None), FORMAT)], csv_framing.Framing())
    rows = report.source.rows()
    notes_ = report.notes()
    if rows["address"].is_not_null().any():
        mangled = [str(r["Kernel Mangled Name"]) for r in report.launch_rows]
        with_text = sass_text.texts(path, rows, mangled)
        if with_text is None:
            notes_.append(sass_text.NO_TEXT)
        else:
            rows = with_text
    notes = pl.Series([notes_], dtype=pl.List(pl.String))
    return replace(profile, sources=profile.sources.with_columns(notes.alias("notes")), source=rows)


class _Report:
    """What the blocks of one report hold, gathered: a row per launch, rule rows, counts."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self.launch_rows: list[dict[str, str | None]] = []
        self.rule_rows: list[dict[str, object]] = []
        self.instanced: set[str] = set()
        self.source = source.SourceCounters()
        self.lines: dict[int, dict[str, cubin.Lines]] = {}  # by SourceData reference, by kernel
        self.files: dict[int, dict[str, str]] = {}  # by SourceData reference: CUDA file -> text
        self.other_results = 0
        self.version = 0

    def notes(self) -> list[str]:
        out = []
        if self.version not in framing.KNOWN_VERSIONS:
            out.append(
                f"report format version {self.version} is newer than this reader knows "
                f"({framing.KNOWN_VERSIONS[-1]}); fields it does not know were skipped"
            )
        if self.other_results:
            out.append(
                f"{self.other_results} range, command-list or graph result(s) not read "
                "(only kernel launches are)"
            )
        if out and via_ncu_report.available():
            out.append(via_ncu_report.HINT)
        elif out and via_ncu.ncu_path() is not None:
            out.append(via_ncu.HINT)
        if self.instanced:
            out.append(
                f"{len(self.instanced)} metric(s) with per-instance values only were not read "
                "(the raw page leaves them empty too)"
            )
        return out


def _read(stream: BinaryIO) -> _Report:
    report = _Report()
    report.version, blocks = framing.read_blocks(stream)
    for block in blocks:
        report.strings.extend(map(text, block.header.StringTable.Strings))
        report.other_results += block.other_results
        for raw in block.sources:
            if cubin.may_have_lines(raw):  # parsing a library's cubin costs; most have no lines
                code = parse(messages.SourceData, raw, "a source message")
                report.lines[code.Reference] = cubin.line_tables(code.Binary)
                report.files[code.Reference] = source.embedded_files(code)
        process = block.header.Process
        for result in block.results:
            launch = len(report.launch_rows)
            row, lists = _launch_row(report, launch, process, result)
            report.launch_rows.append(row)
            report.rule_rows.extend(_rules(launch, result.RuleResults))
            reference = result.Source.Reference
            lines = report.lines.get(reference, {}).get(text(result.KernelMangledName))
            files = report.files.get(reference, {})
            report.source.add(launch, result, lists, source.function_start(lists), lines, files)
    return report


_DOUBLE = 0x19  # MetricValue's DoubleValue tag: 0x19 and eight bytes is most values' whole message
_unpack_double = struct.Struct("<d").unpack_from


def _value_text(raw: bytes) -> str | None:
    """A serialized metric value as text, at the precision the report stores."""
    if len(raw) == 9 and raw[0] == _DOUBLE:
        return repr(_unpack_double(raw, 1)[0])
    value = parse(messages.MetricValue, raw, "a metric value")
    if value.HasField("DoubleValue"):
        return repr(value.DoubleValue)
    if value.HasField("Uint64Value"):
        return str(value.Uint64Value)
    if value.HasField("Uint32Value"):
        return str(value.Uint32Value)
    if value.HasField("FloatValue"):
        return repr(value.FloatValue)
    if value.HasField("StringValue"):
        return text(value.StringValue)
    return None


def _launch_row(
    report: _Report, launch: int, process: Msg, result: Msg
) -> tuple[dict[str, str | None], source.Lists]:
    """The launch's raw-page row, and its per-instance lists and group metrics (by name) for
    the source counters."""
    strings = report.strings
    metrics: dict[str, str | None] = {}
    lists: source.Lists = {}  # every metric: the source counters pick theirs by name
    valueless = []
    try:
        # the hot loop of a report (thousands of metrics a launch): few attribute reads each
        for m in result.MetricResults:
            name = strings[m.NameId]
            lists[name] = m
            raw = m.Value
            if len(raw) == 9 and raw[0] == _DOUBLE:
                metrics[name] = repr(_unpack_double(raw, 1)[0])
            elif raw or m.HasField("Value"):
                metrics[name] = _value_text(raw)
            else:
                valueless.append(name)
    except IndexError:
        raise ReportDamage(f"a metric name id past the string table ({len(strings)} names)") from None
    for name in valueless:
        if len(lists[name].MetricValueList):  # per-instance values only: an empty raw-page cell
            metrics[name] = None
            report.instanced.add(name)
        else:
            metrics[name] = "no data"  # as the raw page says it
    for name in [n for n in metrics if n.startswith(_HELPER_PREFIXES)]:
        del metrics[name]
    kernel = pages.as_ncu_prints(
        text(result.RenamedDemangledName or result.KernelDemangledName or result.KernelFunctionName)
    )
    major = metrics.get("device__attribute_compute_capability_major")
    minor = metrics.get("device__attribute_compute_capability_minor")
    g, b = result.GridSize, result.BlockSize
    row = {
        "ID": str(launch),
        "Process ID": str(process.ProcessID),
        "Process Name": posixpath.basename(text(process.ProcessName).replace("\\", "/")),
        "Host Name": text(process.Hostname),
        "Kernel Name": kernel,
        "Context": str(result.ContextID),
        "Stream": str(result.StreamID),
        "Block Size": f"({b.X}, {b.Y}, {b.Z})",
        "Grid Size": f"({g.X}, {g.Y}, {g.Z})",
        "Device": metrics.get("device__attribute_device_index", ""),
        "CC": f"{major}.{minor}" if major is not None and minor is not None else "",
        "Kernel Mangled Name": text(result.KernelMangledName),
    }
    row.update(metrics)
    return row, lists


def _rules(launch: int, results: Iterable[Msg]) -> Iterable[dict[str, object]]:
    """One row per rule message, as the details page prints it, with the speedup its body
    item carries (or, in reports that keep it apart, the item after it)."""
    for rule in results:
        last: dict[str, object] | None = None
        for item in rule.Body.Items:
            if item.HasField("Message"):
                last = {
                    "launch_id": launch,
                    "Rule Name": text(rule.Identifier),
                    "Rule Type": pages.RULE_TYPE.get(item.Message.Type, ""),
                    "Rule Description": pages.plain_message(text(item.Message.Message)),
                    "Section Name": text(rule.SectionIdentifier),
                    "Estimated Speedup Type": "",
                    "Estimated Speedup": None,
                }
                yield last
            if item.HasField("Speedup") and last is not None:
                last["Estimated Speedup Type"] = pages.SPEEDUP_TYPE.get(item.Speedup.SpeedupType, "")
                last["Estimated Speedup"] = repr(item.Speedup.Value)


def _raw_frame(report: _Report) -> pl.DataFrame:
    """The raw page the report would export: identity columns, then one column per metric
    (in name order, as ncu prints them), a units row first, ``_row`` added."""
    return pages.raw_frame(report.launch_rows)
