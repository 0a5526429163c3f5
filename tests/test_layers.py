"""Only warpscope/tui imports Textual; headless paths stay light."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT

TEXTUAL = re.compile(r"^\s*(from|import)\s+textual\w*\b", re.M)


def test_no_textual_outside_tui():
    offenders = [
        str(p.relative_to(ROOT))
        for d in ("warpscope", "importers")
        for p in (ROOT / d).rglob("*.py")
        if TEXTUAL.search(p.read_text()) and "tui" not in p.relative_to(ROOT).parts
    ]
    assert offenders == []


def test_headless_imports_do_not_load_textual():
    code = (
        "import sys, warpscope, warpscope.cli, warpscope.importers, warpscope.report.json_report, "
        "warpscope.report.markdown, warpscope.emulator, warpscope.emulator.runner, warpscope.explore.workspace, "
        "warpscope.explore.timeline, warpscope.explore.glossary; print(any(m.split('.')[0].startswith('textual') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
