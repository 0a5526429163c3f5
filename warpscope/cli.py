"""The ``warpscope`` command line (typer). Headless commands never import Textual."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TextIO

import typer

from warpscope.errors import InputError, python_file_error
from warpscope.files import is_profile_path
from warpscope.version import print_version

if TYPE_CHECKING:
    from warpscope.explore.workspace import Workspace
    from warpscope.model.profile import Profile
    from warpscope.tui import Job

#: the H100 export of the seed kernels that ``warpscope demo`` opens: package data, so the demo
#: works from any directory after ``pip install`` (in a checkout, a link to sample_traces/h100)
DEMO_EXPORT = Path(__file__).resolve().parent / "data" / "seed_full_raw.csv"

app = typer.Typer(
    name="warpscope",
    help="GPU kernel profiles (Nsight Compute, nvprof), explained in a terminal.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=print_version, is_eager=True),
    ] = False,
) -> None:
    """GPU kernel profiles (Nsight Compute, nvprof), explained in a terminal."""


class ReportFormat(str, Enum):
    md = "md"
    json = "json"


class MetricsFormat(str, Enum):
    text = "text"
    json = "json"


def _fail(message: str, code: int = 2) -> NoReturn:
    sys.stderr.write(f"warpscope: {message}\n")
    raise typer.Exit(code)


#: the --via-ncu option of the commands that read files
ViaNcu = Annotated[
    bool,
    typer.Option(
        "--via-ncu",
        help="Read .ncu-rep reports through NVIDIA's ncu-report where installed (with ncu's rule "
        "tables), else Nsight Compute's own export (ncu on the PATH), e.g. a report from a newer "
        "Nsight Compute than warpscope knows.",
    ),
]


def _load(files: list[Path], via_ncu: bool = False):
    from warpscope.importers import import_files
    from warpscope.report.escape import visible

    try:
        return import_files(files, _import_progress, via_ncu=via_ncu)
    except InputError as e:
        _fail(visible(str(e)))


def _progress(text: str, last: bool) -> None:
    """Progress on stderr, one updating line (ended after the ``last``), only where a person
    watches (a terminal): quiet in logs, pipes and CI."""
    if not sys.stderr.isatty():
        return
    sys.stderr.write(f"\r\x1b[2K{text}{chr(10) if last else ''}")
    sys.stderr.flush()


def _import_progress(done: int, total: int) -> None:
    """Bytes read of a large (streamed) import."""
    share = 100 * done // max(total, 1)
    _progress(f"importing: {done / 1e6:,.0f} of {total / 1e6:,.0f} MB ({share}%)", done >= total)


def _emulate_progress(done: int, total: int, what: str) -> None:
    """Launches emulated, and the kernel now running."""
    from warpscope.report.escape import visible

    count = f"{done}/{total}" if total else str(done)
    _progress(f"{count} {visible(what)[:60]}", bool(total) and done >= total)


def _emulate_summary(launches: list, wall_s: float) -> None:
    """One line on stderr after an emulation: launches, warp instructions, wall time and the
    rate (and the timing model's share when it ran)."""
    insts = sum(launch.counters.warp_instructions for launch in launches)
    timed = sum(launch.timing.wall_s for launch in launches if launch.timing is not None)
    timing = f", timing model {timed:.2f} s" if any(launch.timing for launch in launches) else ""
    sys.stderr.write(
        f"warpscope: emulated {len(launches)} launches, {insts:,} warp instructions in {wall_s:.2f} s "
        f"({insts / max(wall_s, 1e-9) / 1e6:.2f} M warp instructions/s{timing})\n"
    )


@app.command("import")
def import_cmd(
    files: Annotated[list[Path], typer.Argument(help="Exports to read (any supported format).")],
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Where to save: a folder of Parquet tables (one per table, any engine reads them), "
            "or one file: .parquet, or .arrow/.ipc for Arrow IPC.",
        ),
    ] = None,
    into: Annotated[
        Path | None,
        typer.Option(
            "--into", help="Append as one run to this dataset (hive-partitioned Parquet; created if absent)."
        ),
    ] = None,
    labels: Annotated[
        list[str] | None,
        typer.Option(
            "--label",
            help="KEY=VALUE to record with the run, e.g. commit=abc123 (repeatable; also from "
            "WARPSCOPE_LABELS=commit=abc123,branch=main).",
        ),
    ] = None,
    findings: Annotated[
        bool,
        typer.Option(
            "--findings/--no-findings",
            help="Save warpscope's findings beside the profiler's (folders and datasets).",
        ),
    ] = True,
    via_ncu: ViaNcu = False,
) -> None:
    """Import exports into a saved profile (a folder of Parquet tables, or one file) or a dataset."""
    from warpscope.analysis.text import count
    from warpscope.model import store
    from warpscope.model.runs import file_entries, parse_labels
    from warpscope.report.escape import visible

    if output is None and into is None:
        _fail("say where to save: -o PROFILE (a folder, .parquet or .arrow) or --into DATASET")
    if output is not None and output.suffix and not is_profile_path(output):
        _fail(f"{output}: unknown output type, expected a folder (no suffix), .parquet or .arrow")
    try:
        run_labels = parse_labels(labels or ())
    except ValueError as e:
        _fail(visible(str(e)))
    profile = _load(files, via_ncu)
    formats = dict(profile.sources.select("path", "format").iter_rows())
    profile = store.with_run(profile, labels=run_labels, files=file_entries([str(f) for f in files], formats))
    if findings and (into is not None or (output is not None and not output.suffix)):
        from warpscope.analysis import analyze

        profile = analyze(profile)
    try:
        if output is not None:
            if output.suffix:
                profile.save(output)
            else:
                store.save_folder(profile, output)
        if into is not None:
            if not store.may_append_to(into):
                _fail(f"{visible(str(into))}: exists and is not a warpscope dataset")
            store.append_run(profile, into)
    except FileExistsError as e:
        _fail(visible(str(e)))
    except OSError as e:
        _fail(visible(f"{e.filename or output or into}: cannot write: {e.strerror or e}"))
    run_id = profile.runs["run_id"][0]
    for src in profile.sources.iter_rows(named=True):
        sys.stderr.write(
            f"{visible(src['path'])}: {src['format']}, {count(src['launches'], 'launch')}, "
            f"{src['rows_imported']} rows imported, {src['rows_rejected']} rejected\n"
        )
        for note in src["notes"] or ():
            sys.stderr.write(f"  {visible(note)}\n")
    if into is not None:
        sys.stderr.write(f"{visible(str(into))}: run {run_id} added\n")


