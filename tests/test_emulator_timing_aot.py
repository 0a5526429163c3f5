"""The timing model built ahead of time (``timing/aot.py``): built by numba's AOT compiler into
the cache folder, a fresh process loads it without importing numba and times every launch the
reference times with the very same result; a process that loads the JIT model starts one build
for the next run as it ends (none while one runs, none after one failed, none when switched off);
a damaged module is removed and the JIT serves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from warpscope.emulator.kernel import Settings, recording, using
from warpscope.emulator.timing import aot, compiled, jit_sm
from warpscope.emulator.workloads import seed

pytest.importorskip("numba", reason="building the model needs numba (the test extras install it)")
pytestmark = pytest.mark.xdist_group("aot")  # one worker builds the module, once

CORPUS = Path(__file__).parent / "numba_corpus"
#: corpus files that name none of numba's types (so nothing else imports numba): small grids
#: the reference model times without the built module, a one-thread launch, a tiled matmul
#: the corpus files the emulator stops in (test_numba_corpus.KNOWN_DIFFERENCES says why)
STOPS = {"c75_numba_ex_laplace2d_smem"}
FILES = (
    "c08_small_int_indices",
    "c26_grid_stride",
    "c42_constant_memory",
    "c65_ug_ufunc_in_kernel",
    "c33_jacobi_stencil",
)

#: what two processes compare of their launches' timing (as test_emulator_timing_compiled's)
TIMED = """
import hashlib, json, sys, types
from warpscope.emulator.kernel import recording
from warpscope.emulator.timing import compiled
from warpscope.emulator.workloads import seed


def timings(launches):
    def plain(r):
        tl = r.timeline
        return vars(r) | {"timeline": [list(tl.shape), str(tl.dtype), hashlib.sha1(tl.tobytes()).hexdigest()]}

    return [[l.kernel, l.timing.cycles, [plain(r) for r in l.timing.simulated]] for l in launches]


harnessed = sys.argv[1] == "--harness"  # the corpus's runner (numba's GPU names are the emulator's)
if harnessed:
    from pathlib import Path
    sys.path.insert(0, str(Path(sys.argv[2]).parent))
    import harness
import contextlib
with recording() as launches, contextlib.redirect_stdout(sys.stderr):  # what the files print
    seed.main(256)
    for path in sys.argv[1 + harnessed:]:
        if harnessed:
            harness.run_warpscope(Path(path))
            continue
        module = types.ModuleType("corpus_file")
        module.__file__ = path
        exec(compile(open(path).read(), path, "exec"), module.__dict__)
        module.main()
