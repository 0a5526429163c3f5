"""Untrusted input: every mutated sample is a Profile or a one-line error, nothing is lost.

The long run is ``python tools/fuzz_inputs.py`` (10,000 inputs per format, figures in
docs/robustness.md); here: every input that once broke something (regressions, replayed
from the sample and seed that found it), a hypothesis-driven sample of fresh mutations,
the row accounting of every real sample, and truncation that never half-imports a launch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warpscope
from tests.conftest import CNN_STEP, H100, ROOT, UNSHIPPED, needs_shared, public_samples
from warpscope.errors import InputError

sys.path.insert(0, str(ROOT / "tools"))
import fuzz_inputs

#: (sample, fuzz seed) that raised, hung or printed a multi-line error before it was fixed
REGRESSIONS = [
    # the direct read of 2026-11-23: a raw page's text kept whole, a details page's first lines
    ("several_sections_raw_base.csv.gz", 12000411),  # 3M-column header parsed before the check: 25 s
    ("seed_raw_auto.csv", 11000811),  # a huge unquoted field: Polars refused the unmapped columns
    ("two_processes_raw_base.csv.gz", 11000665),  # a quote in the header: names differ on re-read
    ("seed_details_all.csv.gz", 11000429),  # no Kernel Name column: KeyError on the first lines
    ("trainloop_loop_details.csv.gz", 11000146),  # a malformed first line: Polars error escaped
    ("several_sections_details.csv.gz", 13000059),  # absurd times: an infinite saving in the JSON
    ("seed_full_raw_base.csv.gz", 14000216),  # a quote in the header: 54 s in Polars' error
    ("seed_details_all.txt.gz", 14000559),  # no key column at all: the packed key unnamed
    ("ieee2017_p100_gputrace_text_noncsv.txt", 1001842),  # 1e308 grid dimension: Int64 overflow
    ("ieee2017_p100_gputrace_text_noncsv.txt", 1002002),
    ("nvprofresult_titanxp_print-gpu-summary.csv", 1002155),  # diff JSON: infinite delta
    ("thrust2d_gtx1070_metrics_text_noncsv.txt", 1003533),  # 3 MB device name: seconds per regex
    ("seed_summary_per_gpu.csv", 1001307),  # lone CR inside a field: csv.Error escaped
    ("seed_raw_base.csv", 1000795),  # a field of 3M commas: 3M-column header
    ("seed_details_all.csv.gz", 1000493),  # lone CR: csv.Error while locating the bad line
    ("llmperfopt_rtx50_cublasgemv_details_2025.1.csv", 2000891),  # line lookup past a multi-line row
    ("seed_full_details.csv", 2001138),  # "Rule Description" column missing
    ("seed_raw_base.csv", 2001778),  # line lookup past a multi-line row
    ("seed_details.txt", 2000214),  # sm_count 1e23: Int64 cast failed
    ("ieee2017_k20c_jacobi_gputrace.csv", 2003789),  # 3 MB of escape sequences: seconds to escape
    ("nvprofresult_titanxp_print-gpu-summary.csv", 2006278),  # 23-digit call count: i128
    ("nvprofresult_titanxp_print-gpu-summary.csv", 2006480),
    ("ieee2017_k20c_jacobi_summary_old.csv", 2005100),
    ("ieee2017_k20c_jacobi_summary_old.csv", 2005298),
    ("seed_sass_counters.parquet", 2007426),  # saved profile with a damaged column name
    ("seed_details.txt", 3000671),  # block size "-5": a division by zero in a rule
    ("seed_details.txt", 3002391),  # infinite shared-memory size: round(inf)
    ("seed_details.txt", 3003271),
    ("seed_details.txt", 3005423),
]


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[tuple[str, bytes]]]:
    return fuzz_inputs.samples()


def _sample(corpus, name: str) -> bytes | None:
    return next((data for items in corpus.values() for n, data in items if n == name), None)


def _regression(name: str, seed: int):  # type: ignore[no-untyped-def]
    """A regression's parameters; one found on an export the repository may not ship needs ../shared."""
    unshipped = not any(p.name == name for p in (ROOT / "sample_traces").rglob(name))
    return pytest.param(name, seed, id=f"{name}-{seed}", marks=[needs_shared] if unshipped else [])


