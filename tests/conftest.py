"""Shared fixtures: the shipped H100 samples and, when present, ../shared's public exports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
H100 = ROOT / "sample_traces" / "h100"
SHARED = ROOT.parent / "shared"
PUBLIC_NCU = SHARED / "public_samples" / "ncu"

needs_shared = pytest.mark.skipif(
    not PUBLIC_NCU.is_dir(), reason="../shared/public_samples is not beside this checkout"
)


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the real ``warpscope`` entry point in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "warpscope", *args], cwd=cwd, capture_output=True, text=True, timeout=120
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
def emulated_seed(tmp_path_factory):
    """The seed workload emulated at 1/64 of its size with the timing model (timeline included),
    saved as a profile: (path, Profile)."""
    from warpscope.emulator.runner import emulate_workload
    from warpscope.model.profile import Profile

    path = tmp_path_factory.mktemp("emulated") / "seed_emulated.parquet"
    emulate_workload("seed", scale=64).save(path)
    return path, Profile.load(path)


async def settle(pilot) -> None:
    """Wait until the app's background work (jobs, analysis thread) is done and painted."""
    import asyncio

    await pilot.app.workers.wait_for_complete()
    while pilot.app.analysis is not None and pilot.app.analysis.is_alive():
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