print(json.dumps({
    "numba": "numba" in sys.modules,
    "model": type(compiled._run_sm).__name__,
    "timings": timings(launches),
}))
"""


def _run(
    env: dict[str, str], names: list[str] | tuple[str, ...] = FILES, harnessed: bool = False
) -> dict[str, object]:
    paths = [str(CORPUS / f"{name}.py") for name in names]
    flag = ["--harness"] if harnessed else []
    done = subprocess.run(
        [sys.executable, "-c", TIMED, *flag, *paths], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the built module (``python -m warpscope.emulator.timing``)."""
    cache = tmp_path_factory.mktemp("cache")
    env = {**os.environ, "WARPSCOPE_CACHE": str(cache), "WARPSCOPE_AOT": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "warpscope.emulator.timing"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    assert "built ahead of time" in done.stdout
    return cache


def test_a_process_loads_the_built_model_without_numba_and_times_as_the_reference(built):
    env = {k: v for k, v in os.environ.items() if k != "WARPSCOPE_JIT"}
    fast = _run({**env, "WARPSCOPE_CACHE": str(built), "WARPSCOPE_AOT": "1"})
    reference = _run({**env, "WARPSCOPE_CACHE": str(built), "WARPSCOPE_JIT": "0"})
    assert fast["model"] != "NoneType" and not fast["numba"]  # loaded, and numba never imported
    assert reference["model"] == "NoneType"
    assert len(fast["timings"]) > 20  # type: ignore[arg-type]
    assert fast["timings"] == reference["timings"]
    # and nothing was left to build: the module was there
    assert not (next((built / "timing").iterdir()) / "building").exists()


def test_the_built_model_times_every_corpus_file_as_the_reference(built):
    """Every array ``compiled.run`` passes has the layout the module was built for (its
    signature is fixed, where numba's JIT would compile another): the whole corpus, timed by
    the module and by the JIT (which test_emulator_timing_compiled holds to the reference)."""
    names = [p.stem for p in sorted(CORPUS.glob("c[0-9][0-9]_*.py")) if p.stem not in STOPS]
    env = {**os.environ, "WARPSCOPE_CACHE": str(built), "WARPSCOPE_JIT": "1"}
    built_ahead = _run({**env, "WARPSCOPE_AOT": "1"}, names, harnessed=True)
    jit = _run({**env, "WARPSCOPE_AOT": "0"}, names, harnessed=True)
    assert built_ahead["model"] == "builtin_function_or_method"  # the module's
    assert jit["model"] == "CPUDispatcher"
    assert built_ahead["timings"] == jit["timings"]


def test_rent_or_buy_prices_the_built_model_at_its_load(built, monkeypatch):
    """Built, the model costs next to nothing to load: every launch it times faster uses it."""
    monkeypatch.setenv("WARPSCOPE_CACHE", str(built))
    monkeypatch.setenv("WARPSCOPE_AOT", "1")
    monkeypatch.delenv("WARPSCOPE_JIT", raising=False)
    monkeypatch.setattr(compiled, "_run_sm", None)
    assert aot.ready() and compiled.load_cost() == compiled.AOT_S
    assert compiled.worth_it(compiled.RENT_MIN) and not compiled.worth_it(compiled.RENT_MIN - 1)
    monkeypatch.setenv("WARPSCOPE_AOT", "0")
    assert not aot.ready() and not compiled.worth_it(compiled.RENT_MIN)


@dataclass
class Builds:
    started: list[list[str]]  # the builds started (their commands), recorded instead of run
    at_exit: list[Callable[[], object]]  # what the process registered to run as it ends


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Builds:
    """An empty cache folder with the module switched on; builds (each ~17 s of a core) and
    exit handlers recorded instead of started."""
    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path))
    monkeypatch.setenv("WARPSCOPE_AOT", "1")
    monkeypatch.delenv("WARPSCOPE_JIT", raising=False)
    builds = Builds([], [])
    monkeypatch.setattr(aot, "_spawn", lambda command, log: builds.started.append(command))
    monkeypatch.setattr(aot, "atexit", SimpleNamespace(register=builds.at_exit.append))
    monkeypatch.setattr(aot, "_at_exit", False)
    return builds


def test_loading_the_jit_starts_one_build_as_the_process_ends(empty_cache, monkeypatch):
    """Not while the program runs (it would share the cores with it): at its exit, once."""
    monkeypatch.setattr(compiled, "_run_sm", None)
    with using(Settings(timing=True)), recording() as launches:
        monkeypatch.setenv("WARPSCOPE_JIT", "1")
        seed.main(256)
        seed.main(256)
    assert launches and compiled._run_sm is not None and hasattr(compiled._run_sm, "py_func")  # the JIT
    assert empty_cache.started == [] and empty_cache.at_exit == [aot.start_background_build]
    assert empty_cache.at_exit[0]()  # the process ends
    assert empty_cache.started == [[sys.executable, "-m", "warpscope.emulator.timing", "--background"]]
    assert (aot.folder() / "building").exists()
    assert not aot.start_background_build()  # one build at a time
    assert len(empty_cache.started) == 1


AT_EXIT = """
import os, sys
from pathlib import Path
from warpscope.emulator.kernel import recording
from warpscope.emulator.timing import aot, compiled
from warpscope.emulator.workloads import seed

mark = Path(sys.argv[1])
aot._spawn = lambda command, log: mark.write_text(" ".join(command[1:]))  # not a real build
with recording() as launches:
    seed.main(256)
assert hasattr(compiled._run_sm, "py_func") and not mark.exists()  # the JIT, and no build yet
"""