@pytest.mark.parametrize("name, seed", [_regression(n, s) for n, s in REGRESSIONS])
def test_inputs_that_once_broke_import_report_and_diff(corpus, name, seed):
    base = _sample(corpus, name)
    assert base is not None, f"{name} is not among the fuzz corpus' samples"
    data, mutations = fuzz_inputs.mutate(base, seed)
    outcome = fuzz_inputs.run_one(data, base)
    assert outcome.kind in ("profile", "input_error"), (mutations, outcome.detail)


#: inputs that once crashed, kept byte for byte: they stay regressions if the mutations change
FUZZ_FIXTURES = ROOT / "tests" / "data" / "fuzz"


@pytest.mark.parametrize("path", sorted(FUZZ_FIXTURES.iterdir()), ids=lambda p: p.name)
def test_fuzz_fixture_imports_and_reports(path):
    base = (H100 / "seed_details.txt").read_bytes()
    outcome = fuzz_inputs.run_one(path.read_bytes(), base, suffix=".txt")
    assert outcome.kind == "profile", outcome.detail
    profile = warpscope.load(path)
    # the damaged launch is kept with the configuration its header line states
    assert profile.launches.select("block_x", "grid_x").row(0) == (64, 16384)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(index=st.integers(0, 10_000), seed=st.integers(0, 2**31))
