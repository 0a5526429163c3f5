"""The command line itself: version, help options and text, and the one-line hints for a
misspelt metric or a Python file given where a profile is expected."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from tests.conftest import H100, ROOT, run_cli
from warpscope.cli import app
from warpscope.explore.query import compile_filter
from warpscope.explore.table import KernelTable

SEED = str(H100 / "seed_full_raw.csv")
KERNEL_FILE = ROOT / "tests" / "numba_corpus" / "c01_signature_string_uint32.py"
COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands)  # type: ignore[union-attr]


def test_version_prints_the_package_metadata_version():
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"warpscope {version('warpscope')}\n"


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_dash_h_is_help_on_every_command(command):
    args = [command] if command else []
    short, long = run_cli(*args, "-h"), run_cli(*args, "--help")
    assert short.returncode == long.returncode == 0, short.stderr
    assert short.stdout == long.stdout and "Usage: warpscope" in short.stdout
    assert "-h" in short.stdout and "--help" in short.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_type_noise_for_flags(command):
    text = run_cli(command, "--help").stdout
    assert "<bool>" not in text and "BOOLEAN" not in text and "[default: False]" not in text


def test_every_command_is_in_the_help():
    text = run_cli("-h").stdout
    assert all(c in text for c in COMMANDS) and "--version" in text


def test_misspelt_fail_on_metric_suggests_the_catalog_id():
    result = run_cli("diff", SEED, SEED, "--fail-on", "achieved_ocupancy_pct<-5")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "achieved_ocupancy_pct is not a canonical metric (did you mean achieved_occupancy_pct?)" in (
        result.stderr
    )


def test_fail_on_metric_far_from_every_id_gets_no_guess():
    result = run_cli("diff", SEED, SEED, "--fail-on", "zzzz<-5")
    assert result.returncode == 2 and "did you mean" not in result.stderr


def test_misspelt_filter_metric_suggests_the_catalog_id(seed_raw):
    with pytest.raises(ValueError, match=r"column 1 \(did you mean warp_execution_efficiency_pct\?\): "):
        compile_filter("warp_execution_eficiency_pct < 50", KernelTable.of(seed_raw))
    with pytest.raises(ValueError, match=r"column 1 \(did you mean duration_ns\?\): "):
        compile_filter("duraton_ns > 1000", KernelTable.of(seed_raw))


@pytest.mark.parametrize("command", ["open", "report", "import"])
def test_a_python_file_is_pointed_to_emulate(command, tmp_path):
    args = [command, str(KERNEL_FILE)] + (["-o", str(tmp_path / "x.parquet")] if command == "import" else [])
    result = run_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        f"warpscope: {KERNEL_FILE}: a Python file, not a profile; "
        f"to run its kernels on the emulator: warpscope emulate {KERNEL_FILE}\n"
    )
    # and the suggestion works: the file runs on the emulator
    assert run_cli("emulate", str(KERNEL_FILE), "--no-timing").returncode == 0


def test_one_launch_is_singular(tmp_path):
    """A public export of one launch: 'import' says '1 launch', not '1 launches'."""
    path = ROOT / "sample_traces" / "public" / "ncu" / "llmperfopt_rtx50_cublasgemv_metrics_2025.1.csv"
    result = run_cli("import", str(path), "-o", str(tmp_path / "one.parquet"))
    assert result.returncode == 0, result.stderr
    assert f"{path}: ncu-details, 1 launch, " in result.stderr and "1 launches" not in result.stderr
    many = run_cli("import", SEED, "-o", str(tmp_path / "seed.parquet")).stderr
    assert ", 22 launches, " in many


def test_count_says_one_and_many():
    from warpscope.analysis.text import count

    assert [count(n, "launch") for n in (0, 1, 2, 10_000)] == [
        "0 launches",
        "1 launch",
        "2 launches",
        "10,000 launches",
    ]
    assert count(1, "time") == "1 time" and count(3, "time") == "3 times"
