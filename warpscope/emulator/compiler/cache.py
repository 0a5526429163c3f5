"""Compiled kernels kept on disk: a later run of an unchanged kernel loads it, not compiles it.

Compiling a small kernel costs about what running it does: a median file of the numba.cuda
corpus spends a third of its first launch reading, parsing and compiling its kernels.
``compiled`` stores a compilation (a ``Function``: a tree of closures) in the cache folder
(``cachedir``, under ``kernels/``) as a pickle, and loads it back for the same kernel in a
later process (c06's kernel: 0.42 ms to compile warm, about 1 ms cold, 0.23 ms to load).
Storing costs more than compiling (0.6-1.4 ms a kernel), so a kernel is stored the second
time a run compiles it unchanged: one being edited, compiled once per version, never pays
for it (docs/emulator.md, "The compile cache").

An entry is valid only while everything the compilation read is unchanged, which it records
as it compiles:

- the kernel's code and its file (``code_digest``: the bytecode, the file's size and time),
  its argument types and parameter defaults;
- every name the compiler looked up in a function's globals and closure variables (the
  kernel's and each device function's it inlined), found or not, with a digest of its value
  (``digest``): numbers, strings, dtypes and numpy arrays by value, modules and library
  functions by name, device functions by their code (their own names are recorded in turn);
- warpscope's own code (the emulator's files' sizes and times), numpy's version and the
  interpreter (``version_key``: the entry's file name).

A value the digest cannot vouch for (an instance of the user's own class, a device array the
kernel captures by reference, a module of the user's) leaves that kernel uncached: it is
compiled every run, as before. So does anything in the compiled tree that cannot be stored
faithfully (``Uncacheable``). Closures are stored as their code (by reference: the module
and name of warpscope's function that holds it), their variables' values and their
attributes; warpscope's module-level objects by reference. ``WARPSCOPE_COMPILE_CACHE=0``
switches it off; generated code (``codegen``) is never stored.

The entries stay within ``WARPSCOPE_COMPILE_CACHE_MB`` (64 MiB: ~5,000 small kernels): a
kernel moved to another line, or an older warpscope's, leaves its entry behind, so a store
that takes its subfolder past its share removes the least recently used there (``_trim``;
a load refreshes an entry's time).

Written here, not taken from a library: cloudpickle stores closures, but by value (their
code marshalled, their modules' globals copied), which costs what compiling does and breaks
the identity of warpscope's shared objects; no library records what a compilation read.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import pickle
import sys
import time
import types
import weakref
from collections import ChainMap, Counter
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

from warpscope.emulator.cachedir import cache_dir, write_atomically
from warpscope.emulator.compiler import codegen
from warpscope.emulator.ir import Function, described
from warpscope.emulator.source import environment

#: ``WARPSCOPE_COMPILE_CACHE=0``: compile every kernel in every run
SWITCH_ENV = "WARPSCOPE_COMPILE_CACHE"
#: the entries' layout; a new one makes every entry a miss
FORMAT = 1
#: the largest array an entry holds (a global array a kernel froze): larger ones make the
#: entry cost more to read than compiling does to copy them
ARRAY_LIMIT = 1 << 20

#: ``WARPSCOPE_COMPILE_CACHE_MB``: the most the entries and notes may take, in MiB
LIMIT_ENV = "WARPSCOPE_COMPILE_CACHE_MB"
LIMIT_MB = 64.0
#: the entries' subfolders (their names' first two hex digits): each holds its share of the
#: limit, so a store looks at the few files of one (a hash spreads entries evenly)
SUBFOLDERS = 256

_PACKAGE = Path(__file__).resolve().parent.parent  # warpscope/emulator/
#: modules whose objects a kernel may name and an entry may hold: a library's, not the user's
_LIBRARIES = (
    "numpy",
    "math",
    "cmath",
    "numba",
    "warpscope",
    "operator",
    "_operator",
    "builtins",
    "functools",
    "ast",
)


class Uncacheable(Exception):
    """What a compilation read or built cannot be stored faithfully: compile it each run."""


def enabled() -> bool:
    return os.environ.get(SWITCH_ENV, "").strip() != "0" and not codegen.enabled()


def compiled(fn: Callable[..., Any], arg_types: tuple[Any, ...], build: Callable[[], Function]) -> Function:
    """``build()``, or the ``Function`` a past run stored for ``fn`` with ``arg_types`` and
    the same inputs. A compilation is stored the second time a run compiles the same kernel
    (storing costs 2-4 times what compiling does: a kernel being edited, compiled once per
    version, never pays it); the first time leaves a note of the kernel's code (``.seen``),
    and a tree found not to store faithfully is noted so (later runs do not try again)."""
    if not enabled() or not isinstance(fn, types.FunctionType):
        return build()
    try:
        path = _entry_path(fn, arg_types)
    except Exception:  # Uncacheable, or anything the cache did not foresee: compile, as before
        path = None
    if path is not None:
        loaded = _load(path, fn)
        if loaded is not None:
            counts["loaded"] += 1
            return loaded
    reads = Reads()
    token = _recording.set(reads)
    try:
        function = build()
    finally:
        _recording.reset(token)
    counts["compiled"] += 1
    if path is None or not reads.cacheable:
        counts["uncacheable"] += 1
        return function
    note = _note(path, fn)
    if note == "new":
        counts["seen"] += 1
    elif note == "seen" and _store(path, fn, reads, function):
        counts["stored"] += 1
    else:
        counts["uncacheable"] += 1
        if note == "seen":  # its tree cannot be stored: later runs do not try again
            _write_note(path.with_suffix(".seen"), b"refused " + repr(code_digest(fn)).encode())
    return function


#: this process's kernels by what became of them: ``loaded`` from an entry, or ``compiled``
#: and then ``seen`` (noted: a first compilation), ``stored``, or ``uncacheable`` (their
#: inputs or tree cannot be stored faithfully)
counts: Counter[str] = Counter()


# -- what a compilation read -------------------------------------------------------------


class Reads:
    """The names one compilation looked up, per function, in lookup order: (the function's
    key, the name, the digest of its value or ``ABSENT``)."""

    def __init__(self) -> None:
        self.items: list[tuple[tuple[str, str, int], str, Any]] = []
        self.seen: set[tuple[tuple[str, str, int], str]] = set()
        self.cacheable = True

    def add(self, owner: tuple[str, str, int], name: str, found: bool, value: Any) -> None:
        if (owner, name) in self.seen:
            return
        self.seen.add((owner, name))
        try:
            self.items.append((owner, name, digest(value) if found else ABSENT))
        except Exception:  # Uncacheable, or a value no digest foresaw: never the compile's failure
            self.cacheable = False


#: the compilation being recorded (None: none)
_recording: ContextVar[Reads | None] = ContextVar("warpscope_compile_reads", default=None)
ABSENT = ("absent",)


def recorded_environment(fn: Any, env: ChainMap[str, Any]) -> Mapping[str, Any]:
    """``env`` (a function's names, as the compiler sees them) that records each lookup into
    the compilation being recorded, if one is; else ``env`` itself."""
    reads = _recording.get()
    if reads is None:
        return env
    if getattr(fn, "__warpscope_source__", None) is not None or not isinstance(fn, types.FunctionType):
        reads.cacheable = False  # an inner function: its parent's source and names
        return env
    if (fn.__module__ or "").startswith("warpscope."):
        return env  # warpscope's own device functions (random's): its code is the entry's key
    return _Recording(env, _owner_key(fn), reads)


class _Recording(Mapping[str, Any]):
    """A function's names that tell ``Reads`` of every lookup."""

    def __init__(self, env: ChainMap[str, Any], owner: tuple[str, str, int], reads: Reads) -> None:
        self.env, self.owner, self.reads = env, owner, reads

    def __getitem__(self, name: str) -> Any:
        try:
            value = self.env[name]
        except KeyError:
            self.reads.add(self.owner, name, False, None)
            raise
        self.reads.add(self.owner, name, True, value)
        return value

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        self.reads.cacheable = False  # every name: not a lookup an entry can replay
        return iter(self.env)

    def __len__(self) -> int:
        return len(self.env)


def _owner_key(fn: types.FunctionType) -> tuple[str, str, int]:
    code = fn.__code__
    return (code.co_filename, code.co_qualname, code.co_firstlineno)


# -- digests -------------------------------------------------------------------------------

#: per code object: its bytecode's hash (a function's code never changes)
_CODE_HASHES: weakref.WeakKeyDictionary[types.CodeType, bytes] = weakref.WeakKeyDictionary()


def code_digest(fn: types.FunctionType) -> tuple[Any, ...]:
    """A function's code and its file as they are now: the bytecode (names, constants, line
    numbers), and the file's size and modification time (its text: comments, what reports
    quote)."""
    code = fn.__code__
    hashed = _CODE_HASHES.get(code)
    if hashed is None:
        h = hashlib.blake2b(digest_size=16)
        _hash_code(h, code)
        hashed = _CODE_HASHES[code] = h.digest()
    try:
        st = os.stat(code.co_filename)
    except OSError:
        raise Uncacheable(f"{code.co_filename}: no file") from None
    return (code.co_filename, st.st_size, st.st_mtime_ns, hashed, digest(fn.__defaults__))


def _hash_code(h: Any, code: types.CodeType) -> None:
    """Feed a code object to ``h`` as the same bytes in every process (``marshal``'s are not:
    they depend on reference counts, and a set constant's order on the string hash seed)."""
    h.update(code.co_code)
    h.update(code.co_linetable)
    h.update(code.co_exceptiontable)
    fields = (
        code.co_argcount,
        code.co_posonlyargcount,
        code.co_kwonlyargcount,
        code.co_flags,
        code.co_firstlineno,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_qualname,
    )
    h.update(repr(fields).encode())
    for const in code.co_consts:
        _hash_constant(h, const)


def _hash_constant(h: Any, const: Any) -> None:
    if isinstance(const, types.CodeType):
        h.update(b"(code")
        _hash_code(h, const)
        h.update(b")")
    elif isinstance(const, (tuple, frozenset)):
        h.update(b"(tuple" if isinstance(const, tuple) else b"(set")
        items = const if isinstance(const, tuple) else sorted(const, key=repr)
        for item in items:
            _hash_constant(h, item)
        h.update(b")")
    else:
        h.update(f"{type(const).__name__}:{const!r};".encode())


def digest(value: Any) -> Any:
    """A value a compilation read, as plain data equal for equal inputs to the compiler
    (``Uncacheable`` where it cannot say)."""
    kind = type(value)
    if value is None or kind in (bool, int, float, complex, str, bytes):
        return (kind.__name__, repr(value))
    if kind is tuple:
        return ("tuple", tuple(digest(v) for v in value))
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.descr, value.tobytes())
    if isinstance(value, np.dtype):
        return ("dtype", value.descr, value.str)
    if isinstance(value, np.ndarray):
        if callable(getattr(value, "copy_to_host", None)):
            raise Uncacheable("a device array: kernels read it by reference")
        data = np.ascontiguousarray(value)
        return (
            "array",
            value.dtype.descr,
            value.shape,
            hashlib.blake2b(data.tobytes(), digest_size=16).digest(),
        )
    known = _NAMED_DIGESTS.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    if isinstance(value, types.ModuleType):
        return _named_digest(value, ("module", _library(value.__name__)))
    owner = _compiled_function(value)
    if owner is not None:
        signature = getattr(value, "signature", None)
        return ("function", type(value).__qualname__, code_digest(owner), repr(signature))
    if isinstance(value, (types.BuiltinFunctionType, types.FunctionType, type, np.ufunc)):
        module = getattr(value, "__module__", None) or "builtins"
        return _named_digest(
            value, ("named", _library(module), getattr(value, "__qualname__", value.__name__))
        )
    if type(value).__module__.startswith(("numba.", "warpscope.")):
        named = ("object", _library(type(value).__module__), type(value).__qualname__, _named(value))
        return _named_digest(value, named)
    raise Uncacheable(f"a {type(value).__name__}")


