"""The compiled timing model built ahead of time: an extension module that loads in well under
a millisecond, without numba.

``compiled`` loads ``jit_sm.run_sm`` through numba's JIT: importing numba and loading its
cached code costs ~0.18 s, which only a process with enough timing work repays (rent or buy),
so a program of small launches times them with the reference model, 4-6x slower. Built once
by numba's ahead-of-time compiler (``numba.pycc``: ~17 s, and a C compiler) into the cache
folder, the same code loads in ~0.3 ms and needs neither numba nor LLVM when it runs, so every
timed launch can use it. It is the same source compiled by the same numba: its results are the
JIT's (``tests/test_emulator_timing_aot.py`` compares them), its code generic for the machine's
architecture (a cache folder may be shared by machines of different CPUs) and ~15% faster than
the JIT's on a large SM (its helpers inlined: ``build``).

A process that loads the JIT model and finds no built module starts one build in the
background as it ends (``python -m warpscope.emulator.timing --background``, at the lowest
priority), so the next run has it; ``python -m warpscope.emulator.timing`` builds it now. ``WARPSCOPE_AOT=0``
neither builds nor loads it (nor does ``WARPSCOPE_JIT=0``). A module is kept per key: what its
machine code depends on (``jit_sm``'s source and the constants it reads, numba's installation,
numpy's version, the interpreter); a build that failed is not tried again for its key (``failed``
in its folder says why, ``log`` what the build printed).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from warpscope.emulator.cachedir import cache_dir
from warpscope.emulator.timing import jit_sm

SWITCH_ENV = "WARPSCOPE_AOT"
MODULE = "_warpscope_sm"  # the extension's name (its init function's): one per key folder
#: ``jit_sm.run_sm``'s arguments as ``compiled.run`` passes them (every array C-ordered)
SIGNATURE = (
    "i8(i8[::1], f8[::1], i8[::1], i8[::1], i8[:, ::1], i8[::1], i8[::1], i8[::1], i8[::1], "
    "i8[::1], i8[::1], i8[:, ::1], i8[::1], i8[::1], i8[:, ::1], i8[::1], b1[::1], b1[::1], i8, "
    "i8[::1], f8[::1], i8[::1], i8[:, ::1])"
)
FORMAT = 3  # how ``build`` compiles and lays out the key folder: raise it to leave older builds behind
STALE_LOCK_S = 600.0  # a build lock older than this is a build that died
PROGRAM = "warpscope.emulator.timing"  # ``python -m`` it: ``main`` (the package's ``__main__``)


def enabled() -> bool:
    """Whether the built module may be loaded (and built): not under ``WARPSCOPE_AOT=0`` or
    ``WARPSCOPE_JIT=0``, and numba is installed (its version is part of the key)."""
    if os.environ.get(SWITCH_ENV, "").strip() == "0" or os.environ.get("WARPSCOPE_JIT", "").strip() == "0":
        return False
    return _numba_origin() is not None


def folder() -> Path:
    """This key's folder in the cache (``cachedir``): the module, its build's lock and log."""
    return module_path().parent


def module_path() -> Path:
    return _module_path(os.environ.get("WARPSCOPE_CACHE"), os.environ.get("XDG_CACHE_HOME"))


@functools.lru_cache(maxsize=4)
def _module_path(*cache_settings: str | None) -> Path:
    """By the settings ``cache_dir`` reads (the folder costs more to work out than to look up)."""
    return cache_dir() / "timing" / key() / (MODULE + importlib.machinery.EXTENSION_SUFFIXES[0])


RECHECK_S = 1.0  # a module found missing is looked for again after this long (a build may end)
_missing_since: dict[Path, float] = {}  # module path -> when it was last found missing
_found: set[Path] = set()


def ready() -> bool:
    """Whether this key's module is built: asked before timing a launch, so the answer is
    remembered (a miss for ``RECHECK_S``: a build in the background may end meanwhile)."""
    if not enabled():
        return False
    path = module_path()
    if path in _found:
        return True
    now = time.monotonic()
    missed = _missing_since.get(path)
    if missed is not None and now - missed < RECHECK_S:
        return False
    if path.is_file():
        _found.add(path)
        return True
    _missing_since[path] = now
    return False


def load() -> Callable[..., Any] | None:
    """The built ``run_sm``, or None where it is not built or does not load (a damaged file:
    removed, so that the next JIT load builds it again): the caller takes numba's JIT."""
    if not enabled():
        return None
    path = module_path()
    if not path.is_file():
        return None
    try:
        loader = importlib.machinery.ExtensionFileLoader(MODULE, str(path))
        spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
        if spec is None:
            return None
        module = importlib.util.module_from_spec(spec)  # not put in sys.modules: ours alone
        loader.exec_module(module)
        run_sm = module.run_sm
    except (ImportError, OSError, AttributeError):
        _found.discard(path)
        path.unlink(missing_ok=True)
        return None
    return run_sm


@functools.lru_cache(maxsize=1)
def key() -> str:
    """What the built machine code depends on, hashed: the sources it is compiled from
    (``jit_sm`` and where the constants it compiles in come from, ``sm`` and the stall states:
    their paths, sizes and times, as Python's bytecode cache checks a source), the signature,
    numba's installation, numpy's version and the interpreter. Asked once, by the first timed
    launch: stats, not reads (~20 µs)."""
    from warpscope.emulator.timing import sm
    from warpscope.model import stalls

    h = hashlib.blake2b(digest_size=12)
    h.update(f"{FORMAT}\n{SIGNATURE}\n{sys.implementation.cache_tag}\n{sys.version}\n".encode())
    h.update(f"{importlib.machinery.EXTENSION_SUFFIXES[0]}\n{np.__version__}\n".encode())
    for source in (_numba_origin(), jit_sm.__file__, sm.__file__, stalls.__file__):
        if source is not None:
            at = os.stat(source)
            h.update(f"{source}\n{at.st_mtime_ns}\n{at.st_size}\n".encode())
    return h.hexdigest()


