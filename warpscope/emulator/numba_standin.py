"""A learner's numba.cuda file, run as it is: ``numba.cuda`` is the emulator while it runs.

``from numba import cuda``, ``import numba`` then ``numba.cuda.jit``, ``numba.cuda.random``
and ``numba.cuda.types`` name the emulator's modules inside ``numba_cuda_is_the_emulator``;
numba itself still gives its type names. numba is not imported for a file that does not
import it (a tenth of a second, an eighth of ``warpscope emulate`` on a small file): where it
is not imported yet, the stand-in is put in place when the file imports it (``_AfterImport``).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

#: the modules a numba.cuda file imports, and what stands for each while it runs
_NUMBA_CUDA_MODULES = ("numba.cuda", "numba.cuda.random", "numba.cuda.types")

_PATCH_LOCK = threading.Lock()
_patched: list[Callable[[], None]] = []  # while patched: the one call that puts numba back
_depth = 0  # numba_cuda_is_the_emulator blocks open


@contextlib.contextmanager
def numba_cuda_is_the_emulator() -> Iterator[None]:
    """While the block runs, numba.cuda is the emulator's. Put back afterwards: by the last
    of the blocks open at once (two threads emulating files each open one; the first to leave
    must not put numba back under the other, nor the last leave the stand-in behind)."""
    global _depth
    with _PATCH_LOCK:
        if _depth == 0:
            _patched.append(_patch())
        _depth += 1
    try:
        yield
    finally:
        with _PATCH_LOCK:
            _depth -= 1
            if _depth == 0:
                _patched.pop()()


def _patch() -> Callable[[], None]:
    """Make numba.cuda the emulator's (numba's own module attributes once numba is imported:
    now, or when the file imports it); return what puts numba back."""
    from warpscope.emulator import cuda, random

    saved = {m: sys.modules.get(m) for m in _NUMBA_CUDA_MODULES}
    sys.modules["numba.cuda"] = cuda  # type: ignore[assignment]
    sys.modules["numba.cuda.random"] = random
    undo: list[Callable[[], None]] = []

    def on_numba(numba: ModuleType) -> None:
        undo.append(_patch_numba(numba, cuda))

    hook = None
    if sys.modules.get("numba") is not None:
        on_numba(sys.modules["numba"])
    else:
        hook = _AfterImport("numba", on_numba)
        sys.meta_path.insert(0, hook)

    def restore() -> None:
        if hook is not None and hook in sys.meta_path:
            sys.meta_path.remove(hook)
        for put_back in undo:
            put_back()
        for m, was in saved.items():
            if was is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = was

    return restore


def _patch_numba(numba: ModuleType, cuda: Any) -> Callable[[], None]:
    """``numba.cuda``, ``numba.cuda.types`` and the ``target='cuda'`` ufunc decorators made the
    emulator's on the imported numba; return what puts them back."""
    had_cuda = "cuda" in vars(numba)
    old_cuda = vars(numba).get("cuda")
    ufuncs = {n: getattr(numba, n) for n in ("vectorize", "guvectorize")}
    sys.modules["numba.cuda.types"] = numba.types
    setattr(numba, "cuda", cuda)  # noqa: B010  (numba's own submodule attribute)
    for n, theirs in ufuncs.items():
        setattr(numba, n, _cuda_target(getattr(cuda, n), theirs))

    def restore() -> None:
        for n, theirs in ufuncs.items():
            setattr(numba, n, theirs)
        if had_cuda:
            setattr(numba, "cuda", old_cuda)  # noqa: B010
        else:
            vars(numba).pop("cuda", None)

    return restore


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``name`` is imported, the module the other finders give is
    handed to ``then`` as soon as it has run (once; the finder then leaves ``sys.meta_path``).
    A module not installed stays an ImportError, as without it."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name, self.then = name, then

    def find_spec(
        self, fullname: str, path: Any, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader = _ThenLoader(spec.loader, self.then)
        return spec


class _ThenLoader(importlib.abc.Loader):
    """``loader``, with ``then`` called on the module once it has run; everything else (its
    resources, its source) asked of ``loader`` itself."""

    def __init__(self, loader: Any, then: Callable[[ModuleType], None]) -> None:
        self._loader, self._then = loader, then

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._then(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


def _cuda_target(ours: Callable[..., Any], theirs: Callable[..., Any]) -> Callable[..., Any]:
    """numba's ``vectorize``/``guvectorize``: ``target='cuda'`` is the emulator's, any other
    target numba's own."""

    def decorator(*args: Any, **kwargs: Any) -> Any:
        return (ours if kwargs.get("target") == "cuda" else theirs)(*args, **kwargs)

    decorator.__name__ = getattr(theirs, "__name__", "vectorize")
    decorator.__doc__ = getattr(theirs, "__doc__", None)
    return decorator