#: digests of library objects (modules, functions and types by name, numba's and warpscope's
#: named objects) by identity, with the object: a name's value never changes what it says,
#: and most kernels read the same few (``cuda``, ``np``, ``float32``)
_NAMED_DIGESTS: dict[int, tuple[Any, Any]] = {}
_NAMED_DIGESTS_KEPT = 4096


def _named_digest(value: Any, said: Any) -> Any:
    if len(_NAMED_DIGESTS) >= _NAMED_DIGESTS_KEPT:
        _NAMED_DIGESTS.clear()
    _NAMED_DIGESTS[id(value)] = (value, said)
    return said


def _compiled_function(value: Any) -> types.FunctionType | None:
    """The Python function the compiler compiles where a kernel calls ``value`` (a device
    function, a numba ``@njit`` function, a kernel named in a kernel), if it is one."""
    from warpscope.emulator.functions import JitFunction

    if isinstance(value, JitFunction) or type(value).__module__.startswith("numba."):
        py_func = getattr(value, "py_func", None)
        if isinstance(py_func, types.FunctionType):
            return py_func
    if isinstance(value, types.FunctionType) and not (value.__module__ or "").startswith(_LIBRARIES):
        return value
    return None


def _library(module: str) -> str:
    if module.split(".")[0] not in _LIBRARIES:
        raise Uncacheable(f"module {module}")
    return module


