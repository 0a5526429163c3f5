"""Shared fixtures and sample paths.

Every test reads the repository's own ``sample_traces/``: the H100 exports warpscope made and
the public exports whose licence lets them ship (``sample_traces/public``). Public exports
that may not be redistributed stay in ``../shared/public_samples`` beside a checkout; the tests
that read them carry the ``needs_shared`` marker and skip, saying so, where it is absent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
H100 = SAMPLES / "h100"
#: a real PyTorch training step (conv net + bf16 MLP, cuDNN/CUTLASS/PyTorch kernels), --set full
CNN_STEP = H100 / "cnn_step"
#: public exports of other GPUs and versions, MIT-licensed (sample_traces/public/README.md)
PUBLIC = SAMPLES / "public"
PUBLIC_NCU = PUBLIC / "ncu"
PUBLIC_NVPROF = PUBLIC / "nvprof"
SHARED = ROOT.parent / "shared"
#: every public export, the ones without a licence to redistribute among them
UNSHIPPED = SHARED / "public_samples"

#: no test loads or builds the timing model built ahead of time (``timing/aot.py``): what a test
#: measures of the compiled model stays the JIT's and rent or buy's, whatever the developer's
#: cache folder holds, and no test starts a build in the background;
#: ``tests/test_emulator_timing_aot.py`` switches it on for the processes it starts
os.environ["WARPSCOPE_AOT"] = "0"
#: nor does any test load kernels compiled by an earlier run, or store its own in the
#: developer's cache folder: ``tests/test_emulator_compile_cache.py`` switches the compile
#: cache on, in folders of its own
os.environ["WARPSCOPE_COMPILE_CACHE"] = "0"

needs_shared = pytest.mark.needs_shared
#: why a ``needs_shared`` test skips
UNSHIPPED_REASON = "needs ../shared/public_samples (exports without a licence to ship them with warpscope)"
TMUX_REASON = "needs tmux on PATH (the end-to-end terminal tests drive the real app in it)"


def public_sample(kind: str, name: str) -> Path:
    """A public export by folder (``ncu``/``nvprof``) and name: the shipped copy, else ../shared's."""
    shipped = PUBLIC / kind / name
    return shipped if shipped.exists() else UNSHIPPED / kind / name


def public_params(kind: str, names: list[str]) -> list:  # type: ignore[type-arg]
    """Test parameters over public exports by name; those the repository does not ship need ../shared."""
    return [
        pytest.param(name, id=name, marks=[] if (PUBLIC / kind / name).exists() else [needs_shared])
        for name in names
    ]


def public_samples() -> list[Path]:
    """Every public export at hand: the shipped ones, and ../shared's others when it is beside."""
    shipped = sorted(p for p in PUBLIC.glob("*/*") if p.is_file())
    names = {p.name for p in shipped}
    others = sorted(p for p in UNSHIPPED.glob("*/*") if p.is_file() and p.name not in names)
    return shipped + others


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--strict-skips",
        action="store_true",
        help="fail a test that skips for any reason but a missing ../shared or tmux (CI, where both are there)",
    )


#: the subset CI runs on the lowest declared dependency versions (.ci/run): every importer, the
#: report, diff, saved profiles, the occupancy calculator, the entry point, and the emulator's
#: memory counting and bit intrinsics (numpy's bitwise_count)
SMOKE_MODULES = {
    "test_ncu_values.py",
    "test_ncurep.py",
    "test_nvprof.py",
    "test_occupancy.py",
    "test_report.py",
    "test_profile_io.py",
    "test_diff.py",
    "test_emulator_memory.py",
    "test_packaging.py",
    "test_fleet.py",
}
SMOKE_CORPUS = ("c01_", "c04_", "c21_")  # numba.cuda files using popc, clz, brev and the votes


def _is_smoke(item: pytest.Item) -> bool:
    name = item.path.name
    if name == "test_numba_corpus.py":
        return "[" in item.name and item.name.split("[", 1)[1].startswith(SMOKE_CORPUS)
    return name in SMOKE_MODULES


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_shared = pytest.mark.skip(reason=UNSHIPPED_REASON)
    skip_tmux = pytest.mark.skip(reason=TMUX_REASON)
    for item in items:
        if _is_smoke(item):
            item.add_marker(pytest.mark.smoke)
        if "needs_shared" in item.keywords and not UNSHIPPED.is_dir():
            item.add_marker(skip_shared)
        if "tmux" in item.keywords and shutil.which("tmux") is None:
            item.add_marker(skip_tmux)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """With ``--strict-skips`` a skip is a failure unless a marker's condition explains it: a
    skip that should not happen (a file the test expected, missing) must not pass unseen."""
    report = yield
    if report.skipped and item.config.getoption("--strict-skips") and not hasattr(report, "wasxfail"):
        reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        allowed = (UNSHIPPED_REASON in reason and not UNSHIPPED.is_dir()) or (
            TMUX_REASON in reason and shutil.which("tmux") is None
        )
        if not allowed:
            report.outcome = "failed"
            report.longrepr = f"skipped, which --strict-skips does not allow here: {reason}"
    return report


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the ``warpscope`` command in this process with click's CliRunner (what typer's wraps; a
    fresh interpreter per call costs 6-10 times as much): its exit code, stdout and stderr, with an
    unexpected exception's traceback on stderr as the real entry point would print it."""
    import typer
    from click.testing import CliRunner

    from warpscope.cli import app

    command = typer.main.get_command(app)
    main = command.main

    def main_flushing_stderr(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return main(*args, **kwargs)
        finally:  # click < 8.2 reads the captured stderr without flushing it
            sys.stderr.flush()

    command.main = main_flushing_stderr  # type: ignore[method-assign]
    here = os.getcwd()
    os.chdir(cwd)
    try:
        try:
            runner = CliRunner(mix_stderr=False)  # click < 8.2 mixes stderr into stdout by default
        except TypeError:
            runner = CliRunner()  # click >= 8.2 always keeps them apart
        result = runner.invoke(command, list(args), prog_name="warpscope", catch_exceptions=True)
    finally:
        os.chdir(here)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["warpscope", *args], result.exit_code, result.stdout, stderr)


