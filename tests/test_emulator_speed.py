"""Issue 40 (the emulator at interactive speed): what the speed work must keep and add —
``WARPSCOPE_TIMING=0``, the summary line of ``warpscope emulate``, and the trace's per-warp
sectors computed for all warps at once exactly as ``np.unique`` per warp gave them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.conftest import run_cli
from warpscope.emulator.kernel import Settings
from warpscope.emulator.trace import LINE_SECTORS, _per_warp

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


def test_warpscope_timing_0_turns_the_timing_model_off_by_default(monkeypatch):
    monkeypatch.delenv("WARPSCOPE_TIMING", raising=False)
    assert Settings().timing
    for off in ("0", "false", "off", "no"):
        monkeypatch.setenv("WARPSCOPE_TIMING", off)
        assert not Settings().timing
    monkeypatch.setenv("WARPSCOPE_TIMING", "1")
    assert Settings().timing
    monkeypatch.setenv("WARPSCOPE_TIMING", "0")
    assert Settings(timing=True).timing  # said in code: kept


def test_a_script_launching_kernels_itself_runs_without_timing_under_warpscope_timing_0(tmp_path):
    script = tmp_path / "launches.py"
    script.write_text(
        "import numpy as np\n"
        "from warpscope.emulator import cuda\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    i = cuda.grid(1)\n"
        "    if i < a.size:\n"
        "        a[i] += 1\n"
        "a = np.zeros(64, np.float32)\n"
        "print(k[2, 32](a).timing is None, a.sum())\n"
    )
    for value, expected in (("0", "True 64.0"), ("1", "False 64.0")):
        out = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "WARPSCOPE_TIMING": value},
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == expected


def test_emulate_says_instructions_wall_time_and_rate(tmp_path):
    out = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "-o", str(tmp_path / "r.md"))
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if x.startswith("warpscope: emulated")]
    assert line.startswith("warpscope: emulated 2 launches, ")
    assert " warp instructions in " in line and " M warp instructions/s, timing model " in line
    off = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "--no-timing", "-o", str(tmp_path / "r.md"))
    assert off.returncode == 0 and "timing model" not in off.stderr


def test_per_warp_sectors_and_lines_equal_np_unique_per_warp():
    rng = np.random.default_rng(40)
    for trial in range(500):
        warps, lanes = int(rng.integers(1, 6)), int(rng.choice([32, 33, 40]))
        rows = rng.integers(-1, int(rng.integers(1, 300)), size=(warps, lanes))
        if trial % 3 == 0:
            rows[int(rng.integers(0, warps))] = -1  # a warp with no active lane
        for keep in (True, False):
            for row, got in zip(rows, _per_warp(rows, keep).per_warp()):
                ids = np.unique(row[row >= 0])
                assert got.units == np.unique(ids // LINE_SECTORS).size
                if keep:
                    assert got.sectors is not None and np.array_equal(got.sectors, ids)
                else:
                    assert got.sectors is None