def _named(value: Any) -> str:
    """The name a library object has (``cuda``, ``cuda.shared``, numba's ``float32``):
    objects of one type told apart (their repr may hold an address)."""
    if type(value).__module__.startswith("numba."):
        return str(value)  # numba's types: their name is the type (float32, int64)
    if not _LIBRARY_OBJECTS:
        for module in _HOMES:  # in this order, whatever else is imported: one name each
            for name, obj in vars(_module(module)).items():
                _LIBRARY_OBJECTS.setdefault(id(obj), (f"{module}:{name}", obj))
                if type(obj).__module__.startswith("warpscope.") and hasattr(obj, "__dict__"):
                    for attr, inner in vars(obj).items():  # cuda.shared, cuda.atomic, ...
                        _LIBRARY_OBJECTS.setdefault(id(inner), (f"{module}:{name}.{attr}", inner))
    found = _LIBRARY_OBJECTS.get(id(value))
    if found is None or found[1] is not value:
        raise Uncacheable(f"an unnamed {type(value).__qualname__}")
    return found[0]


#: where the objects a kernel may name live (``cuda`` and its namespaces)
_HOMES = ("warpscope.emulator.api", "warpscope.emulator.device_api")
#: id of those modules' objects -> ("module:name", the object)
_LIBRARY_OBJECTS: dict[int, tuple[str, Any]] = {}


