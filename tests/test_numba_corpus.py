"""The numba compatibility corpus (``tests/numba_corpus``): each file, written for numba and
switched only by its import, gives under the emulator what numba-cuda gave on an H100
(``tests/data/numba_corpus``: integers and booleans bit for bit, floats to 1e-5)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from warpscope.emulator import EmulatorError
from warpscope.emulator.kernel import Settings, using

CORPUS = Path(__file__).parent / "numba_corpus"
H100 = Path(__file__).parent / "data" / "numba_corpus"
sys.path.insert(0, str(CORPUS))
import harness  # noqa: E402  (the corpus's own runner, beside its files)

FILES = harness.corpus_files()
#: files whose H100 result the emulator does not give, and why (each an expected failure,
#: strict: a fix turns it into an unexpected pass)
KNOWN_DIFFERENCES: dict[str, str] = {}


def _cases() -> list:
    return [
        pytest.param(p, id=p.stem, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[p.stem]))
        if p.stem in KNOWN_DIFFERENCES
        else pytest.param(p, id=p.stem)
        for p in FILES
    ]


EXPECTED = np.load(H100 / "h100.npz")
NUMBA_STATUS: dict[str, str] = json.loads((H100 / "h100.json").read_text())


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind in "fc":
        return bool(np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(np.array_equal(got, want))


def test_the_corpus_covers_enough_files_and_all_ran_on_the_h100():
    assert len(FILES) >= 40
    assert set(NUMBA_STATUS) == {p.stem for p in FILES}
    assert all(s == "ok" for s in NUMBA_STATUS.values()), {k: v for k, v in NUMBA_STATUS.items() if v != "ok"}


@pytest.mark.parametrize("path", _cases())
def test_file_gives_what_numba_cuda_gave_on_the_h100_and_timing_changes_no_result(path):
    """The file's results are the H100's; and the timing model never changes one: the timed
    run's equal the untimed run's bit for bit (one run each way)."""
    with using(Settings(timing=False)):
        plain = harness.run_warpscope(path)
    with using(Settings(timing=True)):
        got = harness.run_warpscope(path)
    assert plain.keys() == got.keys()
    assert all(np.array_equal(plain[k], got[k], equal_nan=plain[k].dtype.kind in "fc") for k in plain)
    want = {k.split("/", 1)[1]: EXPECTED[k] for k in EXPECTED.files if k.split("/", 1)[0] == path.stem}
    assert set(got) == set(want)
    wrong = {k: (got[k], want[k]) for k in want if not _same(got[k], want[k])}
    assert not wrong, wrong


def test_numba_imports_are_what_the_harness_switches_back():
    """A corpus file names warpscope only where a numba user names numba.cuda."""
    for path in FILES:
        source = harness.numba_source(path)
        assert "warpscope" not in source, path.name


def test_unreadable_signatures_are_one_line_errors():
    from warpscope.emulator import cuda

    with pytest.raises(EmulatorError, match="unknown type 'float33'"):
        cuda.jit("void(float33[:])")
    with pytest.raises(EmulatorError, match="declares 2 arguments, the function takes 1"):
        cuda.jit("void(float32[:], int32)")(lambda a: None)


BY_OTHERS = [p for p in FILES if int(p.stem[1:3]) >= 58 and p.stem not in KNOWN_DIFFERENCES]


@pytest.mark.parametrize("path", BY_OTHERS, ids=[p.stem for p in BY_OTHERS])
def test_the_file_as_a_numba_user_has_it_runs_on_the_emulator_unchanged(path):
    """``warpscope emulate`` runs a numba.cuda file as it is: ``from numba import cuda`` (and
    ``numba.cuda.random``) are the emulator's while it runs."""
    from warpscope.emulator.runner import numba_cuda_is_the_emulator

    with numba_cuda_is_the_emulator():
        got = harness.run_numba(path)
    want = {k.split("/", 1)[1]: EXPECTED[k] for k in EXPECTED.files if k.split("/", 1)[0] == path.stem}
    assert set(got) == set(want)
    assert all(_same(got[k], want[k]) for k in want)
