"""The docs list exactly what the code defines: docs/schema.md the columns, docs/checklist.md
the rules, docs/emulator.md the functions a kernel can call."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np

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


def test_checklist_carries_the_calibration_suite_as_measured():
    """docs/checklist.md's calibration table is what benchmarks/advice_calibration.py prints now,
    on the suite's H100 exports and event timings."""
    from tests.conftest import load_benchmark

    calibration = load_benchmark("advice_calibration")
    assert calibration.markdown(calibration.rows()) in (ROOT / "docs" / "checklist.md").read_text()


def test_the_calibration_suite_is_whole():
    """Every pair's two kernels were profiled and timed, each launch took >= 30 us (events), and
    the suite has the pairs the calibration needs: >= 24 where the fix gains, >= 6 where it
    does not."""
    from tests.conftest import load_benchmark

    calibration = load_benchmark("advice_calibration")
    times = calibration.event_times()
    rows = calibration.rows()
    assert len(rows) >= 30 and min(times.values()) >= 30
    assert sum(r.gain("events") for r in rows) >= 24 and sum(not r.gain("events") for r in rows) >= 6
    assert sum(r.gain("ncu") for r in rows) >= 24 and sum(not r.gain("ncu") for r in rows) >= 6
    held_out = calibration.SUITES[1]
    assert min(calibration.event_times(held_out).values()) >= 30
    assert len(calibration.rows((held_out,))) >= 7


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


def _documented_in_the_kernel_language() -> tuple[set[str], set[str], str]:
    """docs/emulator.md's "The kernel language": the ``cuda.`` names it lists (``a/b/c`` after a
    prefix expanded: ``cuda.atomic.add/sub`` is ``atomic.add`` and ``atomic.sub``), the prefixes
    it lists with ``*`` (``cuda.threadfence*``, ``math.*``), and the text of its code spans."""
    doc = (ROOT / "docs" / "emulator.md").read_text()
    section = doc.split("## The kernel language", 1)[1].split("\n## ", 1)[0]
    spans = " ".join(re.findall(r"`([^`]+)`", section))
    names: set[str] = set()
    prefixes: set[str] = set()
    for module, listed, star in re.findall(r"\b(cuda|math|cmath|operator)\.([\w.]+(?:/[\w.]+)*)(\*?)", spans):
        first, *others = listed.split("/")
        head = first.rsplit(".", 1)[0] + "." if "." in first else ""
        for name in [first, *(head + o for o in others)]:
            (prefixes if star else names).add(f"{module}.{name}")
    prefixes |= {f"{m}." for m in re.findall(r"\b(c?math|operator)\.\*", spans)}
    return names, prefixes, spans


def test_emulator_doc_lists_every_intrinsic_a_kernel_can_call():
    """Every function the emulator compiles from ``cuda.*``, ``math`` or Python's builtins is
    named in docs/emulator.md's kernel language, and every ``cuda`` function a kernel can name
    compiles (a placeholder in ``device_api`` without a builder would be a name that only fails)."""
    import builtins
    import cmath
    import math
    import operator

    from warpscope.emulator import device_api
    from warpscope.emulator.intrinsics.registry import BUILDERS

    names, prefixes, spans = _documented_in_the_kernel_language()
    public: dict[str, object] = {}
    for name, value in device_api.NAMES.items():
        if isinstance(value, device_api.Namespace):
            public.update({f"cuda.{name}.{k}": v for k, v in vars(value).items() if not k.startswith("_")})
        elif callable(value) and not isinstance(value, device_api.Dim3Index):
            public[f"cuda.{name}"] = value
    assert [name for name, fn in public.items() if fn not in BUILDERS] == []
    called: list[str] = []
    for fn in BUILDERS:
        name = getattr(fn, "__name__", "")
        if getattr(fn, "__module__", None) == device_api.__name__:
            called.append(f"cuda.{name}")  # the placeholders are named as a kernel names them
        elif getattr(math, name, None) is fn:
            called.append(f"math.{name}")
        elif getattr(cmath, name, None) is fn:
            called.append(f"cmath.{name}")
        elif getattr(operator, name, None) is fn:
            called.append(f"operator.{name}")
        elif getattr(builtins, name, None) is fn:
            called.append(name)
        else:  # numpy scalar types: the doc's casts (`np.float32(x)`), any dtype alike
            assert isinstance(fn, type) and issubclass(fn, np.generic), fn
    undocumented = [
        name
        for name in called
        if name not in names
        and not any(name.startswith(p) for p in prefixes)
        and not re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", spans)
    ]
    assert undocumented == []
    assert "cuda.atomic.cas" in called and "math.sqrt" in called and "min" in called