def _warpscope_modules() -> list[types.ModuleType]:
    return [m for n, m in list(sys.modules.items()) if n.startswith("warpscope.emulator") and m is not None]


# -- entries -------------------------------------------------------------------------------

_VERSION: list[str] = []


def version_key() -> str:
    """warpscope's emulator as installed (each file's path, size and time), numpy's version
    and the interpreter: a change to any makes every entry a miss."""
    if not _VERSION:
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{FORMAT}\n{sys.implementation.cache_tag}\n{np.__version__}\n".encode())
        for folder in sorted({_PACKAGE, *(p for p in _PACKAGE.iterdir() if p.is_dir())}):
            for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                if entry.name.endswith(".py"):
                    st = entry.stat()
                    h.update(f"{entry.path}\n{st.st_size}\n{st.st_mtime_ns}\n".encode())
        _VERSION.append(h.hexdigest())
    return _VERSION[0]


def _entry_path(fn: types.FunctionType, arg_types: tuple[Any, ...]) -> Path | None:
    """Where the entry of ``fn`` compiled for ``arg_types`` lies (None: it cannot have one)."""
    if fn.__code__.co_filename.startswith("<"):
        return None
    for t in arg_types:  # (dtype, ndim) of an array, a scalar's dtype or Python type
        parts = t if isinstance(t, tuple) else (t,)
        for p in parts:
            if not isinstance(p, (np.dtype, int)) and p not in (int, float, bool, complex):
                raise Uncacheable(f"an argument of type {p!r}")
    key = hashlib.blake2b(digest_size=16)
    types_text = ",".join(map(_type_text, arg_types))
    key.update(f"{version_key()}\n{_owner_key(fn)}\n{types_text}\n{_closure_digest(fn)!r}".encode())
    name = key.hexdigest()
    folder = _kernels_folder(*map(os.environ.get, ("WARPSCOPE_CACHE", "XDG_CACHE_HOME", "HOME")))
    return folder / f"{name[:2]}/{name}.pkl"  # one join (a path's join costs as much as the hash)