@app.command()
def report(
    files: Annotated[list[Path], typer.Argument(help="Exports or saved profiles to report on.")],
    fmt: Annotated[
        ReportFormat, typer.Option("--format", "-f", help="md (default) or json.")
    ] = ReportFormat.md,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
    figures: Annotated[
        Path | None,
        typer.Option(
            "--figures",
            help="Also write the roofline as DIR/roofline.svg (the markdown report links it).",
            file_okay=False,
        ),
    ] = None,
    via_ncu: ViaNcu = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="The whole markdown report on stdout (by default it is cut to 65,536 characters, "
            "what a GitHub comment holds; -o FILE always writes it whole).",
        ),
    ] = False,
) -> None:
    """Per-kernel report: launch config, occupancy and its limiter, divergence, memory, stalls, findings."""
    from warpscope.analysis import analyze
    from warpscope.analysis.groups import launch_groups

    profile = _load(files, via_ncu)
    groups = launch_groups(profile)  # launches the rules cannot tell apart: analysed once
    # the rules make their own views where they run (forked workers); the report one per kernel
    profile = analyze(profile, groups=groups)
    figure = None
    if figures is not None:
        from warpscope.files import write_text_atomic
        from warpscope.report.roofline_points import kernel_points
        from warpscope.report.roofline_svg import roofline_svg

        try:
            figures.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            _fail(f"{figures}: cannot make the figures folder ({e.strerror})")
        svg = figures / "roofline.svg"
        write_text_atomic(svg, roofline_svg(kernel_points(profile), "Roofline"))
        base = output.parent if output is not None else Path(".")
        figure = os.path.relpath(svg, base.resolve()) if svg.is_absolute() else os.path.relpath(svg, base)
    if fmt is ReportFormat.json:
        from warpscope.report.json_report import write as write_json

        _write_with(lambda out: write_json(profile, out), output)  # every launch's metrics, streamed
        return
    from warpscope.report.markdown import COMMENT_BUDGET, render

    budget = None if full or output is not None else COMMENT_BUDGET
    _write(render(profile, roofline_figure=figure, budget=budget, launch_groups=groups), output)


