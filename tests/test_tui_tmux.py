"""End to end: the installed ``warpscope open`` in a real terminal (tmux) at 80x24.

Keys go in with ``send-keys``; what the terminal shows comes back with ``capture-pane``.
CI installs tmux (.ci/run); elsewhere, without tmux, these tests skip under the ``tmux`` marker
(and ``--strict-skips``, as CI runs, accepts that skip only where tmux is missing).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import warpscope
from tests.conftest import H100, ROOT
from warpscope.analysis import analyze
from warpscope.report.opportunities import opportunities

WARPSCOPE = Path(sys.executable).parent / "warpscope"

pytestmark = pytest.mark.tmux


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def _screen(session: str) -> str:
    return _tmux("capture-pane", "-p", "-t", session)


def _wait_for(session: str, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def test_open_find_kernel_see_limiter_and_quit(tmp_path):
    assert shutil.which("tmux"), "tmux is needed for this test (.ci/run installs it)"
    assert WARPSCOPE.is_file(), f"the warpscope entry point is not installed beside {sys.executable}"
    session = f"warpscope-{uuid.uuid4().hex[:8]}"
    command = f"'{WARPSCOPE}' open '{H100 / 'seed_full_raw.csv'}'; echo warpscope exited with $?; sleep 30"
    # in a scratch folder: should a key reach the table ("e" exports), nothing lands in the checkout
    _tmux(
        "new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", str(tmp_path), "sh", "-c", command
    )
    try:
        for name in ("matmulNaive", "withDivergence", "noDivergence", "heavyRegisters", "22 of 22 kernels"):
            _wait_for(session, name)  # one by one: a capture can catch the screen mid-draw
        _tmux("send-keys", "-t", session, "/")
        _wait_for(session, "Find kernel:")  # typed before the box is up, keys go to the table
        _tmux("send-keys", "-t", session, "-l", "heavyReg")
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(session, "1 of 22 kernels")
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(session, "limiter registers")
        _wait_for(session, "heavyRegisters(const float *, float *, int)")
        _tmux("send-keys", "-t", session, "3")
        screen = _wait_for(session, "◀ binds")
        binding = next(line for line in screen.splitlines() if "◀ binds" in line)
        assert binding.split()[0] == "registers"
        _tmux("send-keys", "-t", session, "q")
        screen = _wait_for(session, "warpscope exited with 0")
        assert "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_fix_first_from_the_table_opens_the_kernels_findings(tmp_path):
    """`x` on the kernel table lists the fix-first pairs; Enter opens the top one's Findings tab."""
    assert shutil.which("tmux"), "tmux is needed for this test (.ci/run installs it)"
    session = f"warpscope-{uuid.uuid4().hex[:8]}"
    command = f"'{WARPSCOPE}' open '{H100 / 'seed_full_raw.csv'}'; echo warpscope exited with $?; sleep 30"
    _tmux(
        "new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", str(tmp_path), "sh", "-c", command
    )
    try:
        _wait_for(session, "22 of 22 kernels")
        _tmux("send-keys", "-t", session, "x")
        screen = _wait_for(session, "(kernel, problem) pairs")
        kernel = opportunities(analyze(warpscope.load(H100 / "seed_full_raw.csv")))[0]["kernel_short"]
        top = next(line for line in screen.splitlines() if line.strip().startswith("1 "))
        assert kernel in top
        _tmux("send-keys", "-t", session, "Enter")
        screen = _wait_for(session, "7 Findings")
        assert kernel in screen
        _wait_for(session, "fix: ")  # the Findings tab is the one showing
        _tmux("send-keys", "-t", session, "q")
        screen = _wait_for(session, "warpscope exited with 0")
        assert "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_roofline_screen_and_the_kernels_plot(tmp_path):
    """`r` shows every kernel under the roofs (matmulNaive at 128 flop/B, on the compute side of
    the DRAM ridge, but bound by its L1 roof); Enter opens the highlighted kernel, whose Overview
    plots its own point (◆: at DRAM; ▲ ■ at L1 and L2)."""
    assert shutil.which("tmux"), "tmux is needed for this test (.ci/run installs it)"
    session = f"warpscope-{uuid.uuid4().hex[:8]}"
    # COLUMNS/LINES from the test run would pin the app to their size, not the window's
    command = (
        f"env -u COLUMNS -u LINES '{WARPSCOPE}' open '{H100 / 'seed_full_raw.csv'}'; "
        "echo warpscope exited with $?; sleep 30"
    )
    _tmux(
        "new-session", "-d", "-s", session, "-x", "110", "-y", "40", "-c", str(tmp_path), "sh", "-c", command
    )
    try:
        _wait_for(session, "22 of 22 kernels")
        _tmux("send-keys", "-t", session, "r")
        _wait_for(session, "kernels under their roofs")
        screen = _wait_for(session, "L1       14.3%")  # the table under the plot, matmulNaive's row whole
        assert "ridge 16.1 flop/B" in screen and "flop per DRAM byte (log)" in screen
        row = next(line for line in screen.splitlines() if "matmulNaive" in line and "14.3%" in line)
        assert "128.14" in row and "3.79 T" in row and "7%" in row
        _tmux("send-keys", "-t", session, "Enter")
        screen = _wait_for(session, "1 Overview")
        assert "matmulNaive(const float *" in screen
        _wait_for(session, "◆")  # the Overview's own roofline, beside the text from 100 columns
        _tmux("send-keys", "-t", session, "q")
        screen = _wait_for(session, "warpscope exited with 0")
        assert "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_demo_emulates_beside_the_h100_export_and_quits(seed_cache):
    """The demo as a user's second run sees it: the session's emulation of the seed workload in
    the cache (tests/test_emulator_cli.py emulates in the child process, as a first run does)."""
    session = f"warpscope-{uuid.uuid4().hex[:8]}"
    command = f"WARPSCOPE_CACHE='{seed_cache}' '{WARPSCOPE}' demo --scale 64; echo warpscope exited with $?; sleep 30"
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", "-c", str(ROOT), "sh", "-c", command)
    try:
        _wait_for(session, "matmulNaive · seed_full_raw.csv", timeout=120)  # CI: another test beside it
        screen = _wait_for(session, "· seed.py", timeout=120)
        assert "45 of 45 kernels" in screen
        _tmux("send-keys", "-t", session, "q")
        assert "Traceback" not in _wait_for(session, "warpscope exited with 0")
        assert len(list(seed_cache.glob("seed-x64-*.parquet"))) == 1  # read, not emulated again
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def _answer_ms(session: str, key: str, timeout: float = 5.0) -> float:
    """Milliseconds from sending ``key`` until the terminal shows something else."""
    before = _screen(session)
    start = time.perf_counter()
    _tmux("send-keys", "-t", session, key)
    while time.perf_counter() - start < timeout:
        if _screen(session) != before:
            return (time.perf_counter() - start) * 1000
        time.sleep(0.005)
    raise AssertionError(f"{key!r} changed nothing in {timeout} s; the screen was:\n{before}")