@functools.lru_cache(maxsize=256)
def _type_text(t: Any) -> str:
    """An argument type as the entry's key names it: a plain dtype by its short code (``<f4``:
    its repr costs 5 µs, and a kernel's first launch pays it per argument); once per type."""
    if isinstance(t, tuple):
        return f"({','.join(map(_type_text, t))})"
    if isinstance(t, np.dtype) and t.fields is None and t.subdtype is None and t.metadata is None:
        return t.str
    return repr(t)


@functools.lru_cache(maxsize=4)
def _kernels_folder(*cache_settings: str | None) -> Path:
    """The entries' folder, by the settings ``cache_dir`` reads (it costs more to work out)."""
    return cache_dir() / "kernels"


def _closure_digest(fn: types.FunctionType) -> tuple[Any, ...]:
    """The values a kernel made by a factory captured (its factory's arguments): kernels of
    one factory with different values get entries of their own."""
    out = []
    for cell in fn.__closure__ or ():
        try:
            out.append(digest(cell.cell_contents))
        except (Uncacheable, ValueError):
            out.append(None)  # the entry's reads check it
    return tuple(out)


def _load(path: Path, fn: types.FunctionType) -> Function | None:
    """The entry at ``path`` if every input it recorded is still what it was."""
    try:
        with open(path, "rb", buffering=0) as file:
            data = file.readall()
            used = os.fstat(file.fileno()).st_mtime
    except OSError:
        return None
    try:
        stream = io.BytesIO(data)
        form, kernel, reads = pickle.load(stream)
        if form != FORMAT or kernel != code_digest(fn) or not _still(fn, reads):
            return None
        function = pickle.load(stream)  # a pickle of its own (its own memo) after the header
    except Exception:  # damaged, or written by an older warpscope: compile
        return None
    if not isinstance(function, Function):
        return None
    if time.time() - used > TOUCH_AFTER_S:
        _touch(path)
    return function


#: an entry used within this many seconds is not marked used again (``_trim`` orders entries
#: by their times: a minute is fine enough, and a load then writes nothing)
TOUCH_AFTER_S = 60.0


def _touch(path: Path) -> None:
    """Mark an entry used now: ``_trim`` removes the least recently used first."""
    with contextlib.suppress(OSError):  # a read-only cache: never trimmed either
        os.utime(path)


def _still(fn: types.FunctionType, reads: list[tuple[Any, str, Any]]) -> bool:
    """Whether each name the compilation read has the value it had, in each function it read
    it in (the kernel, and each function it reached through its names)."""
    functions = {_owner_key(fn): fn}
    environments: dict[Any, ChainMap[str, Any]] = {}
    for owner, name, was in reads:
        function = functions.get(owner)
        if function is None:
            return False
        env = environments.get(owner)
        if env is None:
            env = environments[owner] = environment(function)
        if name not in env:
            if was != ABSENT:
                return False
            continue
        value = env[name]
        if was == ABSENT or digest(value) != was:
            return False
        inner = _compiled_function(value)
        if inner is not None:
            functions.setdefault(_owner_key(inner), inner)
    return True


