"""The linter, the formatter, the type checker and the static layer contracts configured in
pyproject.toml pass on the whole tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(command):
    out = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow
def test_mypy():
    """Types hold (strict for the model, occupancy, rules and importers): the package ships
    py.typed, so users' type checkers trust these annotations."""
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_import_contracts():
    """The layers of README.md's Layout (tui -> explore -> report -> analysis, importers, emulator -> occupancy -> model), checked on the import graph (function-level imports too)."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout
