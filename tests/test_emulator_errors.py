"""Whose error is it: the kernel's own mistakes are faults at its line, a construct the
emulator cannot run is unsupported at its line, and a Python exception inside the emulator is
warpscope's internal error — one line naming the construct, file and line, never shown as the
kernel's fault."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tests.conftest import run_cli
from warpscope.emulator import cuda
from warpscope.emulator.errors import InternalError, KernelFault, UnsupportedError
from warpscope.emulator.intrinsics import registry


def _line(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn.py_func)
    return first + next(i for i, line in enumerate(lines) if text in line)


@cuda.jit
def uses_cbrt(a):
    i = cuda.grid(1)
    a[i] = cuda.cbrt(a[i])


@cuda.jit
def uses_cbrt_too(a):
    i = cuda.grid(1)
    a[i] = cuda.cbrt(a[i])


@cuda.jit
def indexes_with_a_float(a):
    i = cuda.grid(1)
    a[i * 0.5] = 1.0


@cuda.jit
def slices_of_different_lengths(a, out):
    i = cuda.grid(1)
    w = a[0:i]
    out[i] = w.shape[0]


def _broken(c, node, args, line):
    """A builder that fails at run time as a bug in an intrinsic would."""

    def run(run, frame, mask):
        raise ZeroDivisionError("a bug inside an intrinsic")

    return run


def test_an_exception_inside_the_emulator_is_an_internal_error_not_the_kernels_fault(monkeypatch):
    monkeypatch.setitem(registry.BUILDERS, cuda.cbrt, _broken)
    with pytest.raises(InternalError) as e:
        uses_cbrt[1, 4](np.ones(4))
    assert not isinstance(e.value, KernelFault)
    text = str(e.value)
    assert len(text.splitlines()) == 1
    assert f"{__file__}:{_line(uses_cbrt, 'cuda.cbrt')}:" in text
    assert "`a[i] = cuda.cbrt(a[i])`" in text  # the construct, as written
    assert "internal error" in text and "please report" in text and "ZeroDivisionError" in text


def test_an_exception_while_compiling_is_an_internal_error(monkeypatch):
    def broken(c, node, args, line):
        raise KeyError("a bug in a builder")

    monkeypatch.setitem(registry.BUILDERS, cuda.cbrt, broken)
    with pytest.raises(InternalError, match=r"internal error .* `a\[i\] = cuda.cbrt\(a\[i\]\)` \(KeyError"):
        uses_cbrt_too[1, 4](np.ones(4))


def test_the_kernels_own_mistake_stays_a_fault_at_its_line():
    with pytest.raises(KernelFault) as e:
        indexes_with_a_float[1, 4](np.ones(4))
    assert e.value.line == _line(indexes_with_a_float, "a[i * 0.5]")
    assert "must be an integer" in str(e.value) and "internal error" not in str(e.value)


def test_a_construct_found_unsupported_as_it_runs_is_unsupported_at_its_line():
    with pytest.raises(UnsupportedError) as e:
        slices_of_different_lengths[1, 4](np.ones(8), np.zeros(4))
    assert e.value.line == _line(slices_of_different_lengths, "w = a[0:i]")
    assert "length differs between threads" in str(e.value)


def test_the_cli_says_internal_error_in_one_line_with_exit_2(tmp_path):
    """``warpscope emulate`` on a file whose kernel trips a (planted) emulator bug."""
    (tmp_path / "k.py").write_text(
        "import numpy as np\n"
        "from warpscope.emulator import cuda\n"
        "from warpscope.emulator.intrinsics import registry\n\n"
        "def _bug(c, node, args, line):\n"
        "    def run(run, frame, mask):\n"
        "        raise ValueError('planted')\n"
        "    return run\n\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    a[cuda.grid(1)] = cuda.cbrt(2.0)\n\n"
        "def main():\n"
        "    saved = registry.BUILDERS[cuda.cbrt]\n"
        "    registry.BUILDERS[cuda.cbrt] = _bug  # the CLI runs in this process: put back below\n"
        "    try:\n"
        "        k[1, 32](np.zeros(32))\n"
        "    finally:\n"
        "        registry.BUILDERS[cuda.cbrt] = saved\n"
    )
    out = run_cli("emulate", "k.py", cwd=tmp_path)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("warpscope: ") and "k.py:12: internal error in warpscope" in line, line
    assert "please report" in line and "Traceback" not in out.stderr


@cuda.jit
def reads_one_past(a, out, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i + k]


@cuda.jit
def writes_one_past(a):
    i = cuda.grid(1)
    a[i + 1] = 1.0


def test_a_read_just_past_an_arrays_end_is_a_warning_as_the_gpu_carries_on():
    """numba-cuda's allocations are 512-byte granules laid end to end (measured on the H100),
    so a read less than 512 bytes past an array's end lands in padding or the next allocation:
    the GPU carries on (corpus file c75 reads A[63, 64] of a 64x64 array; memcheck reported 0
    errors). The emulator warns at the line, with the threads, gives them 0 and runs on."""
    a = np.arange(32.0)
    out = np.full(32, -1.0)
    launch = reads_one_past[1, 32](a, out, 2)
    assert out[:30].tolist() == a[2:].tolist() and out[30:].tolist() == [0.0, 0.0]
    (w,) = launch.barrier_warnings
    assert w.kind == "past_end" and w.line == _line(reads_one_past, "out[i] = a[i + k]") and w.blocks == 2
    text = w.describe("k.py", "reads_one_past")
    assert "out-of-bounds global read of a[32]" in text and "(2 threads)" in text and "real bug" in text


def test_further_past_the_end_and_any_write_past_it_still_fault():
    with pytest.raises(KernelFault, match="out-of-bounds global read"):
        reads_one_past[1, 32](np.arange(32.0), np.zeros(32), 100)  # lanes beyond 512 bytes past
    with pytest.raises(KernelFault, match="out-of-bounds global write"):
        writes_one_past[1, 32](np.zeros(32))


def test_a_bug_in_the_host_api_is_an_internal_error_and_misuse_stays_the_files(tmp_path):
    """An exception raised inside warpscope's own host API (here ``split`` of a 0-d array
    indexing its missing first axis) is warpscope's; a misuse the API reports on purpose
    (``select_device(3)``: one device) stays the file's, at its line."""
    (tmp_path / "h.py").write_text(
        "import numpy as np\nfrom warpscope.emulator import cuda\n\n\ndef main():\n"
        "    cuda.to_device(np.float64(1.0)).split(1)\n"
    )
    out = run_cli("emulate", "h.py", cwd=tmp_path)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "h.py:6: internal error in warpscope (IndexError" in line and "please report" in line, line
    (tmp_path / "m.py").write_text(
        "import numpy as np\nfrom warpscope.emulator import cuda\n\n\ndef main():\n    cuda.select_device(3)\n"
    )
    out = run_cli("emulate", "m.py", cwd=tmp_path)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "m.py:6: running main() failed: ValueError: cuda.select_device(3)" in line, line
