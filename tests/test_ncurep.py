"""Nsight Compute reports (.ncu-rep) against Nsight Compute's own export of the same report.

Every report in sample_traces/h100/ncurep was made on the H100 with ncu 2025.3.1
(tools/gpu/make_ncurep_samples.sh) and exported there with the same ncu: the raw page in
base units and the details page. The reader must give the same launches, every metric of the
raw page with the same value (the page prints two decimals, the report keeps the stored
precision; ncu's speedups print four significant digits) and the same rule results.
"""

from __future__ import annotations

import gzip
import io
import re
import struct
import sys
from pathlib import Path

import polars as pl
import pytest
from conftest import H100, run_cli

from warpscope.errors import InputError
from warpscope.importers import import_file, import_files
from warpscope.importers.ncurep import framing
from warpscope.model import schema

REPORTS = H100 / "ncurep"
NAMES = ["seed_full", "cnn_first12", "several_sections", "two_processes"]
#: every launch column but those a report states differently by design: where it came from,
#: names (compared below), durations (the page rounds them)
LAUNCH_COLUMNS = [
    c
    for c in schema.LAUNCHES
    if c
    not in {
        "launch_id",
        "source_file",
        "source_format",
        "kernel",
        "kernel_short",
        "kernel_mangled",
        "duration_ns",
    }
]
#: namespace qualifiers: ncu's CSV pages drop some levels of them (at::native::X prints as
#: at::X), the report keeps the full name; names must agree once they are taken off
_QUALIFIER = re.compile(r"(?:[A-Za-z_]\w*|<unnamed>)::")


@pytest.fixture(scope="module", params=NAMES)
def trio(request):
    name = request.param
    return (
        name,
        import_file(REPORTS / f"{name}.ncu-rep.gz"),
        import_file(REPORTS / f"{name}_raw_base.csv.gz"),
        import_file(REPORTS / f"{name}_details.csv.gz"),
    )


def test_same_launches(trio):
    name, rep, raw, _ = trio
    assert rep.sources["format"][0] == "ncu-rep"
    assert rep.launches.height == raw.launches.height > 0
    assert rep.launches.select(LAUNCH_COLUMNS).equals(raw.launches.select(LAUNCH_COLUMNS)), name
    assert (rep.launches["duration_ns"] - raw.launches["duration_ns"]).abs().max() <= 0.5
    ours, theirs = rep.launches["kernel"].to_list(), raw.launches["kernel"].to_list()
    assert [_QUALIFIER.sub("", k) for k in ours] == [_QUALIFIER.sub("", k) for k in theirs]
    unqualified = [(a, b) for a, b in zip(ours, theirs, strict=True) if "::" not in b]
    assert unqualified and all(a == b for a, b in unqualified)  # e.g. transposeShared<0>, not <(int)0>
    assert rep.launches["kernel_mangled"].str.starts_with("_Z").sum() >= len(unqualified) - 2


def _number(text: pl.Expr) -> pl.Expr:
    return text.str.replace_all(",", "").cast(pl.Float64, strict=False)