class EmulateFormat(str, Enum):
    md = "md"
    json = "json"


@app.command()
def emulate(
    file: Annotated[
        Path | None,
        typer.Argument(help="Python file with @cuda.jit kernels and a main() that launches them."),
    ] = None,
    workload: Annotated[
        str | None,
        typer.Option("--workload", help="Run a bundled workload instead of FILE: 'seed' (the seed kernels)."),
    ] = None,
    arch: Annotated[
        str, typer.Option("--arch", help="Architecture for occupancy, e.g. sm_80, sm_90.")
    ] = "sm_90",
    registers: Annotated[
        int,
        typer.Option(
            "--registers",
            help="Registers per thread for occupancy, where a kernel does not set max_registers.",
        ),
    ] = 32,
    budget: Annotated[
        int,
        typer.Option(
            "--budget", help="Warp instructions a launch may execute before it is stopped as a runaway loop."
        ),
    ] = 2_000_000_000,
    scale: Annotated[
        int,
        typer.Option("--scale", help="With --workload seed: shrink the 1M-element launches this many times."),
    ] = 1,
    fmt: Annotated[
        EmulateFormat, typer.Option("--format", "-f", help="md (default) or json.")
    ] = EmulateFormat.md,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="A .parquet/.arrow file saves the profile; any other name gets the report."
        ),
    ] = None,
    policy: Annotated[
        str,
        typer.Option(
            "--policy", help="Warp scheduler of the timing model: gty (greedy then youngest), gto, lrr."
        ),
    ] = "gty",
    timing: Annotated[
        bool,
        typer.Option(
            "--timing/--no-timing", help="Run the warp-scheduler timing model (durations, stalls, timeline)."
        ),
    ] = True,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace", help="Also write the warp timeline as Chrome/Perfetto trace JSON to this file."
        ),
    ] = None,
    racecheck: Annotated[
        bool,
        typer.Option(
            "--racecheck/--no-racecheck",
            help="Report shared-memory (and in-block global) races between barriers, as compute-sanitizer's racecheck.",
        ),
    ] = True,
    show_source: Annotated[
        Path | None,
        typer.Option(
            "--show-source",
            help="Run kernels as generated Python source and write it to this folder, one file per kernel.",
        ),
    ] = None,
) -> None:
    """Run kernels on the SIMT emulator and report them like a profile (counters are source-level;
    durations and stalls come from the timing model)."""
    from warpscope.emulator.errors import EmulatorError
    from warpscope.emulator.kernel import Settings
    from warpscope.emulator.runner import emulate_file, emulate_workload
    from warpscope.occupancy.arch import UnknownArch, get_arch
    from warpscope.report.escape import visible

    if (file is None) == (workload is None):
        _fail("give a kernel FILE or --workload seed (one of them)")
    try:
        arch = get_arch(arch).name
    except UnknownArch as e:
        _fail(visible(str(e)))
    if registers < 1 or registers > 255 or budget < 1 or scale < 1:
        _fail("--registers must be 1-255, --budget and --scale positive")
    from warpscope.emulator.timing import POLICIES

    if policy not in POLICIES:
        _fail(f"--policy must be one of {', '.join(POLICIES)}, not {visible(policy)}")
    if trace is not None and not timing:
        _fail("--trace needs the timing model (drop --no-timing)")
    settings = Settings(
        arch=arch, registers=registers, budget=budget, timing=timing, policy=policy, racecheck=racecheck
    )
    from warpscope.emulator.compiler.codegen import showing_source
    from warpscope.emulator.kernel import recording

    started = time.perf_counter()
    try:
        with showing_source(show_source), recording() as launches:
            profile = (
                emulate_file(file, settings, _emulate_progress)
                if file is not None
                else emulate_workload(workload or "", settings, scale, _emulate_progress)
            )
    except EmulatorError as e:
        _fail(visible(str(e)))
    _emulate_summary(launches, time.perf_counter() - started)
    for kind, message in profile.hazards.select("kind", "message").iter_rows():
        sys.stderr.write(
            f"warpscope: {'racecheck' if kind in ('RAW', 'WAR', 'WAW') else 'warning'}: {visible(message)}\n"
        )
    from warpscope.analysis import analyze
    from warpscope.analysis.views import launch_views

    views = launch_views(profile)
    profile = analyze(profile, views)
    if trace is not None:
        from warpscope.emulator.timing.perfetto import write_trace

        events = write_trace(profile, str(trace))
        sys.stderr.write(f"{visible(str(trace))}: {events} warp-state events (open in ui.perfetto.dev)\n")
    if output is not None and is_profile_path(output):
        profile.save(output)
        sys.stderr.write(f"{visible(str(output))}: {profile.launches.height} emulated launches\n")
        return
    if fmt is EmulateFormat.json:
        from warpscope.report.json_report import render as render_json

        _write(render_json(profile, views), output)
        return
    from warpscope.report.markdown import render

    _write(render(profile), output)


