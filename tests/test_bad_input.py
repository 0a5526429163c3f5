"""Bad input: one line on stderr (file, line, what was expected), exit 2, no traceback;
a mostly-good file imports what is good and counts what it rejected."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.conftest import H100, run_cli

DETAILS = (H100 / "seed_full_details.csv").read_bytes()


def _one_clear_line(result, path, expect: str, line: int | None = None):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert str(path) in lines[0] and expect in lines[0]
    if line is not None:
        assert f"{path}:{line}:" in lines[0]


CASES = {
    "empty.csv": (b"", "empty file", 1),
    "blank.csv": (b"\n\n  \n", "empty file", 1),
    "binary.csv": (b"PK\x03\x04" + bytes(range(256)) * 4, "binary data", 1),
    "truncated.csv": (DETAILS[: len(DETAILS) // 2 + 7], "ends inside a row", None),
    "error_only.csv": (
        b"==ERROR== Option '--section X' did not match any section.\n"
        b"==ERROR== Use --list-sections to see the list of available sections.\n",
        "no profile table found",
        1,
    ),
    "wrong_header.csv": (
        b'"ID","Process ID","Kernel Name","Something"\n"0","1","k","v"\n',
        'lacks column(s) "Process Name", "Host Name"',
        1,
    ),
    "details_without_metric_name.csv": (
        b'"ID","Process ID","Process Name","Host Name","Kernel Name","Section Name","Metric Unit",'
        b'"Metric Value"\n"0","1","p","h","k","s","u","1"\n',
        'lacks column(s) "Metric Name"',
        1,
    ),
    "not_a_profile.csv": (b"a,b,c\n1,2,3\n", "not a profiler export", 1),
    "latin1.csv": ('"ID","Process ID"\nkernel ñ\n'.encode("latin-1"), "not UTF-8", 2),
    "bad_gzip.csv.gz": (b"\x1f\x8b\x08\x00garbage", "damaged gzip", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_input(tmp_path, name):
    data, expect, line = CASES[name]
    path = tmp_path / name
    path.write_bytes(data)
    _one_clear_line(run_cli("report", str(path), "--format", "json"), path, expect, line)


def test_truncated_names_the_last_line(tmp_path):
    cut = DETAILS[: len(DETAILS) // 2 + 7]
    path = tmp_path / "cut.csv"
    path.write_bytes(cut)
    result = run_cli("report", str(path))
    _one_clear_line(result, path, "ends inside a row", cut.count(b"\n") + 1)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.csv"
    _one_clear_line(run_cli("report", str(path)), path, "cannot read")


def test_mostly_good_file_imports_the_good_rows(tmp_path):
    lines = DETAILS.split(b"\n")
    bad = [b'"junk","row"', b'"7","880","seedkernels"']
    mangled = b"\n".join(lines[:100] + bad + lines[100:])
    path = tmp_path / "mostly_good.csv"
    path.write_bytes(mangled)
    result = run_cli("report", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    src = report["sources"][0]
    assert src["launches"] == 22 and src["rows_rejected"] == 2
    import warpscope

    profile = warpscope.load(path)
    s = profile.sources.row(0, named=True)
    assert s["rows_in"] == s["rows_imported"] + s["rows_rejected"] == 2173 + 2
    assert profile.rejected["line"].to_list() == [101, 102]


def test_gzip_and_crlf(tmp_path):
    path = tmp_path / "crlf.csv.gz"
    path.write_bytes(gzip.compress(DETAILS.replace(b"\n", b"\r\n")))
    result = run_cli("report", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["launches"]) == 22
    assert report["launches"][19]["metrics"]["registers_per_thread"] == 40


def test_open_says_a_missing_file_before_taking_the_screen(tmp_path):
    """`warpscope open` loads in the app's thread; a file that is not there is said at once,
    one line, exit 2, before the terminal is taken over (nothing on stdout)."""
    from tests.conftest import run_cli

    missing = tmp_path / "no_such_export.csv"
    result = run_cli("open", str(missing))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"warpscope: {missing}: cannot read: No such file or directory\n"
