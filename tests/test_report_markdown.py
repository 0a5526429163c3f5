"""The markdown report: golden output for the seed export, tables that parse, hostile names."""

from __future__ import annotations

import json
import os
import re

import pytest
from markdown_it import MarkdownIt

from tests.conftest import CNN_STEP, H100, ROOT, public_samples, run_cli

SEED = "sample_traces/h100/seed_full_raw.csv"
GOLDEN = ROOT / "tests" / "golden" / "seed_full_raw.md"
NASTY = "evil|name `tick` <b>bold</b>\nsecond line \\| [x](y) *z*"


def _tables(markdown: str) -> list[list[str]]:
    """Each table's source lines, as markdown-it (GFM tables) found them."""
    md = MarkdownIt("commonmark").enable("table")
    lines = markdown.splitlines()
    return [lines[t.map[0] : t.map[1]] for t in md.parse(markdown) if t.type == "table_open"]


def _cells(line: str) -> int:
    # GFM: a pipe splits cells unless escaped with a backslash
    return len(re.findall(r"(?<!\\)\|", line.strip())) - 1


def _assert_tables_consistent(markdown: str) -> int:
    tables = _tables(markdown)
    for table in tables:
        header = _cells(table[0])
        assert all(_cells(line) == header for line in table), table
    return len(tables)


def test_seed_report_matches_golden_file():
    result = run_cli("report", SEED, "--full")
    assert result.returncode == 0, result.stderr
    if os.environ.get("WARPSCOPE_UPDATE_GOLDEN"):
        GOLDEN.write_text(result.stdout)
    assert result.stdout == GOLDEN.read_text()


def test_seed_report_tables_parse():
    text = GOLDEN.read_text()
    # sources, fix first, kernel summary, and one table per kernel
    # sources, fix first, kernels, roofline, its L1/L2/DRAM levels; one per kernel
    assert _assert_tables_consistent(text) == 5 + 22
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<td>transposeShared&lt;0&gt;</td>" in html
    assert "<strong>32-way shared-memory bank conflicts</strong>" in html


@pytest.fixture(scope="module")
def nasty_report(tmp_path_factory):
    """A profile whose first kernel is named NASTY (a saved profile: C++ names in an ncu CSV
    cannot hold a newline, a saved profile or an emulator run can)."""
    import polars as pl

    import warpscope

    profile = warpscope.load(H100 / "seed_full_raw.csv")
    first = pl.col("launch_id") == 0
    launches = profile.launches.with_columns(
        pl.when(first).then(pl.lit(NASTY)).otherwise(pl.col("kernel")).alias("kernel"),
        pl.when(first).then(pl.lit(NASTY)).otherwise(pl.col("kernel_short")).alias("kernel_short"),
    )
    path = tmp_path_factory.mktemp("nasty") / "nasty.parquet"
    type(profile)(**{**profile.tables(), "launches": launches}).save(path)
    result = run_cli("report", str(path), "--full")
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_pipes_and_backticks_from_an_ncu_csv(tmp_path):
    data = (H100 / "seed_full_raw.csv").read_text()
    path = tmp_path / "pipes.csv"
    path.write_text(data.replace("mathKernel1(float *)", "evil|name `tick` <b>x</b>(float *)"))
    text = run_cli("report", str(path), "--full").stdout
    # sources, fix first, kernels, roofline, its L1/L2/DRAM levels; one per kernel
    assert _assert_tables_consistent(text) == 5 + 22
    assert "evil\\|name \\`tick\\` \\<b\\>x\\</b\\>" in text


def test_hostile_names_keep_tables_whole(nasty_report):
    # sources, fix first, kernels, roofline, its L1/L2/DRAM levels; one per kernel
    assert _assert_tables_consistent(nasty_report) == 5 + 22
    html = MarkdownIt("commonmark").enable("table").render(nasty_report)
    assert "<b>" not in html and "<a href" not in html and "<em>" not in html.split("<h2>")[1]
    # the whole name, on one line, in one cell of the summary
    row = next(line for line in nasty_report.splitlines() if "evil" in line and "×" in line)
    assert "\n" not in row and "second line" in row


