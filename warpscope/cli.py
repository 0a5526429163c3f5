"""The ``warpscope`` command line (typer). Headless commands never import Textual."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from warpscope.errors import InputError

app = typer.Typer(
    name="warpscope",
    help="GPU kernel profiles (Nsight Compute, nvprof), explained in a terminal.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class ReportFormat(str, Enum):
    md = "md"
    json = "json"


class MetricsFormat(str, Enum):
    text = "text"
    json = "json"


def _fail(message: str, code: int = 2) -> NoReturn:
    sys.stderr.write(f"warpscope: {message}\n")
    raise typer.Exit(code)


def _load(files: list[Path]):
    from importers import import_files
    from warpscope.report.escape import visible

    try:
        return import_files(files)
    except InputError as e:
        _fail(visible(str(e)))


@app.command("import")
def import_cmd(
    files: Annotated[list[Path], typer.Argument(help="Exports to read (any supported format).")],
    output: Annotated[Path, typer.Option("-o", "--output",
                                         help="Profile to write: .parquet, or .arrow/.ipc for Arrow IPC.")],
) -> None:
    """Import exports into one saved Profile (Parquet or Arrow IPC)."""
    if output.suffix.lower() not in (".parquet", ".pq", ".arrow", ".ipc", ".feather"):
        _fail(f"{output}: unknown output type, expected .parquet or .arrow")
    profile = _load(files)
    profile.save(output)
    from warpscope.report.escape import visible

    for src in profile.sources.iter_rows(named=True):
        sys.stderr.write(f"{visible(src['path'])}: {src['format']}, {src['launches']} launches, "
                         f"{src['rows_imported']} rows imported, {src['rows_rejected']} rejected\n")


@app.command()
def report(
    files: Annotated[list[Path], typer.Argument(help="Exports or saved profiles to report on.")],
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="md (default) or json.")] = ReportFormat.md,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")] = None,
) -> None:
    """Per-launch report: launch config, occupancy and its limiter, efficiency, stalls, findings."""
    profile = _load(files)
    if fmt is ReportFormat.json:
        from warpscope.report.json_report import render
    else:
        from warpscope.report.markdown import render
    text = render(profile)
    if output is None:
        sys.stdout.write(text)
    else:
        from warpscope.files import write_text_atomic

        write_text_atomic(output, text)


@app.command()
def metrics(
    fmt: Annotated[MetricsFormat, typer.Option("--format", "-f", help="text (default) or json.")]
    = MetricsFormat.text,
) -> None:
    """The canonical metric catalog: id, unit, definition, formula, ncu and nvprof names."""
    from warpscope.model.catalog import CATALOG

    if fmt is MetricsFormat.json:
        rows = [{
            "id": m.id, "unit": m.unit, "definition": m.definition, "formula": m.formula,
            "ncu": [a.name for a in m.ncu],
            "ncu_labels": [{"section": a.section, "label": a.name} for a in m.labels],
            "nvprof": [a.name for a in m.nvprof],
            "derived_from": list(m.derived_from),
        } for m in CATALOG]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    for m in CATALOG:
        names = ", ".join([a.name for a in m.ncu] + sorted({f'"{a.name}"' for a in m.labels}))
        lines = [f"{m.id} [{m.unit or '-'}]", f"    {m.definition}", f"    formula: {m.formula}"]
        if names:
            lines.append(f"    ncu: {names}")
        if m.nvprof:
            lines.append(f"    nvprof: {', '.join(a.name for a in m.nvprof)}")
        sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("warpscope: interrupted\n")
        sys.exit(130)