def _run_app(
    files: list[Path],
    baseline: Path | None = None,
    via_ncu: bool = False,
    *,
    job: Job | None = None,
    what: str | None = None,
) -> None:
    """The terminal UI on ``files``: on screen at once, the files loaded in its thread (pages
    of one report become one set of launches, as in ``import_files``: ``combine``); a file that cannot be
    read ends the app and is reported in one line, exit 2."""
    from warpscope.model import store
    from warpscope.report.escape import visible
    from warpscope.tui import WarpscopeApp

    dataset = files[0] if len(files) == 1 and store.is_dataset(files[0]) else None
    named_run = dataset is not None and baseline is not None and not baseline.exists()
    for path in [*files, *([baseline] if baseline is not None and not named_run else [])]:
        if path.is_dir():
            continue
        try:  # the usual mistake (a mistyped name), said before the screen is taken over
            with open(path, "rb"):
                pass
        except OSError as e:
            _fail(f"{visible(str(path))}: cannot read: {e.strerror or e}")
        if (error := python_file_error(str(path))) is not None:
            _fail(visible(str(error)))
    base_run = None
    if dataset is not None and (baseline is None or named_run):
        try:  # the newest run is opened; the one before it (or the one named) is the baseline
            base_run = store.select_run(dataset, str(baseline) if named_run else None, offset=1)
        except KeyError as e:
            if named_run:
                _fail(visible(f"{dataset}: --baseline {baseline}: {e.args[0]}"))

    def load(progress: Callable[[int, int], None]) -> Workspace:
        from warpscope.explore.workspace import Workspace
        from warpscope.importers import combine, import_files

        profiles = [import_files([path], progress, via_ncu=via_ncu) for path in files]
        if base_run is not None and dataset is not None:
            base = store.load_run(dataset, base_run)
        elif baseline is not None:
            base = import_files([baseline], progress, via_ncu=via_ncu)
        else:
            base = None
        return Workspace(combine(profiles), base, dataset=dataset)

    shown = what or ", ".join(path.name for path in files)
    tui = WarpscopeApp(load, job=job, loading=shown)
    tui.run()
    if isinstance(tui.load_error, InputError):
        _fail(visible(str(tui.load_error)))
    if tui.load_error is not None:
        raise tui.load_error


@app.command("open")
def open_cmd(
    files: Annotated[
        list[Path], typer.Argument(help="Exports or saved profiles (several merge into one view).")
    ],
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="A profile to compare with (press c in the app); for a dataset, a run id or "
            "KEY=VALUE label (default: the run before the newest).",
        ),
    ] = None,
    via_ncu: ViaNcu = False,
) -> None:
    """Explore profiles in the terminal UI: kernel table, kernel views, compare, timeline, glossary."""
    _run_app(files, baseline, via_ncu)