def _answers(session: str, keys: tuple[str, ...]) -> dict[str, int]:
    """Per key in turn (typed as a person types), milliseconds until the screen changed."""
    out = {}
    for key in keys:
        out[f"{len(out)}:{key}"] = round(_answer_ms(session, key))
        if key == "x":
            _wait_for(session, "Fix first")
        time.sleep(0.3)  # a key within 0.1 s of Escape would make it Alt+key
    return out


@pytest.mark.slow
def test_every_key_answers_while_the_rules_run(tmp_path):
    """A profile of 18,000 launches no two alike (the real PyTorch step, 2% jitter on every
    value): the rules run for seconds in their thread, and meanwhile each key repaints within
    200 ms; Fix first opened meanwhile says how far the analysis got, and fills in after."""
    import numpy as np

    from tests.conftest import CNN_FILES
    from tools.fleet_runs import jittered
    from warpscope.model.profile import Profile

    step = warpscope.load(CNN_FILES)
    rng = np.random.default_rng(7)
    profile = Profile.concat([jittered(step, rng) for _ in range(200)])
    saved = tmp_path / "noisy.parquet"
    profile.save(saved)
    session = f"warpscope-{uuid.uuid4().hex[:8]}"
    command = f"env -u COLUMNS -u LINES '{WARPSCOPE}' open '{saved}'; echo warpscope exited with $?; sleep 30"
    _tmux(
        "new-session", "-d", "-s", session, "-x", "120", "-y", "30", "-c", str(tmp_path), "sh", "-c", command
    )
    _tmux("set-option", "-s", "escape-time", "0")  # an Escape and the next key stay two keys
    try:
        _wait_for(session, "findings: analysing")
        keys = ("Down", "Down", "s", "x", "Escape", "?", "Escape", "Up")
        during = _answers(session, keys)
        assert "findings: analysing" in _screen(session)  # all of it while the rules ran
        _tmux("send-keys", "-t", session, "x")
        _wait_for(session, "(kernel, problem) pairs", timeout=120)
        _tmux("send-keys", "-t", session, "Escape")
        time.sleep(0.3)
        idle = _answers(session, keys)  # the same keys, the rules done: the UI's own pace here
        print("key answers during / after the analysis (ms):", during, idle)
        # on a quiet machine every key repainted within 205 ms while the rules ran
        # (docs/robustness.md). CI runs other tests beside this one on its two cores, which slows
        # the UI with or without the rules: the median must be within 200 ms or within 2x the
        # same keys' once the rules are done (2x), and no key may take 5 s
        median = sorted(during.values())[len(during) // 2]
        assert median <= max(200, 2 * sorted(idle.values())[len(idle) // 2]), (during, idle)
        assert max(during.values()) <= 5000, during
        _tmux("send-keys", "-t", session, "q")
        screen = _wait_for(session, "warpscope exited with 0")
        assert "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
