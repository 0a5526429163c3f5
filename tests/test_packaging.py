"""What ``pip install`` gives a user: one ``warpscope`` package (the importers inside it, the demo's
export as its data), a version written once, and the entry point working from any directory —
also one holding a folder of its own named ``importers``."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import warpscope
from tests.conftest import H100, ROOT, run_entry_point

#: the wheel is built in the source tree (setuptools' build/ and egg-info): one xdist worker builds it
WHEEL = pytest.mark.xdist_group("wheel")
#: a wheel of source, the demo's export and two small tables is well under this
WHEEL_BUDGET = 1_500_000


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (path,) = out.glob("warpscope-*.whl")
    return path


@pytest.mark.slow
@WHEEL
def test_wheel_holds_one_package_with_its_data_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"warpscope", f"warpscope-{_version()}.dist-info"}, tops
    for needed in (
        "warpscope/importers/__init__.py",
        "warpscope/importers/ncurep/metric_units.csv",
        "warpscope/data/seed_full_raw.csv",
        "warpscope/tui/app.tcss",
        "warpscope/py.typed",
    ):
        assert needed in names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".whl"))]
    assert wheel.stat().st_size < WHEEL_BUDGET
    export = zipfile.ZipFile(wheel).read("warpscope/data/seed_full_raw.csv")
    assert export == (H100 / "seed_full_raw.csv").read_bytes()  # the link's content, not the link


@pytest.mark.slow
@WHEEL
def test_the_unpacked_wheel_reports_and_finds_its_demo_from_anywhere(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        f"import sys; sys.path.insert(0, {str(site)!r}); import warpscope, warpscope.cli as c; "
        "assert warpscope.__file__.startswith(sys.path[0]), warpscope.__file__; "
        "print(c.DEMO_EXPORT.is_file(), warpscope.load(c.DEMO_EXPORT).launches.height)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "22"]


def test_a_folder_named_importers_in_the_working_directory_changes_nothing(tmp_path):
    """``python -m warpscope`` puts the working directory first on sys.path: a user's own
    ``importers`` package there must not stand in for warpscope's."""
    decoy = tmp_path / "importers"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('the user\\'s own importers package')\n")
    out = run_entry_point("report", str(H100 / "seed_full_raw.csv"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("# ") and "copyStrided" in out.stdout


def test_bad_input_through_the_entry_point_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "notes.csv"
    bad.write_text("this is not a profile\n")
    out = run_entry_point("report", str(bad), cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "notes.csv" in out.stderr


def test_the_version_is_written_once():
    """pyproject.toml states it; the package reads it from its installed metadata."""
    assert warpscope.__version__ == _version()
    literal = f'"{_version()}"'
    sources = [*(ROOT / "warpscope").rglob("*.py"), *(ROOT / "importers").rglob("*.py")]
    assert [str(p.relative_to(ROOT)) for p in sources if literal in p.read_text()] == []


def _version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_ci_installs_exactly_the_declared_lower_bounds():
    """.ci/lowest-constraints.txt pins each unpinned dependency at its declared lower bound, so
    the CI step that runs the smoke subset on them tests what pyproject.toml promises."""
    declared = {}
    for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        name, _, rest = requirement.partition(">=")
        if rest:
            declared[name.strip()] = rest.split(",")[0].strip()
    pinned = dict(
        line.split("==")
        for line in (ROOT / ".ci" / "lowest-constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert set(pinned) == set(declared)
    for name, lowest in declared.items():
        assert _release(pinned[name]) == _release(lowest), name


def _release(version: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in version.split("."))
    return parts + (0,) * (3 - len(parts))