def test_mutated_samples_are_a_profile_or_one_line_error(corpus, index, seed):
    formats = sorted(corpus)
    fmt = formats[index % len(formats)]
    name, base = corpus[fmt][(index // len(formats)) % len(corpus[fmt])]
    data, mutations = fuzz_inputs.mutate(base, seed)
    outcome = fuzz_inputs.run_one(data, base)
    assert outcome.kind in ("profile", "input_error"), (fmt, name, seed, mutations, outcome.detail)


def _real_samples() -> list:
    files = [
        p
        for p in sorted(H100.rglob("*"))
        if p.is_file()
        and p.suffix not in (".md", ".cu", ".txt")
        and "_session." not in p.name
        and "_timings" not in p.name
    ]
    files += [p for p in public_samples() if p.suffix != ".md" and "error_only" not in p.name]
    return files


def test_a_session_page_is_named_as_such():
    """ncu's --page session holds no launch: the error says what the file is and what to export."""
    from warpscope.errors import InputError

    pages = sorted(H100.rglob("*_session.csv.gz"))
    assert pages
    for path in pages:
        with pytest.raises(InputError, match="an Nsight Compute session page"):
            warpscope.load(path)


@pytest.mark.parametrize("path", _real_samples(), ids=lambda p: p.name)
def test_every_real_sample_accounts_for_every_row(path):
    profile = warpscope.load(path)
    for src in profile.sources.iter_rows(named=True):
        assert src["rows_in"] == src["rows_imported"] + src["rows_rejected"], src["path"]
        assert src["rows_rejected"] == profile.rejected.filter(pl.col("path") == src["path"]).height
    assert profile.launches["launch_id"].is_unique().all()
    # every metric, stall and finding row belongs to a launch the profile has
    ids = set(profile.launches["launch_id"].to_list())
    for table in (profile.metrics, profile.stalls, profile.source):
        assert set(table["launch_id"].unique().drop_nulls().to_list()) <= ids


@pytest.mark.parametrize(
    "name", ["seed_full_details.csv", "seed_details.txt", "seed_full_raw.csv", "seed_summary_per_kernel.csv"]
)
def test_truncation_at_any_line_never_half_imports_a_launch(tmp_path, name):
    full = warpscope.load(H100 / name)
    complete = dict(full.metrics.group_by("launch_id").len().iter_rows())
    lines = (H100 / name).read_bytes().splitlines(keepends=True)
    path = tmp_path / name
    for cut in range(3, len(lines), max(1, len(lines) // 60)):
        path.write_bytes(b"".join(lines[:cut]))
        try:
            part = warpscope.load(path)
        except InputError:
            continue
        src = part.sources.row(0, named=True)
        assert src["rows_in"] == src["rows_imported"] + src["rows_rejected"]
        counts = dict(part.metrics.group_by("launch_id").len().iter_rows())
        if len(counts) < 2:
            continue  # a lone launch has no other launch to say what complete is
        for launch_id, n in counts.items():
            assert n == complete[launch_id], (cut, launch_id, n, complete[launch_id])


@pytest.mark.parametrize(
    "declare, launch",
    [
        ("cuda.shared.array(100000000, np.float32)", "k[1, 32](a)"),  # 400 MB static
        ("cuda.shared.array(0, np.float32)", "k[1, 32, 0, 1 << 20](a)"),  # 1 MiB dynamic
    ],
)
def test_absurd_shared_memory_stops_with_kernel_line_block_thread(tmp_path, declare, launch):
    from tests.conftest import run_cli

    path = tmp_path / "big_shared.py"
    path.write_text(f"""import numpy as np
from warpscope.emulator import cuda

@cuda.jit
def k(a):
    s = {declare}
    s[cuda.threadIdx.x] = 1.0
    a[cuda.threadIdx.x] = s[0]

def main():
    a = np.zeros(32, dtype=np.float32)
    {launch}
""")
    out = run_cli("emulate", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert f"{path}:6: kernel k, block (0, 0, 0) thread (0, 0, 0)" in out.stderr
    assert "shared memory per block" in out.stderr and "232,448 B" in out.stderr


@pytest.mark.parametrize(
    "name",
    [
        "seed_full_details.csv",
        "seed_full_raw.csv",
        "seed_two_processes_raw.log",
        "seed_live_stdout.log.gz",
        "seed_details_all.csv.gz",
    ],
)
def test_chunked_import_gives_the_same_tables_as_a_whole_read(monkeypatch, name):
    """Large files are read in chunks cut at launch boundaries (importers/ncu/stream.py); tiny
    chunks here make every sample take that path: same launches, rows and accounting."""
    from polars.testing import assert_frame_equal

    from warpscope.importers import import_file
    from warpscope.importers.ncu import direct, stream

    whole = import_file(H100 / name)
    monkeypatch.setattr(stream, "STREAM_ABOVE", 0)
    monkeypatch.setattr(direct, "WHOLE_READ_LIMIT", 0)
    monkeypatch.setattr(stream, "CHUNK_BYTES", 30_000)
    progress: list[tuple[int, int]] = []
    chunked = import_file(H100 / name, lambda done, total: progress.append((done, total)))
    assert len(progress) > 3 and progress[-1][0] == progress[-1][1]
    for table in ("launches", "metrics", "stalls", "findings", "rejected"):
        a, b = getattr(whole, table), getattr(chunked, table)
        assert_frame_equal(a.sort(a.columns, nulls_last=True), b.sort(b.columns, nulls_last=True))
    assert whole.sources.drop("messages").rows() == chunked.sources.drop("messages").rows()


def test_a_bad_row_in_a_later_chunk_is_reported_at_its_file_line(monkeypatch, tmp_path):
    from warpscope.importers import import_file
    from warpscope.importers.ncu import direct, stream

    lines = (H100 / "seed_full_raw.csv").read_bytes().splitlines(keepends=True)
    lines[15] = b'"x","not a launch row"\n'
    path = tmp_path / "bad_row.csv"
    path.write_bytes(b"".join(lines))
    whole = import_file(path)
    monkeypatch.setattr(stream, "STREAM_ABOVE", 0)
    monkeypatch.setattr(direct, "WHOLE_READ_LIMIT", 0)
    monkeypatch.setattr(stream, "CHUNK_BYTES", 30_000)
    chunked = import_file(path)
    assert whole.rejected["line"].to_list() == chunked.rejected["line"].to_list() == [16]


def test_a_damaged_saved_profile_never_takes_the_process_down():
    """Seed 3121882 damages a length inside a saved profile's embedded Arrow table: Polars'
    reader tried to allocate ~100 TB and aborted the process (exit 134), printing a Rust panic.
    Run in a child so a regression fails this test instead of killing the suite."""
    import subprocess

    code = (
        "import sys; sys.path.insert(0, 'tools'); import fuzz_inputs as F; "
        "base = F.samples()['warpscope-profile'][0][1]; data, _ = F.mutate(base, 3121882); "
        "print(F.run_one(data, base, '.parquet').kind)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() in ("profile", "input_error")
    assert "panicked" not in out.stderr


def _real_ncu_samples() -> list[Path]:
    found = sorted((ROOT / "sample_traces").rglob("*.csv")) + sorted((ROOT / "sample_traces").rglob("*.log"))
    found = [p for p in found if "_timings" not in p.name]  # CUDA-event timings, not an export
    shipped = {p.name for p in found}
    unshipped = UNSHIPPED / "ncu"
    return found + sorted(p for p in unshipped.glob("*") if p.name not in shipped)


def test_direct_read_gives_the_same_tables_as_the_framed_read(monkeypatch):
    """Plain pages are read by Polars straight from the file (importers/ncu/direct.py); the
    framed path must give the same Profile wherever the direct one accepts a file, and the
    direct one must decline what it cannot read exactly (captures, several processes)."""
    from polars.testing import assert_frame_equal

    from warpscope.importers import import_file
    from warpscope.importers.ncu import direct

    accepted, declined = [], []
    for path in _real_ncu_samples():
        head = path.read_bytes()[: 1 << 20]
        fast = direct.import_direct(str(path)) if direct.eligible(str(path), head) else None
        (accepted if fast is not None else declined).append(path.name)
        if fast is None:
            continue
        with monkeypatch.context() as m:
            m.setattr(direct, "eligible", lambda *_: False)
            framed = import_file(path)
        fast = import_file(path)  # with the occupancy step, as users get it
        for table in ("launches", "metrics", "stalls", "findings", "rejected", "sources", "raw_units"):
            assert_frame_equal(getattr(fast, table), getattr(framed, table)), (path.name, table)
        assert_frame_equal(fast.raw_cells().collect(), framed.raw_cells().collect())
    assert {"seed_full_details.csv", "seed_full_raw.csv", "seed_raw_auto.csv", "seed_raw_base.csv"} <= set(
        accepted
    )
    assert {"seed_two_processes_raw.log", "seed_sass_counters_raw.csv"} <= set(declined)  # captures


@pytest.mark.parametrize("cut", ["mid_field", "mid_line", "no_newline"])
def test_direct_read_declines_a_cut_file(tmp_path, cut):
    from warpscope.importers.ncu import direct

    data = (H100 / "seed_full_details.csv").read_bytes()
    end = {
        "mid_field": data.rfind(b'"', 0, len(data) - 2) + 2,
        "mid_line": len(data) - 40,
        "no_newline": len(data) - 1,
    }[cut]
    path = tmp_path / "cut.csv"
    path.write_bytes(data[:end])
    assert not direct.eligible(str(path), data[: 1 << 20])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.from_regex(r"[-+]?\d{1,3}(,\d{3}){0,3}(\.\d{1,3})?", fullmatch=True),
            st.from_regex(r" ?\d{1,4}(\.\d+)?(e-?\d)? \(\d{1,3}(,\d{3})?; \d+\)", fullmatch=True),
            st.sampled_from(
                ["n/a", "", "nan", "65,77", "27.595.520", "1,2345", ",123", "inf", " 12 ", "(1)"]
            ),
            st.text(max_size=8),
        ),
        max_size=40,
    )
)
def test_fast_number_parsing_agrees_with_the_full_pattern(cells):
    from warpscope.importers.ncu.values import parse_number, parse_numbers

    text = pl.Series(cells, dtype=pl.String)
    fast = parse_numbers(text)
    full = pl.select(parse_number(pl.lit(text))).to_series()
    cast = text.cast(pl.Float64, strict=False)  # what the plain cast accepts, it keeps
    expected = cast.fill_nan(None).zip_with(cast.is_not_null(), full)
    assert fast.to_list() == expected.to_list()
    # the plain cast handed over (a long page computes it in its one pass over the rows)
    assert parse_numbers(text, cast).to_list() == expected.to_list()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["0", "17", "x", "", None, "3 ", "0042"]), st.integers(1, 4)),
        max_size=30,
    )
)
def test_checks_once_per_run_agree_with_checking_every_row(runs):
    from warpscope.importers.ncu.values import matches_by_run

    column = pl.Series("ID", [value for value, length in runs for _ in range(length)], dtype=pl.String)
    assert matches_by_run(column, r"^\d+$").to_list() == column.str.contains(r"^\d+$").to_list()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["seed_full_details.csv", "seed_full_raw.csv"]),
    how=st.sampled_from(["drop", "repeat", "swap", "flip"]),
    where=st.floats(0.05, 0.95),
    byte=st.integers(32, 126),
)
def test_direct_read_agrees_with_framed_read_on_damaged_pages(tmp_path_factory, name, how, where, byte):
    """What the direct read accepts of a damaged page, the framed read imports the same way."""
    from polars.testing import assert_frame_equal

    from warpscope.importers import import_file
    from warpscope.importers.ncu import direct

    lines = (H100 / name).read_bytes().splitlines(keepends=True)
    i = 2 + int(where * (len(lines) - 3))
    if how == "drop":
        del lines[i]
    elif how == "repeat":
        lines.insert(i, lines[i])
    elif how == "swap":
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    else:
        line = bytearray(lines[i])
        line[int(where * (len(line) - 2))] = byte
        lines[i] = bytes(line)
    path = tmp_path_factory.mktemp("damaged") / name
    path.write_bytes(b"".join(lines))
    fast = (
        direct.import_direct(str(path)) if direct.eligible(str(path), path.read_bytes()[: 1 << 20]) else None
    )
    if fast is None:
        return
    eligible, direct.eligible = direct.eligible, lambda *_: False
    try:
        framed = import_file(path)
    finally:
        direct.eligible = eligible
    fast = import_file(path)
    for table in ("launches", "metrics", "stalls", "findings", "rejected", "raw_units"):
        assert_frame_equal(getattr(fast, table), getattr(framed, table))
    assert fast.sources.rows() == framed.sources.rows()


