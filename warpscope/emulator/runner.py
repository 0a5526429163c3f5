"""Run a kernel file's ``main()`` (or a bundled workload) and return its launches as a Profile."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpscope.emulator.errors import EmulatorError
from warpscope.emulator.kernel import Launch, Settings, current_settings, recording, using
from warpscope.emulator.numba_standin import numba_cuda_is_the_emulator
from warpscope.emulator.profile import to_profile
from warpscope.model.profile import Profile

WORKLOADS = {"seed": "warpscope.emulator.workloads.seed"}


#: hears (launches done, launches expected or 0 when unknown, kernel name) after each launch
Progress = Callable[[int, int, str], None]


def emulate_file(
    path: str | Path, settings: Settings | None = None, progress: Progress | None = None
) -> Profile:
    """Import ``path``, call its ``main()``, and profile every kernel launch it makes."""
    path = Path(path)
    if not path.is_file():
        raise EmulatorError(f"{path}: no such file")
    name = f"_warpscope_kernels_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise EmulatorError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with numba_cuda_is_the_emulator():
            _host(path, lambda: spec.loader.exec_module(module), "importing it")  # type: ignore[union-attr]
            main = getattr(module, "main", None)
            if not callable(main):
                raise EmulatorError(
                    f"{path}: defines no main() to run (it should allocate arrays and launch kernels)"
                )
            return _profile(path, main, (), settings, progress, 0)
    finally:
        sys.modules.pop(name, None)


def emulate_workload(
    name: str, settings: Settings | None = None, scale: int = 1, progress: Progress | None = None
) -> Profile:
    """A bundled workload (``seed``: the seed kernels at the CUDA program's sizes)."""
    if name not in WORKLOADS:
        raise EmulatorError(f"unknown workload {name!r}: choose from {', '.join(WORKLOADS)}")
    module = importlib.import_module(WORKLOADS[name])
    return _profile(
        Path(module.__file__ or name),
        module.main,
        (scale,) if scale != 1 else (),
        settings,
        progress,
        getattr(module, "LAUNCHES", 0),
    )


def _profile(
    path: Path,
    main: Callable[..., Any],
    args: tuple[Any, ...],
    settings: Settings | None,
    progress: Progress | None,
    expected: int,
) -> Profile:
    done = [0]

    def heard(launch: Launch) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], max(expected, done[0]), launch.kernel)

    with using(settings or current_settings()), recording(heard) as launches:
        _host(path, lambda: main(*args), "running main()")
    if not launches:
        raise EmulatorError(f"{path}: main() launched no kernels")
    return to_profile(launches, str(path))


def _host(path: Path, fn: Callable[[], Any], doing: str) -> Any:
    """Run host code with what it prints sent to stderr (stdout carries the report, which
    must stay pure JSON or markdown); its errors as one line at the file's own line (kernel
    errors pass through)."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return fn()
    except EmulatorError:
        raise
    except SyntaxError as e:
        raise EmulatorError(f"{e.filename or path}:{e.lineno}: syntax error: {e.msg}") from None
    except Exception as e:
        here = path.resolve()
        stack = traceback.extract_tb(e.__traceback__)
        frames = [f for f in stack if Path(f.filename).resolve() == here]
        line = frames[-1].lineno if frames else 0
        if stack and _ours(stack[-1].filename) and not getattr(e, "warpscope_user", False):
            # raised inside the emulator's host API for code the user may write: our bug
            inner = stack[-1]
            raise EmulatorError(
                f"{path}:{line}: internal error in warpscope ({type(e).__name__}: {e} at "
                f"{Path(inner.filename).name}:{inner.lineno}) while {doing}; this is warpscope's "
                "fault, not the file's: please report it"
            ) from None
        raise EmulatorError(f"{path}:{line}: {doing} failed: {type(e).__name__}: {e}") from None


def _ours(filename: str) -> bool:
    """Whether ``filename`` is one of warpscope's own modules."""
    package = Path(__file__).resolve().parent.parent
    return Path(filename).resolve().is_relative_to(package)
