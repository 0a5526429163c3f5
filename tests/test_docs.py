"""docs/schema.md lists exactly the columns the code defines."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT
from warpscope.model import schema


def test_schema_doc_matches_code():
    doc = (ROOT / "docs" / "schema.md").read_text()
    for table, cols in schema.TABLES.items():
        section = doc.split(f"### `{table}`", 1)[1].split("###", 1)[0]
        documented = re.findall(r"^\| `(\w+)` \| (.+?) \|", section, re.M)
        assert documented == [(name, str(dtype)) for name, dtype in cols.items()], table


def test_occupancy_doc_example_is_real_output():
    from tests.conftest import run_cli

    doc = (ROOT / "docs" / "occupancy.md").read_text()
    block = doc.split("```\n$ warpscope occupancy --arch sm_90 --block-size 256 --registers 40\n", 1)[1]
    shown = block.split("```", 1)[0]
    out = run_cli("occupancy", "--arch", "sm_90", "--block-size", "256", "--registers", "40")
    assert out.stdout == shown


def test_checklist_lists_every_rule_as_registered():
    from warpscope.analysis import CATEGORIES, RULES

    doc = (ROOT / "docs" / "checklist.md").read_text()
    table = doc.split("## All rules", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \| ([^|]*) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$", table, re.M)
    expected = [
        (r.id, r.category, ", ".join(r.checklist), ", ".join(r.ncu) or "–", r.doc, r.speedup_formula or "–")
        for r in sorted(RULES.values(), key=lambda r: (CATEGORIES.index(r.category), r.id))
    ]
    assert [tuple(c.strip() for c in row) for row in rows] == expected
    for r in RULES.values():  # each rule is named under the checklist items it implements
        for item in r.checklist:
            section = doc.split(f"## {item} ", 1)[1].split("\n## ", 1)[0]
            assert f"`{r.id}`" in section, (r.id, item)


def test_checklist_carries_the_seed_pairs_as_measured():
    """docs/checklist.md's predicted-against-measured table is what the benchmark prints now."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "seed_pairs.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    doc = (ROOT / "docs" / "checklist.md").read_text()
    assert out in doc


def test_checklist_gives_every_rule_its_evidence_threshold_and_severity():
    from warpscope.analysis import CATEGORIES, RULES

    doc = (ROOT / "docs" / "checklist.md").read_text()
    table = doc.split("## Evidence, thresholds and severity", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$", table, re.M)
    expected = [
        (r.id, r.evidence, r.threshold, r.severity)
        for r in sorted(RULES.values(), key=lambda r: (CATEGORIES.index(r.category), r.id))
    ]
    assert [tuple(c.strip() for c in row) for row in rows] == expected
    assert all(r.evidence and r.threshold and r.severity for r in RULES.values())