def _note(path: Path, fn: types.FunctionType) -> str:
    """What a past run found of this kernel's code as it is now, from its note at ``path``'s
    ``.seen``: ``"new"`` (no note, or of other code: one is written now), ``"seen"`` (compiled
    once: store it) or ``"refused"`` (its tree could not be stored: do not try again)."""
    note = path.with_suffix(".seen")
    try:
        mark = repr(code_digest(fn)).encode()
    except Uncacheable:
        return "refused"
    try:
        found = note.read_bytes()
    except OSError:
        found = b""
    if found == mark:
        return "seen"
    if found == b"refused " + mark:
        return "refused"
    _write_note(note, mark)
    return "new"


def _write_note(note: Path, text: bytes) -> None:
    try:
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_bytes(text)
    except OSError:
        pass  # a read-only cache: nothing stored, ever


def _store(path: Path, fn: types.FunctionType, reads: Reads, function: Function) -> bool:
    """Write the entry (True), or nothing where the tree cannot be stored faithfully."""
    try:
        buffer = io.BytesIO()
        pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump((FORMAT, code_digest(fn), reads.items))
        _Pickler(buffer).dump(function)
    except Exception:  # Uncacheable, or an object pickle refuses: compiled each run, as before
        return False
    try:
        write_atomically(path, buffer.getvalue())
    except OSError:
        return False  # a read-only cache: compiled each run
    _trim(path.parent, path)
    return True


def limit_bytes() -> int:
    """The most the entries and notes may take on disk (``WARPSCOPE_COMPILE_CACHE_MB``)."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    try:
        megabytes = float(text) if text else LIMIT_MB
    except ValueError:
        megabytes = LIMIT_MB
    return max(0, int(megabytes * (1 << 20)))


def _trim(folder: Path, keep: Path) -> None:
    """Where ``folder`` (one subfolder of ``kernels/``) holds more than its share of
    ``limit_bytes``, remove its least recently used entries and notes (by their times: a load
    refreshes an entry's) down to three quarters of the share, never ``keep`` (just stored)."""
    share = limit_bytes() // SUBFOLDERS
    found: list[tuple[int, str, int]] = []  # (time, path, size)
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith((".pkl", ".seen")):
                    st = entry.stat()
                    found.append((st.st_mtime_ns, entry.path, st.st_size))
    except OSError:
        return
    total = sum(size for _, _, size in found)
    if total <= share:
        return
    for _, name, size in sorted(found):
        if total <= share * 3 // 4:
            break
        if name == str(keep):
            continue
        try:
            os.remove(name)
        except OSError:
            continue  # another process removed it, or may not
        total -= size


# -- the compiled tree as a pickle ---------------------------------------------------------


class _Pickler(pickle.Pickler):
    """A ``Function``'s closures by their code's name and their variables; warpscope's
    module-level objects by reference; the user's objects refused (``Uncacheable``)."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._globals: dict[str, _Globals] = {}
        modules = _warpscope_modules()
        if len(modules) != _INDEXED[0]:  # warpscope's modules imported since: theirs too
            _index_module_objects(modules)
            _INDEXED[0] = len(modules)

    def reducer_override(self, obj: Any) -> Any:
        path = _module_level(obj)
        if path is not None:
            return _module_object, path
        kind = type(obj)
        if kind in (_ModuleObject, _Globals, _Module):
            return NotImplemented
        if kind is types.CellType:
            try:
                return types.CellType, (_shared(obj.cell_contents),)
            except ValueError:
                raise Uncacheable("a closure variable never assigned") from None
        if obj is types.FunctionType or obj is types.CellType:
            return _builtin_type, (obj.__name__,)
        if kind is types.FunctionType:
            if "<" not in obj.__qualname__:
                if not (obj.__module__ or "").startswith(_LIBRARIES):
                    raise Uncacheable(f"the user's function {obj.__qualname__}")
                return NotImplemented  # by reference
            return self._closure(obj)
        if isinstance(obj, types.CodeType):
            return _CODE, (_code_key(obj),)
        if isinstance(obj, types.ModuleType):
            return _module, (_library(obj.__name__),)
        if isinstance(obj, type):
            _library(obj.__module__ or "")
            return NotImplemented  # by reference
        if isinstance(obj, np.ndarray) and obj.nbytes > ARRAY_LIMIT:
            raise Uncacheable(f"a global array of {obj.nbytes:,} bytes (compiling copies it faster)")
        if isinstance(obj, BaseException):  # an error kept to raise when it runs: its own arguments
            raise Uncacheable(f"a {kind.__qualname__} kept to raise")
        if isinstance(obj, _AST):
            return str, (described(obj),)  # what errors quote of it, all that runs reads
        module = kind.__module__
        if not module.startswith(_LIBRARIES) or module.startswith("warpscope.emulator.compiler"):
            raise Uncacheable(f"a {kind.__qualname__}")
        by_reference = module == "warpscope.emulator.arrays" and kind.__name__ in (
            "GlobalArray",
            "Allocation",
        )
        if by_reference or callable(getattr(obj, "copy_to_host", None)):
            raise Uncacheable("an array the kernel reads by reference")
        return NotImplemented

    def _closure(self, fn: types.FunctionType) -> Any:
        """A closure rebuilt by ``FunctionType`` itself (C, no Python call per closure): its
        code, its module's globals, its cells, and its attributes but those only compiling
        reads (``COMPILE_ONLY``: a loaded tree is only run)."""
        module = fn.__module__ or ""
        if not module.startswith("warpscope."):
            raise Uncacheable(f"the user's function {fn.__qualname__}")
        state = {k: _shared(v) for k, v in fn.__dict__.items() if k not in COMPILE_ONLY}
        globals_ = self._globals.get(module)
        if globals_ is None:  # one object per module: pickled once, referred to after
            globals_ = self._globals[module] = _Globals(module)
        args = (fn.__code__, globals_, fn.__name__, fn.__defaults__, fn.__closure__)
        return types.FunctionType, args, state or None


#: a closure's attributes that only compiling reads, left out of an entry: its value slots
#: (``ir.with_deps``: the instructions' sources) and how generated code writes it (``gen``,
#: and ``at_line``'s ``inner`` and ``at``: codegen's, which is never stored or loaded)
COMPILE_ONLY = frozenset({"deps", "gen", "inner", "at"})


class _Globals:
    """Stands for a module's globals in an entry (a closure's): the module's own dict."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __reduce__(self) -> Any:
        return getattr, (_Module(self.module), "__dict__")