@app.command()
def demo(
    scale: Annotated[
        int,
        typer.Option(
            "--scale", help="Shrink the 1M-element seed launches this many times (1: the H100's sizes)."
        ),
    ] = 1,
    timing: Annotated[
        bool,
        typer.Option(
            "--timing/--no-timing", help="Run the warp-scheduler timing model (durations, stalls, timeline)."
        ),
    ] = True,
) -> None:
    """Open the bundled H100 export of the seed kernels, and emulate the same kernels beside it."""
    if scale < 1:
        _fail("--scale must be positive")
    export = DEMO_EXPORT
    if not export.is_file():
        _fail(f"{export}: the bundled H100 export is missing from this installation of warpscope")

    def job(progress: Callable[[int, int, str], None]) -> Profile:
        from warpscope.emulator.cache import cached_workload
        from warpscope.emulator.kernel import Settings

        return cached_workload("seed", Settings(timing=timing), scale, progress, in_process=False)

    _run_app([export], job=job, what="the H100 export of the seed kernels")


@app.command("diff")
def diff_cmd(
    base: Annotated[Path, typer.Argument(help="The baseline export or saved profile.")],
    new: Annotated[Path, typer.Argument(help="The export or saved profile to compare with it.")],
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when a matched launch crosses it: METRIC OP [+-]NUMBER[%], "
            "e.g. 'duration_ns>+5%' (relative) or 'achieved_occupancy_pct<-10' (points).",
        ),
    ] = None,
    fmt: Annotated[
        ReportFormat, typer.Option("--format", "-f", help="md (default) or json.")
    ] = ReportFormat.md,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
    via_ncu: ViaNcu = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="The whole markdown diff on stdout (by default cut to 65,536 characters)."
        ),
    ] = False,
) -> None:
    """Compare two profiles launch by launch; exit 1 when a --fail-on threshold is crossed."""
    from warpscope.analysis import analyze
    from warpscope.analysis.views import launch_views
    from warpscope.report.budget import COMMENT_BUDGET
    from warpscope.report.diff import Threshold, diff
    from warpscope.report.diff_report import render_json, render_markdown
    from warpscope.report.escape import visible

    try:
        thresholds = [Threshold.parse(t) for t in fail_on or ()]
    except ValueError as e:
        _fail(visible(str(e)))
    sides, values = [], []
    for path in (base, new):
        profile = _load([path], via_ncu)
        views = launch_views(profile)
        sides.append(analyze(profile, views))
        values.append({v.launch_id: dict(v.metrics) for v in views})
    result = diff(sides[0], sides[1], thresholds, (values[0], values[1]))
    budget = None if full or output is not None else COMMENT_BUDGET
    _write(render_json(result) if fmt is ReportFormat.json else render_markdown(result, budget), output)
    for c in result.crossings:
        sys.stderr.write(
            visible(
                f"warpscope: {c['kernel']} (launch {c['base_launch']} -> {c['new_launch']}) "
                f"crossed {c['threshold']}"
            )
            + "\n"
        )
    if result.regression:
        raise typer.Exit(1)


