"""Rewrite the generated tables of docs/checklist.md (and the rules' calibration, which Fix
first publishes: warpscope/data/calibration.csv) from the code and the benchmarks.

docs/checklist.md carries four tables that tests/test_docs.py checks against what the code and
the benchmarks say now: the rules' evidence/thresholds/severity, the list of all rules, the seed
pairs (benchmarks/seed_pairs.py) and the calibration suite (benchmarks/advice_calibration.py).
After changing a rule's registration or an estimate, run

    python tools/update_checklist.py

and review the diff: the prose around the tables is yours to keep true.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
CHECKLIST = ROOT / "docs" / "checklist.md"


def _benchmark(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _replace_table(doc: str, header: str, table: str) -> str:
    """Swap the markdown table that starts with ``header`` (and its summary paragraph, if the
    new text has one) for ``table``."""
    start = doc.index(header)
    lines = doc[start:].split("\n")
    end = 0
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    if "\n\n" in table and end + 1 < len(lines) and lines[end] == "" and lines[end + 1]:
        end += 2  # the summary line after the table
    return doc[:start] + table + "\n" + "\n".join(lines[end:])


def _rules_tables() -> tuple[str, str]:
    from warpscope.analysis import CATEGORIES, RULES

    ordered = sorted(RULES.values(), key=lambda r: (CATEGORIES.index(r.category), r.id))
    evidence = ["| rule | evidence | fires when | severity (before the caps above) |", "|---|---|---|---|"]
    evidence += [f"| `{r.id}` | {r.evidence} | {r.threshold} | {r.severity} |" for r in ordered]
    every = [
        "| rule | category | checklist | Nsight Compute rule | what it checks | estimated gain |",
        "|---|---|---|---|---|---|",
    ]
    every += [
        f"| `{r.id}` | {r.category} | {', '.join(r.checklist)} | {', '.join(r.ncu) or '–'} | {r.doc} | "
        f"{r.speedup_formula or '–'} |"
        for r in ordered
    ]
    return "\n".join(evidence), "\n".join(every)


def main() -> None:
    doc = CHECKLIST.read_text()
    evidence, every = _rules_tables()
    doc = _replace_table(doc, "| rule | evidence | fires when |", evidence)
    doc = _replace_table(doc, "| rule | category | checklist |", every)
    seed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "seed_pairs.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    doc = _replace_table(doc, seed.split("\n", 1)[0], seed)
    calibration = _benchmark("advice_calibration")
    table = calibration.markdown(calibration.rows())
    doc = _replace_table(doc, "| pair | fix | rule |", table)
    CHECKLIST.write_text(doc)
    from warpscope.analysis.calibration import TABLE

    TABLE.write_text(calibration.calibration_csv(calibration.rows()))


if __name__ == "__main__":
    main()