def test_every_metric_of_the_raw_page(trio):
    """Every cell of the raw page, mapped or kept wide, has the report's value."""
    name, rep, raw, _ = trio
    ours = rep.metrics.select("launch_id", pl.col("name").cast(pl.String), "metric", "value", "unit")
    theirs = raw.metrics.select(
        "launch_id", pl.col("name").cast(pl.String), "metric", "value", "unit", "text"
    )
    joined = theirs.join(ours, on=["launch_id", "name"], how="left", suffix="_rep")
    assert joined.height == theirs.height == ours.height, name
    assert joined["metric"].cast(pl.String).equals(joined["metric_rep"].cast(pl.String))
    # the page prints two decimals; a canonical metric may be the printed number scaled
    printed = _number(pl.col("text"))
    scale = (pl.col("value") / printed).fill_nan(1.0).fill_null(1.0).abs()
    close = (pl.col("value") - pl.col("value_rep")).abs() <= 0.00501 * pl.max_horizontal(
        scale, 1.0
    ) + 1e-6 * pl.col("value").abs()
    both_null = pl.col("value").is_null() & pl.col("value_rep").is_null()
    # rows named by a formula (spaces; ncu's names have none) are warpscope's own, computed
    # from the page's rounded cells or the report's stored values: not cells of the page
    cell = ~pl.col("name").str.contains(" ")
    assert joined.filter(cell).height > 0.8 * joined.height
    bad = joined.filter(cell & ~(close.fill_null(False) | both_null))
    assert bad.is_empty(), bad.head(5)

    wide_rep, wide_raw = rep.raw_cells().collect(), raw.raw_cells().collect()
    assert sorted(wide_rep.columns) == sorted(wide_raw.columns)
    long = lambda w: w.unpivot(index="launch_id", variable_name="name", value_name="text")  # noqa: E731
    cells = long(wide_raw).join(long(wide_rep), on=["launch_id", "name"], suffix="_rep")
    assert cells.height == wide_raw.height * (wide_raw.width - 1)
    a, b = _number(pl.col("text")), _number(pl.col("text_rep"))
    same = pl.when(a.is_not_null() & b.is_not_null()).then(
        ((a - b).abs() <= 0.00501 + 1e-6 * a.abs()) | (a.is_nan() & b.is_nan())
    )
    same = same.otherwise(pl.col("text").fill_null("") == pl.col("text_rep").fill_null(""))
    bad = cells.filter(~same)
    assert bad.is_empty(), bad.head(5)


def test_units_as_ncu_prints_them(trio):
    _, rep, raw, _ = trio
    units = lambda p: dict(zip(p.raw_units["name"], p.raw_units["unit"], strict=True))  # noqa: E731
    ours, theirs = units(rep), units(raw)
    assert ours.keys() == theirs.keys()
    differ = {n for n in theirs if ours[n] != theirs[n]}
    # printed as "byte" in one export and "sector" in another: the reader cannot know which
    assert differ <= {"derived__memory_l2_theoretical_sectors_global_excessive"}, differ


def test_same_rule_results(trio):
    name, rep, _, details = trio
    cols = ["launch_id", "rule_id", "severity", "section", "message", "category", "speedup_type"]
    key = ["launch_id", "rule_id", "message"]
    ours = rep.findings.filter(pl.col("origin") == "ncu").sort(key)
    theirs = details.findings.filter(pl.col("origin") == "ncu").sort(key)
    assert ours.height == theirs.height > 0, name
    assert ours.select(cols).equals(theirs.select(cols))
    assert not ours["message"].str.contains("@section:|@url:").any()  # markup rendered as the page does
    a, b = ours["estimated_speedup_pct"], theirs["estimated_speedup_pct"]
    assert a.is_null().equals(b.is_null())
    assert ((a - b).abs() <= 5e-4 * b.abs() + 1e-3).fill_null(True).all()  # ncu prints 4 digits


def test_several_processes_and_repeated_launches():
    two = import_file(REPORTS / "two_processes.ncu-rep.gz")
    assert two.launches["process_id"].unique().len() == 2
    assert two.launches.group_by("kernel").len()["len"].to_list() == [2, 2, 2]
    cnn = import_file(REPORTS / "cnn_first12.ncu-rep.gz")
    assert cnn.launches.group_by("kernel").len()["len"].max() > 1  # the same kernel launched again
    assert cnn.launches.filter(pl.col("kernel").str.starts_with("sm80_xmma")).height == 2  # extern "C" names


def test_skipped_data_is_said():
    profile = import_file(REPORTS / "seed_full.ncu-rep.gz")
    (notes,) = profile.sources["notes"].to_list()
    assert any("per-instance values" in n for n in notes)


