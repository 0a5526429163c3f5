"""`warpscope emulate`: a kernel file or the bundled seed workload, reported like a profile."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import polars as pl

import warpscope
from tests.conftest import run_cli

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


def test_emulate_file_json_is_the_report_json():
    out = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "--format", "json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report) == {
        "sources",
        "missing_sections",
        "hazards",
        "opportunities",
        "runs",
        "run_findings",
        "launches",
    }
    assert [s["format"] for s in report["sources"]] == ["emulator"]
    saxpy, gather = report["launches"]
    assert (saxpy["kernel"], gather["kernel"]) == ("saxpy", "gather")
    assert saxpy["metrics"]["global_load_sectors_per_request"] < 4.1
    assert gather["metrics"]["global_load_sectors_per_request"] > 31
    rules = {f["rule"] for f in gather["findings"]}
    assert "uncoalesced_global_access" in rules
    assert "uncoalesced_global_access" not in {f["rule"] for f in saxpy["findings"]}


def test_emulate_saves_a_profile_with_source_lines(tmp_path):
    target = tmp_path / "emulated.parquet"
    out = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "--registers", "64", "-o", str(target))
    assert out.returncode == 0, out.stderr
    profile = warpscope.load(target)
    assert profile.launches["registers_per_thread"].to_list() == [64, 64]
    gather_line = profile.source.filter(
        (pl.col("launch_id") == 1) & (pl.col("counter") == "global_load_sectors")
    )
    assert gather_line["code"].str.contains("src\\[i \\* stride").all()
    # the profile reports the same way again
    again = run_cli("report", str(target))
    assert again.returncode == 0 and "gather" in again.stdout


def test_emulate_kernel_fault_is_one_line_exit_2():
    out = run_cli("emulate", str(DATA / "emulate_broken.py"))
    assert out.returncode == 2 and out.stdout == ""
    (line,) = out.stderr.strip().splitlines()
    assert "emulate_broken.py:10: kernel off_by_one, block (0, 0, 0) thread (40, 0, 0)" in line
    assert "out-of-bounds global write of a[40]" in line


def test_emulate_bad_arguments(tmp_path):
    assert run_cli("emulate").returncode == 2
    missing = run_cli("emulate", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    nomain = tmp_path / "nomain.py"
    nomain.write_text("x = 1\n")
    out = run_cli("emulate", str(nomain))
    assert out.returncode == 2 and "defines no main()" in out.stderr
    out = run_cli("emulate", "--workload", "seed", "--arch", "sm_13")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_emulate_seed_workload_report_names_the_lessons():
    out = run_cli("emulate", "--workload", "seed", "--scale", "64", "--no-timing", "--format", "json")
    assert out.returncode == 0, out.stderr
    launches = {l["kernel"]: l for l in json.loads(out.stdout)["launches"]}
    categories = {k: {f["category"] for f in l["findings"]} for k, l in launches.items()}
    assert "bank_conflicts" in categories["transposeShared<0>"]
    assert "bank_conflicts" not in categories["transposeShared<1>"]
    assert "coalescing" in categories["copyStrided"] and "coalescing" in categories["transposeNaive"]
    assert "divergence" in categories["withDivergence"]
    rules = {k: {f["rule"] for f in l["findings"]} for k, l in launches.items()}
    assert "warp_divergence" in rules["withDivergence"]
    # sorted input: only the one warp that straddles 0.5 splits (an info-level note at most)
    assert "warp_divergence" not in rules["withDivergence_sorted"]
    assert "reduction" in categories["reduceSingleThread"]
    assert launches["heavyRegisters"]["occupancy_limiter"] == "registers"
    assert launches["heavyRegisters"]["metrics"]["theoretical_occupancy_pct"] == 75
    assert launches["bigShared"]["occupancy_limiter"] == "shared_mem"


def test_demo_workload_is_emulated_once_then_read_from_the_cache(tmp_path, monkeypatch):
    """`warpscope demo` keeps the seed workload's emulation in the user's cache: the second
    run reads the same tables back instead of emulating again; another scale is another key."""
    from polars.testing import assert_frame_equal

    from warpscope.emulator import cache, runner
    from warpscope.emulator.kernel import Settings

    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path))
    ran = []
    emulate = runner.emulate_workload
    monkeypatch.setattr(cache, "emulate_workload", lambda *a: ran.append(a) or emulate(*a))
    settings = Settings(timing=False)
    first = cache.cached_workload("seed", settings, 256)
    second = cache.cached_workload("seed", settings, 256)
    assert len(ran) == 1 and len(list(tmp_path.glob("seed-x256-*.parquet"))) == 1
    for table in ("launches", "metrics", "stalls", "source"):
        assert_frame_equal(getattr(first, table), getattr(second, table))
    assert cache.key("seed", settings, 256) != cache.key("seed", settings, 128)
    # as the demo runs it: in a child process (the UI keeps the interpreter), relaying progress
    heard = []
    child = cache.cached_workload("seed", settings, 128, lambda *p: heard.append(p), in_process=False)
    assert len(ran) == 1 and len(list(tmp_path.glob("seed-x128-*.parquet"))) == 1
    assert child.launches.height == first.launches.height and heard[-1][0] == heard[-1][1]
    assert cache.key("seed", settings, 256) != cache.key("seed", Settings(timing=True), 256)


def test_emulate_host_error_names_its_line_for_a_relative_path(tmp_path):
    (tmp_path / "host_bug.py").write_text(
        "import numpy as np\n\n\ndef main():\n    x = np.zeros(3)\n    return x[7]\n"
    )
    out = run_cli("emulate", "host_bug.py", cwd=tmp_path)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("warpscope: host_bug.py:6: running main() failed: IndexError"), line


def test_emulate_json_stays_json_when_main_prints(tmp_path):
    (tmp_path / "chatty.py").write_text(
        "import numpy as np\nfrom warpscope.emulator import cuda\n\n\n@cuda.jit\ndef k(a):\n"
        "    a[cuda.grid(1)] = 1\n\n\ndef main():\n    print('hello from main')\n"
        "    a = np.zeros(32)\n    k[1, 32](a)\n    print('done', a.sum())\n"
    )
    out = run_cli("emulate", str(tmp_path / "chatty.py"), "--format", "json", "--no-timing")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["launches"]
    assert "hello from main" in out.stderr and "done 32.0" in out.stderr


def test_emulate_host_use_of_an_unemulated_cuda_name_is_one_line(tmp_path):
    (tmp_path / "events.py").write_text(
        "from warpscope.emulator import cuda\n\n\ndef main():\n    s = cuda.stream()\n"
        "    s.synchronize()\n    cuda.declare_device('f', 'int32(int32)')\n"
    )
    out = run_cli("emulate", "events.py", cwd=tmp_path)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert (
        "events.py:7: running main() failed" in line
        and "cuda.declare_device is not emulated by warpscope" in line
    )


def test_emulate_reports_races_on_stderr_in_the_profile_and_the_report(tmp_path):
    path = DATA / "emulate_racy.py"
    out = run_cli("emulate", str(path), "--no-timing")
    assert out.returncode == 0, out.stderr
    expected = (
        f"warpscope: racecheck: kernel stencil: 1,008 RAW hazards on shared array s: written at "
        f"{path}:16 by thread (0, 0, 0), read at {path}:18 by thread (1, 0, 0) of block (0, 0, 0) "
        "with no barrier between"
    )
    assert expected in out.stderr.splitlines()
    report = out.stdout.split("## Data races (racecheck)", 1)[1].split("\n## ", 1)[0]
    assert "1,008 accesses raced" in report and "emulate\\_racy.py:18" in report
    saved = tmp_path / "racy.parquet"
    assert run_cli("emulate", str(path), "--no-timing", "-o", str(saved)).returncode == 0
    (row,) = warpscope.load(saved).hazards.iter_rows(named=True)
    assert (row["kind"], row["array"], row["first_line"], row["second_line"], row["count"]) == (
        "RAW",
        "s",
        16,
        18,
        1008,
    )
    assert row["block"] == [0, 0, 0] and row["second_thread"] == [1, 0, 0]
    js = json.loads(run_cli("emulate", str(path), "--no-timing", "--format", "json").stdout)
    (hazard,) = js["hazards"]
    assert {
        k: hazard[k] for k in ("kernel", "kind", "space", "array", "first_line", "second_line", "count")
    } == {
        "kernel": "stencil",
        "kind": "RAW",
        "space": "shared",
        "array": "s",
        "first_line": 16,
        "second_line": 18,
        "count": 1008,
    }
    assert hazard["block"] == [0, 0, 0] and hazard["second_thread"] == [1, 0, 0]
    assert hazard["message"] in out.stderr and hazard["launch_id"] == js["launches"][0]["launch_id"]
    off = run_cli("emulate", str(path), "--no-timing", "--no-racecheck")
    assert off.returncode == 0 and "racecheck" not in off.stderr and "Data races" not in off.stdout


def test_emulate_warns_of_a_divergent_barrier_on_stderr_and_in_the_report(tmp_path):
    kernels = tmp_path / "halfbar.py"
    kernels.write_text(
        "import numpy as np\n"
        "from warpscope.emulator import cuda\n\n\n"
        "@cuda.jit\n"
        "def half(a):\n"
        "    if cuda.threadIdx.x < 16:\n"
        "        cuda.syncthreads()\n"
        "    a[cuda.threadIdx.x] = 1\n\n\n"
        "def main():\n"
        "    half[1, 64](np.zeros(64))\n"
    )
    out = run_cli("emulate", str(kernels), "--no-timing")
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if x.startswith("warpscope: warning: ")]
    assert f"{kernels}:8: kernel half, block (0, 0, 0) thread (0, 0, 0): syncthreads reached by 16" in line
    assert "## Divergent barriers" in out.stdout and "Data races" not in out.stdout


def test_emulate_runs_a_numba_cuda_file_unchanged(tmp_path):
    """The import line need not change: ``import numba`` / ``numba.cuda.jit``, ``from numba
    import cuda``, ``numba.cuda.random`` and numba-cuda's type re-exports are the emulator's."""
    (tmp_path / "lesson.py").write_text(
        "import math\nimport numba\nimport numpy as np\nfrom numba import cuda\n"
        "from numba.cuda import float32\n"
        "from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32\n\n\n"
        "@numba.cuda.jit\ndef k(out, states):\n    i = numba.cuda.grid(1)\n"
        "    out[i] = float32(math.sqrt(i)) + xoroshiro128p_uniform_float32(states, i) * 0\n\n\n"
        "def main():\n    out = cuda.device_array(64, dtype=np.float32)\n"
        "    k[2, 32](out, create_xoroshiro128p_states(64, seed=1))\n"
        "    print('sum', float(out.copy_to_host().sum()))\n"
    )
    out = run_cli("emulate", "lesson.py", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["launches"][0]["kernel"] == "k"
    want = float(np.sqrt(np.arange(64)).astype(np.float32).sum())
    assert f"sum {want}"[:9] in out.stderr


def test_numba_is_imported_only_for_a_file_that_imports_it(tmp_path):
    """A file that names only the emulator runs without numba being imported (a tenth of a
    second of ``warpscope emulate``); a file that imports numba during the run still gets the
    emulator as ``numba.cuda`` (and ``target='cuda'`` ufuncs), numba's own put back after."""
    import subprocess
    import sys

    (tmp_path / "lesson.py").write_text(
        "import numba\nimport numpy as np\nfrom numba import cuda\n\n\n"
        "@numba.vectorize(['float32(float32)'], target='cuda')\ndef twice(x):\n    return 2 * x\n\n\n"
        "@numba.cuda.jit\ndef k(out):\n    i = numba.cuda.grid(1)\n    out[i] = i\n\n\n"
        "def main():\n    out = cuda.device_array(64, dtype=np.float32)\n    k[2, 32](out)\n"
        "    print('sum', float(twice(out.copy_to_host()).sum()))\n"
    )
    check = (
        "import sys\n"
        "from warpscope.emulator.runner import emulate_file\n"
        "emulate_file(sys.argv[1])\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "kernels = [row['kernel'] for row in emulate_file(sys.argv[2]).launches.iter_rows(named=True)]\n"
        "import numba\n"
        "assert 'cuda' not in vars(numba) and 'numba.cuda' not in sys.modules\n"
        "assert not any(type(f).__name__ == '_AfterImport' for f in sys.meta_path)\n"
        "print(kernels)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", check, str(DATA / "emulate_saxpy.py"), str(tmp_path / "lesson.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "WARPSCOPE_TIMING": "0"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['k', '__vectorized_twice']"  # the ufunc runs as a kernel too
    assert f"sum {2.0 * sum(range(64))}" in out.stderr


def test_the_numba_cuda_stand_in_is_put_back():
    import sys

    import numba

    from warpscope.emulator import cuda
    from warpscope.emulator.runner import numba_cuda_is_the_emulator

    before = sys.modules.get("numba.cuda")
    with numba_cuda_is_the_emulator():
        assert numba.cuda is cuda and sys.modules["numba.cuda"] is cuda
    assert sys.modules.get("numba.cuda") is before
    assert getattr(numba, "cuda", None) is not cuda


def test_show_source_writes_each_kernels_generated_code_and_reports_the_same(tmp_path, monkeypatch):
    from warpscope.emulator.compiler.codegen import SOURCE_ENV

    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path / "cache"))
    plain = run_cli("emulate", str(DATA / "emulate_saxpy.py"), "--format", "json")
    shown = run_cli(
        "emulate",
        str(DATA / "emulate_saxpy.py"),
        "--format",
        "json",
        "--show-source",
        str(tmp_path / "source"),
    )
    assert plain.returncode == shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == json.loads(plain.stdout)
    written = sorted(p.name for p in (tmp_path / "source").glob("*.py"))
    assert written == ["emulate_saxpy.gather.py", "emulate_saxpy.saxpy.py"]
    text = (tmp_path / "source" / "emulate_saxpy.saxpy.py").read_text()
    assert text.startswith("# saxpy in ") and "def body_0(run, frame, mask):" in text
    assert SOURCE_ENV not in os.environ  # only for that run