class _Module:
    def __init__(self, name: str) -> None:
        self.name = name

    def __reduce__(self) -> Any:
        return _module, (self.name,)


class _ModuleObject:
    """Stands for one of warpscope's module-level objects in an entry (a dict or list would
    be copied otherwise: pickle asks no reducer of those)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __reduce__(self) -> Any:
        return _module_object, (self.module, self.name)


def _shared(value: Any) -> Any:
    path = _module_level(value)
    return value if path is None else _ModuleObject(*path)


_AST = __import__("ast").AST


#: id of each object at warpscope's modules' top level -> (module, name, the object)
_MODULE_OBJECTS: dict[int, tuple[str, str, Any]] = {}
#: how many of warpscope's modules ``_MODULE_OBJECTS`` has indexed
_INDEXED = [0]


def _index_module_objects(modules: list[types.ModuleType]) -> None:
    """warpscope's module-level objects: an entry names them, so a loaded kernel shares them
    (a cache a launch clears, a sentinel compared by identity) rather than holding a copy."""
    for module in modules:
        for name, obj in vars(module).items():
            if not isinstance(obj, _VALUES):
                _MODULE_OBJECTS.setdefault(id(obj), (module.__name__, name, obj))


#: what an entry holds by value (immutable: a copy is the same), or pickle names by itself
_VALUES = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    tuple,
    frozenset,
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
)


def _module_level(value: Any) -> tuple[str, str] | None:
    """Where one of warpscope's module-level objects is bound now (None: not one of them)."""
    path = _MODULE_OBJECTS.get(id(value))
    if path is None or path[2] is not value or getattr(sys.modules.get(path[0]), path[1], None) is not value:
        return None  # a name rebound since (a model loaded later): not what a load would find
    return path[0], path[1]


def _builtin_type(name: str) -> type:
    return {"function": types.FunctionType, "cell": types.CellType}[name]