@app.command()
def trend(
    dataset: Annotated[
        Path, typer.Argument(help="A dataset made with `warpscope import ... --into DATASET`.")
    ],
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Canonical metric to follow (repeatable; default duration_ns)."),
    ] = None,
    kernel: Annotated[
        str | None, typer.Option("--kernel", "-k", help="Only kernels whose name contains this.")
    ] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="A label key (e.g. commit): runs sharing its value are one point."),
    ] = None,
    last: Annotated[int | None, typer.Option("--last", help="Only the newest N points.")] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="From this run id (or KEY=VALUE label) on.")
    ] = None,
    min_change: Annotated[
        float, typer.Option("--min-change", help="Smallest change point reported, % of the metric.")
    ] = 3.0,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when a change point crosses it: METRIC OP [+-]NUMBER[%], e.g. 'duration_ns>+5%'.",
        ),
    ] = None,
    fmt: Annotated[
        ReportFormat, typer.Option("--format", "-f", help="md (default) or json.")
    ] = ReportFormat.md,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Kernels over the runs of a dataset: change points, the counters that moved; exit 1 past --fail-on."""
    from warpscope.report.diff import Threshold
    from warpscope.report.escape import visible
    from warpscope.report.trend import dataset_path
    from warpscope.report.trend import trend as follow
    from warpscope.report.trend_report import render_json, render_markdown

    try:
        root = dataset_path(dataset)
        thresholds = [Threshold.parse(t) for t in fail_on or ()]
        metrics = list(metric or ["duration_ns"])
        for t in thresholds:
            if t.metric not in metrics:
                metrics.append(t.metric)
        result = follow(
            root,
            metrics,
            kernel=kernel,
            by=by,
            last=last,
            since=since,
            min_change_pct=min_change,
            thresholds=thresholds,
        )
    except ValueError as e:
        _fail(visible(str(e)))
    _write(render_json(result) if fmt is ReportFormat.json else render_markdown(result), output)
    for c in result.crossings:
        sys.stderr.write(
            visible(
                f"warpscope: {c['kernel']} {c['metric']} changed {c['change_pct']:+.1f}% at {c['at']}, "
                f"crossing {c['threshold']}"
            )
            + "\n"
        )
    if result.regression:
        raise typer.Exit(1)


class QueryFormat(str, Enum):
    md = "md"
    csv = "csv"
    json = "json"


@app.command()
def query(
    source: Annotated[
        Path, typer.Argument(help="A dataset, a saved profile (folder or file), or an export.")
    ],
    sql: Annotated[
        str, typer.Argument(help="SQL (DuckDB) over the tables: runs, launches, metrics, findings, ...")
    ],
    fmt: Annotated[
        QueryFormat, typer.Option("--format", "-f", help="md (a markdown table, default), csv or json.")
    ] = QueryFormat.md,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Run SQL over profiles with DuckDB: every table is a view, every row has its run_id."""
    import duckdb

    from warpscope.model import store
    from warpscope.report import sql as sql_views
    from warpscope.report.escape import visible

    if store.is_dataset(source):
        con = sql_views.connect_dataset(source, sql)
    elif store.is_profile_folder(source):
        con = sql_views.connect_folder(source, sql)
    else:
        con = sql_views.connect_profile(_load([source]), sql)
    try:
        frame = sql_views.run(con, sql)
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        _fail(visible(f"query: {first}"))
    if fmt is QueryFormat.csv:
        text = frame.write_csv()
    elif fmt is QueryFormat.json:
        text = sql_views.as_json(frame)
    else:
        text = sql_views.as_markdown(frame)
    _write(text, output)


def _write_with(write: Callable[[TextIO], None], output: Path | None) -> None:
    """``write(out)`` to stdout, or to ``output`` atomically (UTF-8, ``\\n`` line ends)."""
    if output is None:
        write(sys.stdout)
        return
    from warpscope.files import atomic_path

    with atomic_path(output) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as out:
        write(out)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        from warpscope.files import write_text_atomic

        write_text_atomic(output, text)


@app.command()
def metrics(
    fmt: Annotated[
        MetricsFormat, typer.Option("--format", "-f", help="text (default) or json.")
    ] = MetricsFormat.text,
) -> None:
    """The canonical metric catalog: id, unit, definition, formula, ncu and nvprof names."""
    from warpscope.model.catalog import CATALOG

    if fmt is MetricsFormat.json:
        rows = [
            {
                "id": m.id,
                "unit": m.unit,
                "definition": m.definition,
                "formula": m.formula,
                "ncu": [a.name for a in m.ncu],
                "ncu_labels": [{"section": a.section, "label": a.name} for a in m.labels],
                "nvprof": [a.name for a in m.nvprof],
                "derived_from": list(m.derived_from),
            }
            for m in CATALOG
        ]
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


class Sweep(str, Enum):
    block_size = "block-size"
    registers = "registers"
    shared_mem = "shared-mem"
    all = "all"