def run_entry_point(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the real ``python -m warpscope`` in a fresh interpreter (the smoke tests: start-up,
    the entry point, exit codes and streams as a shell sees them)."""
    return subprocess.run(
        [sys.executable, "-m", "warpscope", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="session")
def seed_raw():
    import warpscope

    return warpscope.load(H100 / "seed_full_raw.csv")


@pytest.fixture(scope="session")
def seed_details():
    import warpscope

    return warpscope.load(H100 / "seed_full_details.csv")


@pytest.fixture(scope="session")
def seed_cache(tmp_path_factory) -> Path:
    """A warpscope cache folder holding the session's one emulation of the seed workload at 1/64
    of its size with the timing model: what ``warpscope demo --scale 64`` emulates, so the demo's
    tests read it as a user's second run does (WARPSCOPE_CACHE=this folder)."""
    from warpscope.emulator.cache import cached_workload
    from warpscope.emulator.kernel import Settings

    folder = tmp_path_factory.mktemp("warpscope-cache")
    before = os.environ.get("WARPSCOPE_CACHE")
    os.environ["WARPSCOPE_CACHE"] = str(folder)
    try:
        cached_workload("seed", Settings(), 64)
    finally:
        if before is None:
            del os.environ["WARPSCOPE_CACHE"]
        else:
            os.environ["WARPSCOPE_CACHE"] = before
    return folder


@pytest.fixture(autouse=True)
def _no_launch_left_timing():
    """A big launch a test made and never read the timing of is timed on the timing thread
    (``timing.overlap``): waited for before the next test, so it cannot run beside a test
    that changes the timing model's state."""
    yield
    overlap = sys.modules.get("warpscope.emulator.timing.overlap")
    if overlap is not None:
        overlap.wait()


@pytest.fixture(scope="session")
def emulated_seed(seed_cache):
    """The session's seed emulation (``seed_cache``) as a saved profile: (path, Profile)."""
    from warpscope.model.profile import Profile

    (path,) = seed_cache.glob("seed-x64-*.parquet")
    return path, Profile.load(path)


async def settle(pilot) -> None:
    """Wait until the app's background work (jobs, analysis thread) is done and painted."""
    import asyncio

    app = pilot.app
    await app.workers.wait_for_complete()

    def analysing() -> bool:
        if app.analysis is not None:
            return app.analysis.is_alive()
        # the rules start after the kernel table's first frame: on a busy machine, not yet
        workspace = getattr(app, "workspace", None)
        return app._analyse and workspace is not None and not workspace.analysed

    deadline = time.monotonic() + 120
    while analysing() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    await pilot.pause()


def load_benchmark(name: str):  # type: ignore[no-untyped-def]
    """A script of benchmarks/ as a module (the folder is not a package): its functions are
    what some tests check (the advice benchmark's scoring, say)."""
    import importlib.util
    import sys

    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


#: the real PyTorch step, raw page and details page of one Nsight Compute run
CNN_FILES = [CNN_STEP / "cnn_full_raw_base.csv.gz", CNN_STEP / "cnn_full_details.csv.gz"]
#: the kernel the fleet fixture's planted regression slows (the step's longest launch)
FLEET_KERNEL = "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, 1, 1>"
FLEET_RUNS, FLEET_REGRESSION = 30, 20


@pytest.fixture(scope="session")
def fleet_dataset(tmp_path_factory) -> Path:
    """A dataset of 30 runs of the real PyTorch step (2% run-to-run jitter, commits c0000…c0029),
    with a compiler regression planted on ``FLEET_KERNEL`` from commit c0020 on: 32 more
    registers per thread, a third less occupancy, 30% slower (``tools/fleet_runs.py``)."""
    import warpscope
    from tools.fleet_runs import build_dataset

    folder = tmp_path_factory.mktemp("fleet") / "ds"
    build_dataset(warpscope.load(CNN_FILES), str(folder), FLEET_RUNS, FLEET_REGRESSION, FLEET_KERNEL)
    return folder