def test_report_lists_findings_with_evidence():
    text = GOLDEN.read_text()
    section = text.split("## 11. transposeShared\\<0\\>", 1)[1].split("\n## ", 1)[0]
    first = section.split("### Findings", 1)[1].strip().splitlines()
    assert first[0].startswith(
        "1. **high** (confidence high) · `bank_conflicts` · `shared_bank_conflicts` · origin warpscope"
    )
    assert "(est. gain 36.6%)" in first[0]  # the replays, within the shared-memory stalls they cause
    assert any(line.startswith("   - fix:") and "`tile[32][33]`" in line for line in first)
    assert any(
        line.startswith("   - evidence:") and "`shared_load_wavefronts` = 1,048,802" in line for line in first
    )


def test_the_default_report_fits_a_github_comment_and_full_gives_everything(tmp_path):
    """Every bundled and public export: the default report is at most 65,536 characters (what a
    GitHub comment holds), the kernels with the most time first, and says how to get the rest;
    ``--full`` and ``-o`` give the whole report."""
    paths = sorted((ROOT / "sample_traces" / "h100").glob("*.gz")) + sorted(
        (ROOT / "sample_traces" / "h100" / "trainloop").glob("*_raw_base.csv.gz")
    )
    paths += [H100 / "seed_full_raw.csv", CNN_STEP / "cnn_full_details.csv.gz", *public_samples()]
    import warpscope
    from warpscope.analysis import analyze
    from warpscope.errors import InputError
    from warpscope.report.markdown import COMMENT_BUDGET, render

    cut = 0
    for path in paths:  # in-process: the CLI's own path is checked below, once
        try:
            profile = analyze(warpscope.load(path))
        except InputError:  # an error-only sample: nothing to report
            continue
        short = render(profile, budget=COMMENT_BUDGET)
        assert len(short) <= 65_536, path
        if "Cut to fit 65,536 characters" in short:
            cut += 1
            whole = render(profile)
            assert len(whole) > 65_536 and whole.startswith(short.split("\n## Kernels", 1)[0])
            _assert_tables_consistent(short)
    assert cut >= 3  # the seed pages and the training loops do not fit whole
    big = ROOT / "sample_traces" / "h100" / "trainloop" / "trainloop_loop_raw_base.csv.gz"
    out = tmp_path / "r.md"
    assert run_cli("report", str(big), "-o", str(out)).returncode == 0
    default = run_cli("report", str(big)).stdout
    assert len(default) <= 65_536 < len(out.read_text())
    assert out.read_text() == run_cli("report", str(big), "--full").stdout


def test_a_cut_report_of_several_files_says_the_share_left_out_of_all_the_time():
    """Time shares are per file and device; what a cut report leaves out is said as a share of
    all the kernel time of every file (summing per-file shares would pass 100%)."""
    import re

    import warpscope
    from warpscope.analysis import analyze
    from warpscope.report.kernels import kernels
    from warpscope.report.markdown import render

    profile = analyze(warpscope.load([H100 / "seed_full_raw.csv", CNN_STEP / "cnn_full_raw_base.csv.gz"]))
    groups = kernels(profile)
    assert sum(k.time_share_pct for k in groups) == pytest.approx(200)  # 100% of each file
    text = render(profile, budget=20_000)
    left, pct = re.search(r"… and (\d+) more kernels \(([\d.]+)% of the time\)", text).groups()
    rest = groups[len(groups) - int(left) :]
    total = sum(k.total_ns for k in groups)
    assert float(pct) == pytest.approx(100 * sum(k.total_ns for k in rest) / total, abs=0.05)
    assert float(pct) < 100