@app.command()
def occupancy(
    arch: Annotated[str | None, typer.Option("--arch", "-a", help="sm_50 ... sm_121 (or 9.0, 90).")] = None,
    block_size: Annotated[int | None, typer.Option("--block-size", "-b", help="Threads per block.")] = None,
    registers: Annotated[int | None, typer.Option("--registers", "-r", help="Registers per thread.")] = None,
    static_smem: Annotated[
        int, typer.Option("--static-smem", help="Static shared memory per block (B).")
    ] = 0,
    dynamic_smem: Annotated[
        int, typer.Option("--dynamic-smem", help="Dynamic shared memory per block (B).")
    ] = 0,
    carveout: Annotated[
        int | None,
        typer.Option("--carveout", help="Preferred shared-memory carveout, % of L1 (default: the driver's)."),
    ] = None,
    barriers: Annotated[int, typer.Option("--barriers", help="Named barriers per block (sm_90+).")] = 1,
    sweeps: Annotated[
        list[Sweep] | None,
        typer.Option("--sweep", help="Also show occupancy over block-size, registers, shared-mem or all."),
    ] = None,
    batch: Annotated[
        Path | None,
        typer.Option(
            "--batch",
            help="CSV with arch,block_size,registers_per_thread[,static_smem,dynamic_smem,"
            "carveout,barriers]: one result per row.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON (one object per line with --batch).")] = False,
) -> None:
    """Theoretical occupancy as CUDA computes it: block limits, the limiter, what would help."""
    from warpscope.occupancy.arch import UnknownArch
    from warpscope.report.escape import visible

    if batch is not None:
        _occupancy_batch(batch, as_json)
        return
    if arch is None or block_size is None or registers is None:
        _fail("occupancy needs --arch, --block-size and --registers (or --batch FILE)")
    from warpscope.occupancy.calculator import OccupancyError, evaluate
    from warpscope.occupancy.render import SWEEPS, explain

    try:
        occ = evaluate(arch, block_size, registers, static_smem, dynamic_smem, carveout, barriers)
    except (OccupancyError, UnknownArch) as e:
        _fail(visible(str(e)))
    chosen = (
        SWEEPS if sweeps and Sweep.all in sweeps else tuple(s.value.replace("-", "_") for s in sweeps or ())
    )
    if as_json:
        from warpscope.occupancy.advice import what_would_help
        from warpscope.occupancy.sweeps import sweep

        out = occ.to_dict()
        out["what_would_help"] = [c.to_dict() for c in what_would_help(occ)]
        if chosen:
            out["sweeps"] = {s: sweep(occ, s).to_dicts() for s in chosen}
        sys.stdout.write(json.dumps(out) + "\n")
    else:
        sys.stdout.write(explain(occ, chosen))
    if occ.error:
        raise typer.Exit(1)


def _occupancy_batch(path: Path, as_json: bool) -> None:
    from warpscope.occupancy.batch import json_lines, read_configs, records
    from warpscope.report.escape import visible

    try:
        frame = read_configs(path)
    except InputError as e:
        _fail(visible(str(e)))
    if as_json:
        sys.stdout.writelines(line + "\n" for line in json_lines(frame))
        return
    cols = (
        "line",
        "arch",
        "block_size",
        "registers_per_thread",
        "active_blocks_per_sm",
        "active_warps_per_sm",
        "occupancy_pct",
        "limiter",
        "error",
    )
    sys.stdout.write(",".join(cols) + "\n")
    for rec in records(frame):
        sys.stdout.write(",".join(_csv_cell(rec.get(c)) for c in cols) + "\n")


def _csv_cell(value: object) -> str:
    from warpscope.report.escape import visible

    text = "" if value is None else visible(str(value))
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(ch in text for ch in ',"') else text


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("warpscope: interrupted\n")
        sys.exit(130)
    except SystemExit as e:
        if e.code == 130:  # typer turns Ctrl-C inside a command into a silent exit 130
            sys.stderr.write("\nwarpscope: interrupted\n")
        raise