def _module_object(module: str, name: str) -> Any:
    return getattr(_module(module), name)


def _module(name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
    return module


#: (module, qualified name, first line) -> the code objects of that name (several lambdas
#: may share a line), in a fixed order
_CODES: dict[tuple[str, str, int], list[types.CodeType]] = {}
#: a code object's file -> the warpscope module it belongs to
_MODULE_OF_FILE: dict[str, str] = {}


def _code_key(code: types.CodeType) -> tuple[str, str, int, int]:
    """Where a function's code is found again: its module, qualified name, first line, and
    which of the codes of that name on that line it is."""
    module = _MODULE_OF_FILE.get(code.co_filename)
    if module is None:
        found = [n for n, m in list(sys.modules.items()) if getattr(m, "__file__", None) == code.co_filename]
        if len(found) != 1 or not found[0].startswith("warpscope."):
            raise Uncacheable(f"code from {code.co_filename}")
        module = _MODULE_OF_FILE[code.co_filename] = found[0]
    candidates = _find_codes((module, code.co_qualname, code.co_firstlineno))
    for k, c in enumerate(candidates):
        if c is code:
            return (module, code.co_qualname, code.co_firstlineno, k)
    raise Uncacheable(f"code of {code.co_qualname} not found by its name")


class _Codes(dict[tuple[str, str, int, int], types.CodeType]):
    """``_code_key`` -> the code object: a loaded entry's every code by one lookup in C (a
    Python function's call per code cost a tenth of loading an entry); a key not looked up
    before is found by ``_find_codes``."""

    def __missing__(self, key: tuple[str, str, int, int]) -> types.CodeType:
        module, qualname, first, k = key
        candidates = _find_codes((module, qualname, first))
        if k >= len(candidates):
            raise LookupError(f"{module}: no {qualname} at line {first}")
        code = self[key] = candidates[k]
        return code


#: the code objects entries named so far; an entry calls its ``__getitem__`` (pickled as
#: that method of this object, named by reference) for each code
_CODES_BY_KEY = _Codes()
_CODE = _CODES_BY_KEY.__getitem__


def _find_codes(key: tuple[str, str, int]) -> list[types.CodeType]:
    """The code objects of a function (a closure: of the function that defines it) by its
    module, qualified name and first line: the name's path from the module (a function, or a
    class and its method), then into the code of each enclosing function: no index of the
    module to build. A lambda at the module's top level (a value in a table) is looked for
    in its tables."""
    found = _CODES.get(key)
    if found is not None:
        return found
    module, qualname, first = key
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    codes, inner = _outermost(_module(module), parts)
    for part in inner:  # a function defined inside the codes found so far: among their constants
        codes = [
            c
            for outer in codes
            for c in outer.co_consts
            if isinstance(c, types.CodeType) and c.co_name == part
        ]
    codes = [c for c in codes if c.co_qualname == qualname and c.co_firstlineno == first]
    _CODES[key] = codes
    return codes


def _outermost(module: types.ModuleType, parts: list[str]) -> tuple[list[types.CodeType], list[str]]:
    """The code of the module-level function (or class's method) a qualified name starts
    with, and the names of the functions defined inside it that lead to the one named."""
    obj = getattr(module, parts[0], None)
    if obj is None:
        return (_top_level_lambdas(module) if parts[0] == "<lambda>" else []), parts[1:]
    rest = parts[1:]
    if isinstance(obj, type) and rest:
        obj, rest = obj.__dict__.get(rest[0]), rest[1:]
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        elif isinstance(obj, property):
            obj = obj.fget
    return ([obj.__code__] if isinstance(obj, types.FunctionType) else []), rest


def _top_level_lambdas(module: types.ModuleType) -> list[types.CodeType]:
    """The code of the lambdas in the module's top-level tables (dicts, lists, tuples)."""
    out = []
    for value in list(vars(module).values()):
        items = (
            value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
        )
        out += [v.__code__ for v in items if isinstance(v, types.FunctionType) and v.__name__ == "<lambda>"]
    return out