def _numba_origin() -> str | None:
    """numba's ``__init__.py`` (None: not installed), found without importing it."""
    numba = sys.modules.get("numba")
    origin = getattr(numba, "__file__", None)
    return origin if origin is not None else find_numba()


@functools.lru_cache(maxsize=1)
def find_numba() -> str | None:
    """numba's ``__init__.py`` where it is installed, asked of the import system once (~0.1 ms)
    without importing it (~0.12 s); ``compiled.numba_available`` asks it too."""
    try:
        spec = importlib.util.find_spec("numba")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


def build() -> Path:
    """Compile ``jit_sm.run_sm`` (and the helpers it calls) into this key's module, now; its
    path. Needs numba and a C compiler (setuptools finds it); raises what they raise."""
    import warnings

    import numba

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc is "pending deprecation": it says so on import
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler

    class Flags(pycc_compiler.Flags):
        """pycc's compile flags, the Python wrapper releasing the GIL around the call (what
        ``nogil=True`` does for the JIT: the timing thread, ``overlap``, runs beside the
        program); pycc has no option for it."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True  # type: ignore[assignment]

    target = module_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.parent / f"build-{os.getpid()}"
    work.mkdir(exist_ok=True)
    try:
        # the functions again, in a namespace of their own (``compiled`` makes the helpers JIT
        # dispatchers in ``jit_sm`` itself), where each helper is inlined into its callers: no
        # call, and no reference counting of the arrays it is passed (numba's runtime is a C
        # library in this module, called where the JIT inlines it). Measured on c28's largest SM:
        # 722-724 µs against the JIT's 863-893 and 916-933 with the helpers called.
        space = dict(vars(jit_sm))

        def own(fn: Any) -> Any:
            fn = getattr(fn, "py_func", fn)
            return types.FunctionType(fn.__code__, space, fn.__name__, fn.__defaults__, fn.__closure__)

        for name in jit_sm.HELPERS:
            space[name] = numba.njit(inline="always")(own(space[name]))
        cc = CC(MODULE)
        cc.output_dir = str(work)
        cc.verbose = False
        cc.export("run_sm", SIGNATURE)(own(jit_sm.run_sm))
        plain = pycc_compiler.Flags
        setattr(pycc_compiler, "Flags", Flags)  # noqa: B010  (what ``cc.compile`` creates)
        try:
            cc.compile()
        finally:
            setattr(pycc_compiler, "Flags", plain)  # noqa: B010
        next(work.glob(MODULE + ".*")).replace(target)  # atomic: a loader never sees half a module
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


_at_exit = False  # ``build_at_exit`` registered


def build_at_exit() -> None:
    """Start the background build (``start_background_build``) when this process ends, not
    now: ~17 s of a core, which beside the program would slow the very run that asked for it
    (the demo's first run, its emulator and its UI sharing two cores: 6.5-16 s to its emulated
    rows with the build started at once, against 5 s without)."""
    global _at_exit
    if not _at_exit and enabled():
        _at_exit = True
        atexit.register(start_background_build)


def start_background_build() -> bool:
    """Start building this key's module in another process, unless it is built, building, has
    failed or is switched off; whether one started. The process runs at the lowest priority,
    detached (it outlives this one), its output in the folder's ``log``."""
    if not enabled():
        return False
    place = folder()
    if module_path().is_file() or (place / "failed").exists():
        return False
    try:
        place.mkdir(parents=True, exist_ok=True)
        lock = place / "building"
        if lock.exists() and time.time() - lock.stat().st_mtime > STALE_LOCK_S:
            lock.unlink(missing_ok=True)
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # one builder per key
        os.close(fd)
    except OSError:  # building, or a cache folder we cannot write: the JIT serves
        return False
    try:
        with open(place / "log", "wb") as log:
            _spawn([sys.executable, "-m", PROGRAM, "--background"], log)
    except OSError:  # no process started: no build holds the lock
        lock.unlink(missing_ok=True)
        return False
    return True


def _spawn(command: list[str], log: Any) -> None:
    """Start ``command`` detached from this process (its own session: it outlives this one),
    its output into ``log``, with this process's cache folder."""
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "WARPSCOPE_CACHE": str(cache_dir())},
        start_new_session=True,
        close_fds=True,
    )


def main(argv: list[str]) -> int:
    """Build the module now (``--background``: as ``start_background_build``'s process, at the
    lowest priority, recording a failure and releasing the lock)."""
    unknown = [a for a in argv if a != "--background"]
    if unknown:  # -h, --help: what it does; anything else: the same, as an error
        helping = all(a in ("-h", "--help") for a in unknown)
        print(
            "usage: python -m warpscope.emulator.timing (builds the timing model ahead of time into "
            f"{module_path().parent}: ~17 s, with numba and a C compiler)",
            file=sys.stdout if helping else sys.stderr,
        )
        return 0 if helping else 2
    background = "--background" in argv
    if background and hasattr(os, "nice"):
        os.nice(19)
    started = time.perf_counter()
    try:
        path = build()
    except Exception as e:  # any reason it cannot be built: said, and remembered for the key
        message = f"warpscope: the timing model was not built ahead of time: {type(e).__name__}: {e}"
        print(message, file=sys.stderr)
        if background:
            (folder() / "failed").write_text(message + "\n")
        return 1
    finally:
        if background:
            (folder() / "building").unlink(missing_ok=True)
    print(f"warpscope: timing model built ahead of time in {time.perf_counter() - started:.1f} s: {path}")
    return 0