def test_a_real_process_starts_the_build_at_its_exit(tmp_path):
    mark = tmp_path / "started"
    env = {
        **os.environ,
        "WARPSCOPE_CACHE": str(tmp_path / "cache"),
        "WARPSCOPE_AOT": "1",
        "WARPSCOPE_JIT": "1",
    }
    done = subprocess.run([sys.executable, "-c", AT_EXIT, str(mark)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert mark.read_text() == "-m warpscope.emulator.timing --background"


def test_no_build_after_a_failure_nor_when_switched_off(empty_cache, monkeypatch):
    aot.folder().mkdir(parents=True)
    (aot.folder() / "failed").write_text("no C compiler\n")
    assert not aot.start_background_build()
    (aot.folder() / "failed").unlink()
    monkeypatch.setenv("WARPSCOPE_AOT", "0")
    assert not aot.start_background_build()
    monkeypatch.setenv("WARPSCOPE_AOT", "1")
    monkeypatch.setenv("WARPSCOPE_JIT", "0")  # no compiled model at all: nothing to build either
    assert not aot.start_background_build()
    assert empty_cache.started == []


def test_a_stale_lock_does_not_stop_the_build(empty_cache):
    aot.folder().mkdir(parents=True)
    lock = aot.folder() / "building"
    lock.touch()
    os.utime(lock, (1.0, 1.0))  # a builder that died long ago
    assert aot.start_background_build() and len(empty_cache.started) == 1


def test_a_damaged_module_is_removed_and_the_jit_serves(empty_cache, monkeypatch):
    path = aot.module_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x7fELF not really")
    assert aot.ready()
    assert aot.load() is None and not path.exists()
    monkeypatch.setattr(compiled, "_run_sm", None)
    assert hasattr(compiled.compiled_run(), "py_func")  # numba's dispatcher
    assert empty_cache.at_exit == [aot.start_background_build]  # and a new build, at exit


def test_a_build_that_fails_in_the_background_says_why_and_is_not_tried_again(tmp_path):
    """The background builder's own run, its numba broken: it records why, removes its lock
    and exits 1 (a numba that cannot import: a package of that name that raises)."""
    fake = tmp_path / "site" / "numba"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('numba is broken here')\n")
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "WARPSCOPE_CACHE": str(cache),
        "WARPSCOPE_AOT": "1",
        "PYTHONPATH": os.pathsep.join([str(fake.parent), *sys.path]),
    }
    folder = subprocess.run(
        [
            sys.executable,
            "-c",
            "from warpscope.emulator.timing import aot; f = aot.folder(); "
            "f.mkdir(parents=True); (f / 'building').touch(); print(f)",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    done = subprocess.run(
        [sys.executable, "-m", "warpscope.emulator.timing", "--background"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 1
    assert "numba is broken here" in (Path(folder) / "failed").read_text()
    assert not (Path(folder) / "building").exists()
    assert "not built ahead of time" in done.stderr and "Traceback" not in done.stderr


def test_the_key_follows_what_the_machine_code_depends_on(monkeypatch, tmp_path):
    """A source the model is compiled from, changed (another size or time), is another key."""
    before = aot.key()
    copy = tmp_path / "jit_sm.py"
    copy.write_text(Path(jit_sm.__file__).read_text() + "\n# changed\n")
    aot.key.cache_clear()
    monkeypatch.setattr(jit_sm, "__file__", str(copy))
    try:
        assert aot.key() != before
    finally:
        monkeypatch.undo()
        aot.key.cache_clear()
    assert aot.key() == before


def test_the_program_says_what_it_does_and_refuses_what_it_does_not_know(capsys):
    """``python -m warpscope.emulator.timing --help`` explains (exit 0) instead of building;
    an argument it does not know is refused the same way (exit 2)."""
    assert aot.main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m warpscope.emulator.timing")
    assert aot.main(["--bogus"]) == 2
    assert capsys.readouterr().err.startswith("usage: python -m warpscope.emulator.timing")
