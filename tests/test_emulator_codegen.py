"""Generated code (``compiler/codegen.py``, ``WARPSCOPE_CODEGEN=1``) runs a kernel exactly as
its closures do: the same results, per-line counters, timing and faults on every corpus file
and the seed workload; its source can be written out to read, and its bytecode is kept on
disk for the next run."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from warpscope.emulator import EmulatorError, cuda
from warpscope.emulator.compiler import codegen
from warpscope.emulator.kernel import Kernel, Launch, Settings, recording, using
from warpscope.emulator.workloads import seed

CORPUS = Path(__file__).parent / "numba_corpus"
sys.path.insert(0, str(CORPUS))
import harness  # noqa: E402  (the corpus's own runner, beside its files)


def _run(monkeypatch: pytest.MonkeyPatch, generated: bool, run) -> tuple[object, list[Launch]]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(codegen.SWITCH_ENV, "1" if generated else "0")
    with recording() as launches:
        try:
            out = run()
        except EmulatorError as e:
            out = f"{type(e).__name__}: {e}"
    return out, launches


def _what_it_did(launch: Launch) -> object:
    timing = launch.timing
    return (
        launch.kernel,
        sorted((line, dataclasses.asdict(s)) for line, s in launch.counters.sites.items()),
        [dataclasses.asdict(h) for h in launch.hazards],
        [dataclasses.asdict(w) for w in launch.barrier_warnings],
        None
        if timing is None
        else (
            timing.cycles,
            [
                # arrays by their bytes: ``tolist`` of a large launch's timeline took seconds
                {k: _exactly(v) if isinstance(v, np.ndarray) else v for k, v in vars(r).items()}
                for r in timing.simulated
            ],
        ),
    )


def _exactly(a: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    """An array as what equality should compare: its type, shape and every bit."""
    return a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes()


def _assert_same(closures: tuple[object, list[Launch]], generated: tuple[object, list[Launch]]) -> None:
    (want, want_launches), (got, got_launches) = closures, generated
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want)
        for k in want:
            assert np.array_equal(np.asarray(got[k]), np.asarray(want[k]), equal_nan=True), k
    else:
        assert got == want
    assert len(got_launches) == len(want_launches)
    for a, b in zip(want_launches, got_launches):
        assert _what_it_did(a) == _what_it_did(b)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in harness.corpus_files()])
def test_every_corpus_file_runs_the_same_generated(monkeypatch, tmp_path, path):
    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path))
    with using(Settings(timing=True)):
        closures = _run(monkeypatch, False, lambda: harness.run_warpscope(path))
        generated = _run(monkeypatch, True, lambda: harness.run_warpscope(path))
    _assert_same(closures, generated)


def test_the_seed_workload_runs_the_same_generated(monkeypatch, tmp_path):
    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path))
    kernels = [k for k in vars(seed).values() if isinstance(k, Kernel)]

    def fresh() -> dict[str, np.ndarray]:
        for k in kernels:
            k._compiled.clear()  # compiled again, the way the switch now says
        seed.main(256)  # every kernel and launch shape, at a quarter of the quick size
        return {}

    with using(Settings(timing=True)):
        closures = _run(monkeypatch, False, fresh)
        generated = _run(monkeypatch, True, fresh)
    assert len(generated[1]) == seed.LAUNCHES
    _assert_same(closures, generated)


def test_faults_in_generated_code_say_what_the_closures_say(monkeypatch, tmp_path):
    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path))

    def kernels() -> list[Kernel]:
        @cuda.jit
        def past_the_end(a):
            i = cuda.grid(1)
            a[i + 1] = a[i] * 2

        @cuda.jit
        def unset(a):
            i = cuda.grid(1)
            if i > 100:  # no thread: x is never set
                x = a[i]
            a[i] = x + 1

        return [past_the_end, unset]

    for index in range(2):

        def launch(index: int = index) -> None:
            kernels()[index][1, 32](np.zeros(32, np.float32))

        closures, generated = _run(monkeypatch, False, launch), _run(monkeypatch, True, launch)
        assert isinstance(generated[0], str) and "KernelFault" in generated[0]
        assert generated[0] == closures[0]
    assert "used before it is assigned" in generated[0]


def test_the_generated_source_can_be_written_out_and_read(monkeypatch, tmp_path):
    monkeypatch.setenv(codegen.SWITCH_ENV, "1")
    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(codegen.SOURCE_ENV, str(tmp_path / "source"))

    @cuda.jit
    def scale(a, n):
        i = cuda.grid(1)
        if i < n:
            a[i] = a[i] * 2.0 + 1

    a = np.arange(40, dtype=np.float32)
    with using(Settings(timing=False)):
        scale[2, 32](a, 40)
    assert np.array_equal(a, np.arange(40, dtype=np.float32) * 2 + 1)
    (written,) = (tmp_path / "source").glob("*.py")
    assert written.name == "test_emulator_codegen.scale.py"
    text = written.read_text()
    compile(text, str(written), "exec")  # valid Python
    assert "def body_0(run, frame, mask):" in text and "def then_" in text  # one function per block
    assert "frame.vars['i'] if 'i' in frame.vars" in text  # operands inline, not closures
    assert "_multiply_add_value" in text and "_load_element" in text


def test_generated_bytecode_is_kept_on_disk_and_read_back(monkeypatch, tmp_path):
    monkeypatch.setenv("WARPSCOPE_CACHE", str(tmp_path))
    source = "def body_0(run, frame, mask):\n    return mask\n"
    first = codegen._bytecode(source, "k")
    (kept,) = (tmp_path / "codegen").rglob("*.bin")
    compiled = []
    monkeypatch.setattr(codegen, "compile", lambda *a: compiled.append(a) or first, raising=False)
    again = codegen._bytecode(source, "k")
    assert not compiled and again == first  # read back, not compiled
    kept.write_bytes(b"damaged")
    codegen._bytecode(source, "k")
    assert len(compiled) == 1  # a damaged file is compiled again