def _report_bytes(name: str = "two_processes") -> bytes:
    return gzip.decompress((REPORTS / f"{name}.ncu-rep.gz").read_bytes())


def _block_starts(data: bytes) -> list[int]:
    """Byte offsets of the block headers (after the file header)."""
    pos = 4
    (size,) = struct.unpack_from("<I", data, pos)
    pos += 4 + size
    starts = []
    from warpscope.importers.ncurep import messages

    while pos < len(data):
        starts.append(pos)
        (size,) = struct.unpack_from("<I", data, pos)
        header = messages.BlockHeader.FromString(data[pos + 4 : pos + 4 + size])
        pos += 4 + size + header.PayloadSize
    return starts


def test_truncated_and_damaged_reports_are_one_line(tmp_path):
    data = _report_bytes()
    starts = _block_starts(data)
    cuts = {
        "inside the file header": 6,
        "inside a block header": starts[2] + 7,
        "inside a launch": starts[2] + 400,
        "before any launch": starts[2],
    }
    for what, at in cuts.items():
        path = tmp_path / "cut.ncu-rep"
        path.write_bytes(data[:at])
        with pytest.raises(InputError) as e:
            import_file(path)
        text = str(e.value)
        assert "\n" not in text and "please report" not in text, what
        assert "Nsight Compute report" in text, (what, text)
    # a length prefix overwritten: the block runs past the end of the file
    broken = bytearray(data)
    broken[starts[3] : starts[3] + 4] = struct.pack("<I", 0x7FFFFFF0)
    path = tmp_path / "broken.ncu-rep"
    path.write_bytes(bytes(broken))
    with pytest.raises(InputError, match=r"damaged Nsight Compute report \(at byte [\d,]+: "):
        import_file(path)


def test_newer_format_version_is_read_and_said(tmp_path):
    data = bytearray(_report_bytes())
    assert data[8:10] == b"\x08\x07"  # FileHeader{Version: 7}
    data[9] = 9
    path = tmp_path / "newer.ncu-rep"
    path.write_bytes(bytes(data))
    profile = import_file(path)
    assert profile.launches.height == 6
    assert any("version 9 is newer" in n for n in profile.sources["notes"][0])


def test_cli_reads_reports_with_no_nvidia_software(tmp_path, monkeypatch):
    """report, import and diff of a report, with nothing but Python on the PATH."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    rep = REPORTS / "two_processes.ncu-rep.gz"
    run = lambda *a: run_cli(*a, cwd=tmp_path)  # noqa: E731
    report = run("report", str(rep), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert '"ncu-rep"' in report.stdout
    saved = tmp_path / "two.parquet"
    assert run("import", str(rep), "-o", str(saved)).returncode == 0
    diff = run("diff", str(rep), str(REPORTS / "two_processes_raw_base.csv.gz"))
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert "6 launches matched" in diff.stdout and "0 only in base, 0 only in new" in diff.stdout


def test_damaged_report_on_the_command_line(tmp_path):
    path = tmp_path / "cut.ncu-rep"
    path.write_bytes(_report_bytes()[:5000])
    result = run_cli("report", str(path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "damaged Nsight Compute report" in result.stderr


def test_framing_reads_every_block():
    version, blocks = framing.read_blocks(io.BytesIO(_report_bytes()))
    assert version == 7
    launches = sources = 0
    for block in blocks:
        launches += sum(1 for _ in block.results)
        sources += len(block.sources)
    assert launches == 6
    assert sources >= 2  # the cubin of each process


def test_per_instruction_counters_are_the_source_page():
    """The report's per-PC counters equal ncu's source page (SASS view) of the same report,
    address by address, for every numeric column: each non-zero cell of the page is there
    with its value, and each cell the reader has is on the page (it keeps non-zero cells)."""
    rep = import_file(REPORTS / "seed_full.ncu-rep.gz")
    page = import_file(REPORTS / "seed_full_source_sass.csv.gz")
    key = ["address", "counter"]
    instructions = rep.source.filter(pl.col("address").is_not_null())  # the CUDA lines' rows aside
    ours = instructions.select(*key, "value", "row", "launch_id").with_columns(
        pl.col("counter").cast(pl.String)
    )
    theirs = page.source.select(*key, "value").with_columns(pl.col("counter").cast(pl.String))
    assert rep.source["launch_id"].n_unique() == rep.launches.height == 22
    assert ours.select(key).is_duplicated().sum() == 0 and (ours["value"] != 0).all()
    words = {"Address Space", "Access Operation", "Access Size", "L2 Explicit Evict Policies"}
    numeric = theirs.filter(~pl.col("counter").is_in(words))
    nonzero = numeric.filter(pl.col("value") != 0)
    joined = nonzero.join(ours, on=key, how="left", suffix="_rep")
    assert joined.height > 15_000
    assert joined["value_rep"].null_count() == 0, joined.filter(pl.col("value_rep").is_null()).head()
    assert ((joined["value"] - joined["value_rep"]).abs() <= 0.00501 + 1e-6 * joined["value"].abs()).all()
    assert ours.join(numeric, on=key, how="anti").is_empty()
    # rows number the instructions in program order, as the page lists them
    for (_,), launch in ours.unique(["launch_id", "address"]).group_by("launch_id"):
        order = launch.sort("row")["address"].to_list()
        assert order == sorted(order, key=lambda a: int(a, 16))


def _fake_ncu(folder: Path) -> None:
    """An ``ncu`` that prints the pages ncu 2025.3 exported from two_processes.ncu-rep (the
    stand-in checks the command line warpscope gives it)."""
    raw, details = REPORTS / "two_processes_raw_base.csv.gz", REPORTS / "two_processes_details.csv.gz"
    script = f"""#!{sys.executable}