def _framed_and_direct(path: Path, monkeypatch) -> tuple[warpscope.Profile, warpscope.Profile]:
    from warpscope.importers import import_file
    from warpscope.importers.ncu import direct

    assert direct.import_direct(str(path)) is not None  # the direct path takes the file
    with monkeypatch.context() as m:
        m.setattr(direct, "eligible", lambda *_: False)
        framed = import_file(path)
    return framed, import_file(path)


def test_launch_columns_from_first_lines_equal_every_row_read(tmp_path, monkeypatch):
    """A details page's per-launch columns come from each launch's first line
    (importers/ncu/first_rows.py): on a real PyTorch step (templated names, commas inside
    quotes, 90 launches) they equal the page parsed whole; a launch whose later rows are
    shorter than its first (an edited name) makes the search decline, and the page is read
    whole with the same result."""
    import gzip

    from polars.testing import assert_frame_equal

    from warpscope.importers.ncu import first_rows

    text = gzip.decompress((CNN_STEP / "cnn_full_details.csv.gz").read_bytes())
    page = tmp_path / "cnn_details.csv"
    page.write_bytes(text)
    framed, direct = _framed_and_direct(page, monkeypatch)
    assert direct.launches.height == 90 and direct.launches["kernel"].str.contains(",").any()
    for table in ("launches", "metrics", "findings"):
        assert_frame_equal(getattr(direct, table), getattr(framed, table))

    lines = text.split(b"\n")
    name = framed.launches["kernel"][0].encode()
    for i in range(2, len(lines)):  # every row of launch 0 but its first
        if lines[i].startswith(b'"0",'):
            lines[i] = lines[i].replace(name, b"k", 1)
    edited = tmp_path / "edited.csv"
    edited.write_bytes(b"\n".join(lines))
    found = []
    search = first_rows.launch_identity
    monkeypatch.setattr(first_rows, "launch_identity", lambda *a: found.append(r := search(*a)) or r)
    framed, direct = _framed_and_direct(edited, monkeypatch)
    assert found[0] is None  # skipping by the first row's length went past launch 1's start
    assert direct.launches["kernel"][0] == name.decode()
    assert_frame_equal(direct.launches, framed.launches)
    assert_frame_equal(direct.metrics, framed.metrics)