def _unescaped(text: str) -> str:
    """Markdown cell text as written before escaping (backslashes, ``&amp;``)."""
    return re.sub(r"\\(.)", r"\1", text).replace("&amp;", "&")


def test_the_cut_cnn_step_report_keeps_twenty_kernel_sections_and_each_full_name_once():
    """The PyTorch training step (79 kernels, a CUTLASS name of 3,476 characters): cut to a GitHub
    comment it still holds at least 20 kernel sections (one line per finding); every table
    shows names of at most 60 characters, head and tail kept; the full name is in the kernel's
    own section, once."""
    import polars as pl

    import warpscope

    files = [str(CNN_STEP / "cnn_full_raw_base.csv.gz"), str(CNN_STEP / "cnn_full_details.csv.gz")]
    result = run_cli("report", *files)
    text = result.stdout
    assert result.returncode == 0 and len(text) <= 65_536
    sections = re.findall(r"^## (\d+)\. ", text, re.M)
    assert len(sections) >= 20 and sections == [str(i) for i in range(1, len(sections) + 1)]
    assert f"{len(sections)} of 79 kernel sections" in text
    table = text.split("## Kernels", 1)[1].split("\n## ", 1)[0]
    names = [_unescaped(row.split(" | ")[1]) for row in table.splitlines() if re.match(r"\| \d+ \| ", row)]
    assert len(names) >= 20 and max(len(n) for n in names) == 60
    launches = warpscope.load(files[1]).launches
    cutlass = launches.filter(pl.col("kernel_short").str.len_chars() > 3000).row(0, named=True)
    short, full = cutlass["kernel_short"], cutlass["kernel"]
    assert short[:29] + "…" + short[-30:] in names
    plain = _unescaped(text)
    assert plain.count(full) == 1
    heading = plain.split(full, 1)[0].rsplit("\n## ", 1)[1].splitlines()[0]
    assert heading == f"7. {short[:49]}…{short[-50:]}"


def test_the_report_says_which_sections_an_export_lacks_and_which_rules_they_keep_from_running():
    """The per-tensor training loop was profiled with LaunchStats, Occupancy and three throughput
    metrics only: its report says the memory counters and Warp State Statistics are missing and
    names the rules that could not run; a --set full export (the seed kernels) and an nvprof
    trace get no such line."""
    from warpscope.analysis import RULES
    from warpscope.report.coverage import SECTIONS

    assert {r for s in SECTIONS for r in s.rules} <= set(RULES)
    loop = run_cli("report", str(H100 / "trainloop" / "trainloop_loop_raw_base.csv.gz")).stdout
    head = loop.split("## ", 1)[0]
    lines = [line for line in head.splitlines() if line.startswith("- This export has no ")]
    assert [line.split(" (")[0] for line in lines] == [
        "- This export has no memory-access counters",
        "- This export has no warp stall reasons",
        "- This export has no active threads per warp",
    ]
    assert "`uncoalesced_global_access`, `shared_bank_conflicts` could not run" in lines[0]
    assert all("`ncu --set full` collects them" in line for line in lines)
    assert "uncoalesced_global_access" not in loop.split("## Kernels", 1)[1]  # and indeed never fired
    report = json.loads(
        run_cli(
            "report", "--format", "json", str(H100 / "trainloop" / "trainloop_loop_raw_base.csv.gz")
        ).stdout
    )
    assert [(m["what"], m["rules"]) for m in report["missing_sections"]] == [
        ("memory-access counters", ["uncoalesced_global_access", "shared_bank_conflicts"]),
        ("warp stall reasons", ["stall_reason"]),
        ("active threads per warp", ["warp_divergence", "bounds_check_divergence"]),
    ]
    full = run_cli("report", "--full", SEED).stdout
    assert "This export has no" not in full
    trace = public_samples()
    nvprof = next(p for p in trace if p.parent.name == "nvprof" and "gputrace" in p.name)
    assert "This export has no" not in run_cli("report", str(nvprof)).stdout