import gzip, sys
args = sys.argv[1:]
assert args[0] == "--import" and args[1].endswith(".ncu-rep") and "--csv" in args, args
with open(args[1], "rb") as f:
    assert f.read(4) == b"NVR\\0", "not a plain report"
page = args[args.index("--page") + 1]
if page == "raw":
    assert args[args.index("--print-units") + 1] == "base", args
sys.stdout.buffer.write(gzip.decompress(open({str(raw)!r} if page == "raw" else {str(details)!r}, "rb").read()))
"""
    (folder / "ncu").write_text(script)
    (folder / "ncu").chmod(0o755)


def _without_ncu_report(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``import ncu_report`` fails (run_cli runs warpscope in this process), as where the
    package is not installed."""
    monkeypatch.setitem(sys.modules, "ncu_report", None)


def test_via_ncu_reads_the_report_through_ncus_export(tmp_path, monkeypatch):
    """Without ncu-report, --via-ncu has ncu export the pages; with neither, one line, exit 2."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_ncu(bin_dir)
    _without_ncu_report(monkeypatch)

    def run(path: str, *args: str):  # type: ignore[no-untyped-def]
        monkeypatch.setenv("PATH", path)
        return run_cli(*args, cwd=tmp_path)

    rep = str(REPORTS / "two_processes.ncu-rep.gz")
    python_only = str(Path(sys.executable).parent)
    done = run(f"{bin_dir}:{python_only}", "report", rep, "--via-ncu", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert '"ncu-rep via ncu"' in done.stdout and '"LaunchConfiguration"' in done.stdout
    import json

    launches = json.loads(done.stdout)["launches"]
    assert len(launches) == 6  # raw and details pages merged: one launch each
    missing = run(python_only, "report", rep, "--via-ncu")
    assert missing.returncode == 2
    assert (
        "--via-ncu needs NVIDIA's ncu-report" in missing.stderr
        and "or Nsight Compute's ncu" in missing.stderr
    )
    assert missing.stderr.count("\n") == 1


def test_via_ncu_uses_ncu_report_where_installed(tmp_path, monkeypatch):
    """With ncu-report installed, --via-ncu needs no ncu: NVIDIA's reader gives the same launches
    and rule results as warpscope's own (speedups and their local/global type), and each rule's
    tables after its message (ncu's details page leaves them out)."""
    import json

    python_only = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", python_only)  # no ncu
    rep = REPORTS / "seed_full.ncu-rep.gz"
    done = run_cli("report", str(rep), "--via-ncu", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"ncu-rep via ncu-report"' in done.stdout
    assert len(json.loads(done.stdout)["launches"]) == 22
    theirs = import_files([rep], via_ncu=True)
    ours = import_file(rep)
    assert theirs.launches["kernel"].to_list() == ours.launches["kernel"].to_list()
    assert theirs.launches["duration_ns"].to_list() == ours.launches["duration_ns"].to_list()
    key = ["launch_id", "rule_id", "speedup_type"]
    rules = [
        p.findings.filter(pl.col("origin") == "ncu")
        .select(*key, pl.col("estimated_speedup_pct").round(6))
        .sort(key)
        for p in (theirs, ours)
    ]
    assert rules[0].height == 255 and rules[0].equals(rules[1])
    assert set(rules[0]["speedup_type"].drop_nulls()) == {"local", "global"}
    # the FP32 rule's table: the line, its text as in the source file, the opcode, the count
    fp32 = theirs.findings.filter(
        pl.col("rule_id") == "FPInstructions", pl.col("message").str.contains("line 30")
    )
    assert fp32.height >= 1
    message = fp32["message"][0]
    source_line = (H100 / "seedkernels.cu").read_text().splitlines()[29].strip()
    assert "Most frequently executed non-fused FP32 instructions:" in message
    assert f"seedkernels.cu, line 30 | {source_line} | FADD | 32768" in message
    assert "@source:" not in message


def test_a_newer_report_says_via_ncu_where_ncu_is_installed(tmp_path, monkeypatch):
    data = bytearray(_report_bytes())
    data[9] = 9  # FileHeader{Version: 9}
    path = tmp_path / "newer.ncu-rep"
    path.write_bytes(bytes(data))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_ncu(bin_dir)
    monkeypatch.setenv("PATH", str(bin_dir))
    notes = import_file(path).sources["notes"][0].to_list()
    assert any("--via-ncu" in n for n in notes), notes


def test_bulk_decode_of_instance_lists_equals_the_runtimes():
    """instances.py's NumPy decode gives what the protobuf runtime gives, list by list, on
    every per-instance list of every sample report (ids and values exactly)."""
    import numpy as np

    from warpscope.importers import _input
    from warpscope.importers.ncurep import instances

    checked = fast = 0
    for name in NAMES:
        with _input.open_binary(REPORTS / f"{name}.ncu-rep.gz") as stream:
            _, blocks = framing.read_blocks(stream)
            for block in blocks:
                for result in block.results:
                    for metric in result.MetricResults:
                        items = list(metric.MetricValueList)
                        if not items:
                            continue
                        slow = instances.decode_slowly(items)
                        quick = instances._decode_fast(items)
                        checked += 1
                        if quick is None:
                            continue
                        fast += 1
                        assert slow is not None
                        assert np.array_equal(quick[0], slow[0]) and np.array_equal(quick[1], slow[1])
    assert checked > 5_000 and fast > 0.8 * checked


def test_each_instruction_has_its_cuda_line():
    """With -lineinfo, each SASS address carries the CUDA file and line that ncu's CUDA+SASS
    source page puts it under."""
    rep = import_file(REPORTS / "seed_full.ncu-rep.gz")
    page = import_file(REPORTS / "seed_full_source_cuda_sass.csv.gz")
    # on the page, a SASS row follows the line row it belongs to
    listed = (
        page.source.select("launch_id", "row", "line", "address", "file")
        .unique(["launch_id", "row"])
        .sort("launch_id", "row")
        .with_columns(pl.col("line").forward_fill().over("launch_id"))
        .filter(pl.col("address").is_not_null())
        .unique("address")
    )
    ours = rep.source.select("address", "line", "file").unique("address")
    joined = listed.join(ours, on="address", suffix="_rep")
    assert joined.height > 300
    assert (joined["line"] == joined["line_rep"]).all(), joined.filter(
        pl.col("line") != pl.col("line_rep")
    ).head()
    assert (joined["file"] == joined["file_rep"]).all()
    assert (
        joined["file_rep"].str.ends_with("seedkernels.cu").sum() > 0.9 * joined.height
    )  # some in CUDA's headers


def test_kernels_with_and_without_a_line_table_in_one_report(tmp_path):
    """A launch whose cubin is not (yet) known has no CUDA lines, beside launches that have
    them (found by the fuzzer: the first launch's block moved before the cubin's)."""
    data = gzip.decompress((REPORTS / "seed_full.ncu-rep.gz").read_bytes())
    starts = _block_starts(data)
    ends = [*starts[1:], len(data)]
    blocks = [data[a:b] for a, b in zip(starts, ends, strict=True)]
    cubin_block = next(i for i, b in enumerate(blocks) if b"\x7fELF" in b)
    first_launch = cubin_block + 1
    blocks[cubin_block], blocks[first_launch] = blocks[first_launch], blocks[cubin_block]
    path = tmp_path / "swapped.ncu-rep"
    path.write_bytes(data[: starts[0]] + b"".join(blocks))
    profile = import_file(path)
    lines = profile.source.group_by("launch_id").agg(pl.col("line").is_not_null().any()).sort("launch_id")
    assert lines["line"].to_list() == [False] + [True] * 21


def test_cuda_lines_with_their_text_and_counters_as_ncus_source_page():
    """With --import-source yes, the report embeds the CUDA files: each CUDA line is a row
    with the file's text and, per counter, the value ncu's own CUDA+SASS source page prints
    for the line (the same report, exported by ncu --page source --print-source cuda,sass)."""
    rep = import_file(REPORTS / "seed_full.ncu-rep.gz")
    page = import_file(REPORTS / "seed_full_source_cuda_sass.csv.gz")
    # the page has a block per function and file; the report a launch per function
    kernels = page.launches.sort("launch_id")["kernel"].to_list()
    launch_of = {0: 0}
    for i in range(1, len(kernels)):
        launch_of[i] = launch_of[i - 1] + (kernels[i] != kernels[i - 1])
    assert launch_of[len(kernels) - 1] == rep.launches.height - 1
    listed = (
        page.source.with_columns(
            pl.col("launch_id").replace_strict(launch_of), pl.col("counter").cast(pl.String)
        )
        .sort("launch_id", "file", "row")
        .with_columns(pl.col("line").forward_fill().over("launch_id", "file").alias("under"))
    )
    key = ["launch_id", "file", "line", "counter"]
    ours_lines = rep.source.filter(pl.col("address").is_null())
    ours = ours_lines.with_columns(pl.col("counter").cast(pl.String))
    # Two kinds of page line are left out, each found from the page itself. (1) A call of a
    # function inlined from another file: ncu's view of the calling file lists the inlined
    # instructions under the call as well; warpscope lists them under their own file's line
    # only (docs/ncu-rep.md). (2) A line whose text has a double quote: ncu prints it in the
    # CSV unescaped, so the line's cells shift and the page's row cannot be read.
    mine = rep.source.select("launch_id", "address", pl.col("file").alias("file_rep")).unique()
    calls = (
        listed.filter(pl.col("address").str.starts_with("0x"))
        .join(mine, on=["launch_id", "address"])
        .filter(pl.col("file") != pl.col("file_rep"))
        .select("launch_id", "file", pl.col("under").alias("line"))
        .unique()
    )
    unreadable = (
        listed.filter(
            pl.col("address").is_not_null(),
            ~pl.col("address").str.starts_with("0x"),
            pl.col("address") != "...",
        )
        .select("launch_id", "file", "line")
        .unique()
    )
    assert calls.height == 1 and unreadable.height == 1  # reduceShuffle's __shfl_down_sync; its first line
    left_out = pl.concat([calls, unreadable])
    theirs = (
        listed.filter(
            pl.col("address").is_null(), pl.col("line").is_not_null(), pl.col("value").is_not_null()
        )
        .unique(key)
        .join(left_out, on=["launch_id", "file", "line"], how="anti")
    )
    shared = set(ours["counter"].unique()) & set(theirs["counter"].unique())
    assert len(shared) >= 30
    joined = theirs.filter(pl.col("counter").is_in(shared)).join(
        ours.select(*key, "value", "code"), on=key, how="left", suffix="_rep"
    )
    assert joined.height > 3_000
    # a report keeps non-zero cells only: an absent line cell is a zero
    values = joined.with_columns(pl.col("value_rep").fill_null(0.0))
    wrong = values.filter((pl.col("value") - pl.col("value_rep")).abs() > 0.01 + 1e-4 * pl.col("value").abs())
    assert wrong.is_empty(), wrong.head()
    # and no line of ours that the page does not have (with a non-zero counter)
    extra = (
        ours.filter(pl.col("counter").is_in(shared))
        .join(left_out, on=["launch_id", "file", "line"], how="anti")
        .join(theirs, on=key, how="anti")
    )
    assert extra.is_empty(), extra.head()
    # the line's text is the file's, as the page prints it (the page strips the indentation)
    # (a line with a double quote, which ncu's CSV prints unescaped, aside)
    texts = joined.filter(pl.col("code_rep").is_not_null()).unique(["launch_id", "file", "line"])
    quoted = texts.filter(pl.col("code_rep").str.contains('"', literal=True))
    texts = texts.filter(~pl.col("code_rep").str.contains('"', literal=True))
    assert texts.height > 100 and quoted.height == 1
    assert (texts["code_rep"].str.strip_chars() == texts["code"].str.strip_chars()).all()
    assert ours_lines["code"].is_not_null().all()


def test_sass_text_from_ncu_report_as_ncus_source_page():
    """Each instruction's SASS text is what ncu's source page prints at its address (asked of
    NVIDIA's ncu-report, which the test extras install)."""
    rep = import_file(REPORTS / "seed_full.ncu-rep.gz")
    page = import_file(REPORTS / "seed_full_source_cuda_sass.csv.gz")
    theirs = page.source.filter(pl.col("address").is_not_null(), pl.col("code") != "...").unique("address")
    ours = rep.source.filter(pl.col("address").is_not_null()).unique("address")
    joined = theirs.select("address", "code").join(
        ours.select("address", "code"), on="address", suffix="_rep"
    )
    assert joined.height > 300 and joined.height == ours.height
    assert (joined["code"].str.strip_chars() == joined["code_rep"]).all(), joined.filter(
        pl.col("code").str.strip_chars() != pl.col("code_rep")
    ).head()
    assert not any("ncu-report" in n for n in rep.sources["notes"][0])


def test_without_ncu_report_instructions_have_addresses_and_the_notes_say_why(monkeypatch):
    """Without NVIDIA's ncu-report (the disassembler is NVIDIA's), the CUDA lines keep their
    text and counters, the instructions have their address and counters but no text, and the
    import notes say what to install."""
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # import ncu_report: ImportError
    rep = import_file(REPORTS / "seed_full.ncu-rep.gz")
    instructions = rep.source.filter(pl.col("address").is_not_null())
    lines = rep.source.filter(pl.col("address").is_null())
    assert instructions.height > 10_000 and instructions["code"].is_null().all()
    assert lines.height > 1_000 and lines["code"].is_not_null().all()
    assert any("ncu-report" in n and "address only" in n for n in rep.sources["notes"][0])
