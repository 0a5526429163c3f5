"""The compile cache (``compiler/cache.py``): a kernel compiled in one run is loaded in the
next, and runs exactly as compiled — results, per-line counters, timing, faults — on every
corpus file and the seed workload, in the same process and in a fresh one; and an entry is
used only while everything its compilation read is unchanged."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from warpscope.emulator import EmulatorError
from warpscope.emulator.compiler import cache
from warpscope.emulator.kernel import Kernel, Settings, recording, using
from warpscope.emulator.workloads import seed

sys.path.insert(0, str(Path(__file__).parent))
from test_emulator_codegen import _assert_same

CORPUS = Path(__file__).parent / "numba_corpus"
sys.path.insert(0, str(CORPUS))
import harness  # noqa: E402  (the corpus's own runner, beside its files)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache_on(monkeypatch, tmp_path) -> Path:
    """The compile cache switched on (the suite runs with it off), in an empty folder."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("WARPSCOPE_CACHE", str(folder))
    monkeypatch.setenv(cache.SWITCH_ENV, "1")
    cache.counts.clear()
    return folder


def _entries(folder: Path) -> list[Path]:
    return sorted((folder / "kernels").glob("*/*.pkl"))


def _run(run) -> tuple[object, list[Any]]:  # type: ignore[no-untyped-def]
    with recording() as launches:
        try:
            out = run()
        except Exception as e:  # a fault is part of what the kernel did
            out = f"{type(e).__name__}: {e}"
    return out, launches


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in harness.corpus_files()])
def test_every_corpus_file_runs_loaded_as_it_runs_compiled(monkeypatch, cache_on, path):
    with using(Settings(timing=True)):
        monkeypatch.setenv(cache.SWITCH_ENV, "0")
        compiled = _run(lambda: harness.run_warpscope(path))
        monkeypatch.setenv(cache.SWITCH_ENV, "1")
        # stored at its first compilation (the note's rule has tests of its own), untimed: what
        # is compiled does not depend on timing
        with using(Settings(timing=False)), monkeypatch.context() as m:
            m.setattr(cache, "_note", lambda path, fn: "seen")
            storing = _run(lambda: harness.run_warpscope(path))
        stored = cache.counts["stored"]
        loading = _run(lambda: harness.run_warpscope(path))
    _assert_same((compiled[0], []), (storing[0], []))  # its outputs (it ran untimed)
    _assert_same(compiled, loading)
    assert len(_entries(cache_on)) == stored
    assert cache.counts["loaded"] == stored  # every kernel stored was loaded the second time
    if compiled[1] and path.stem not in _NOT_STORED:
        assert stored, "a corpus file's kernels are stored"


#: corpus files none of whose kernels is stored, and why
_NOT_STORED = {
    "c57_issue39_semantics": "its kernels read device arrays by reference",
    "c83_issue39_recursion_raise": "a recursive device function (the user's function in the tree)",
    "c82_issue39_more_forms": "numpy.vectorize's ufunc, made at compile time",
    "c78_issue39_learner_forms": "an error kept to raise where a line runs (print of a value)",
    "c79_enccs_ufuncs_gpu": "numba.vectorize's kernels: made by warpscope at run time, no file",
    "c80_ug_ufunc_examples": "numba.vectorize's kernels: made by warpscope at run time, no file",
}


def test_the_seed_workload_runs_loaded_as_it_runs_compiled(monkeypatch, cache_on):
    kernels = [k for k in vars(seed).values() if isinstance(k, Kernel)]

    def fresh() -> dict[str, np.ndarray]:
        for k in kernels:
            k._compiled.clear()
        seed.main(256)
        return {}

    with using(Settings(timing=True)):
        monkeypatch.setenv(cache.SWITCH_ENV, "0")
        compiled = _run(fresh)
        monkeypatch.setenv(cache.SWITCH_ENV, "1")
        with using(Settings(timing=False)):
            _run(fresh)
            _run(fresh)
        before = cache.counts.copy()
        loading = _run(fresh)
    assert cache.counts["compiled"] == before["compiled"]  # nothing compiled: every kernel loaded
    assert cache.counts["loaded"] - before["loaded"] >= len(kernels) - 2
    assert len(loading[1]) == seed.LAUNCHES
    _assert_same(compiled, loading)


CHILD = """
import hashlib, json, sys
sys.path.insert(0, {corpus!r}); sys.path.insert(0, {tests!r})
import harness
from test_emulator_codegen import _what_it_did
from warpscope.emulator import EmulatorError
from warpscope.emulator.compiler import cache
from warpscope.emulator.kernel import Settings, recording, using
from warpscope.emulator.workloads import seed
out = {{}}
with using(Settings(timing=sys.argv[1] == "timed")):
    for stem in {stems!r}:
        with recording() as launches:
            if stem == "seed":
                seed.main(256)
                arrays = {{}}
            else:
                arrays = harness.run_warpscope(harness.HERE / (stem + ".py"))
        what = [repr(_what_it_did(l)) for l in launches]
        what += [repr((k, v.tobytes(), v.dtype.str)) for k, v in sorted(arrays.items())]
        out[stem] = hashlib.sha1("\\n".join(what).encode()).hexdigest()
print(json.dumps({{"results": out, "counts": dict(cache.counts)}}))
"""

#: the seed's kernels and corpus files of every kind of closure: shared and local arrays,
#: device functions, atomics, warp intrinsics, factories, constant arrays, grid sync
STEMS = [
    "seed",
    "c05_capture_global_array",
    "c06_numba_type_names",
    "c13_device_function_shape_argument",
    "c21_warp_votes",
    "c24_grid_sync",
    "c29_shared_reduction_atomic",
    "c42_constant_memory",
    "c44_shuffle_scan",
    "c53_closure_capture",
    "c78_issue39_learner_forms",
]


def test_a_fresh_process_loads_what_another_stored(tmp_path):
    def child(switch: str, timed: bool = True) -> dict[str, Any]:
        script = CHILD.format(corpus=str(CORPUS), tests=str(Path(__file__).parent), stems=STEMS)
        env = {
            **{k: v for k, v in __import__("os").environ.items() if k != cache.SWITCH_ENV},
            "WARPSCOPE_CACHE": str(tmp_path),
            cache.SWITCH_ENV: switch,
            "PYTHONPATH": str(ROOT),
        }
        done = subprocess.run(
            [sys.executable, "-c", script, "timed" if timed else "untimed"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    off = child("0")
    noting = child("1", timed=False)  # what is compiled does not depend on timing
    storing = child("1", timed=False)
    loading = child("1")
    assert off["counts"] == {} and off["results"] != {}
    first, second, third = (c["counts"] for c in (noting, storing, loading))
    assert first["seen"] >= 25 and "loaded" not in first  # the first run notes each kernel
    # the second stores each (or finds the tree refused); the third compiles none it stored
    assert "seen" not in second and second["compiled"] == second["stored"] + second.get("uncacheable", 0)
    assert second["stored"] >= 25 and second.get("uncacheable", 0) - first.get("uncacheable", 0) <= 1
    assert third["compiled"] == third.get("uncacheable", 0) == second.get("uncacheable", 0)
    assert third["loaded"] == second["stored"] + second.get("loaded", 0) and "stored" not in third
    assert noting["results"] == storing["results"]
    assert loading["results"] == off["results"]


def _module(path: Path, name: str) -> types.ModuleType:
    """``path`` imported afresh as ``name`` (new function objects: what a new process has)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_imports = [0]


def _fresh(path: Path) -> types.ModuleType:
    _imports[0] += 1
    return _module(path, f"_cache_test_{path.stem}_{_imports[0]}")


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


KERNEL = """
import math
import numpy as np
from warpscope.emulator import cuda

SCALE = 2.0
TABLE = np.array([1.0, 10.0, 100.0])


@cuda.jit
def scaled(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = min(a[i] * SCALE, 50.0) + TABLE[i % 3]


def main():
    a = np.arange(8, dtype=np.float64)
    out = np.zeros_like(a)
    scaled[1, 32](out, a)
    return out
"""


def _expected(scale: float, table: list[float], pick=min) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.array([pick(i * scale, 50.0) + table[i % 3] for i in range(8)])


def test_an_unchanged_kernel_is_loaded_and_a_changed_global_compiles_again(cache_on, tmp_path):
    path = _write(tmp_path / "kern.py", KERNEL)
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts == {"compiled": 1, "seen": 1}  # compiled once: noted, not stored
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts == {"compiled": 2, "seen": 1, "stored": 1}  # the second time: stored
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 1
    changed = _fresh(path)
    changed.SCALE = 3.0  # the same file, a global the kernel froze holds another value
    assert np.array_equal(changed.main(), _expected(3.0, [1, 10, 100]))
    assert cache.counts["compiled"] == 3
    table = _fresh(path)
    table.TABLE = np.array([1.0, 10.0, 1000.0])  # an array's contents
    assert np.array_equal(table.main(), _expected(2.0, [1, 10, 1000]))
    assert cache.counts["compiled"] == 4
    shadowed = _fresh(path)
    shadowed.min = max  # a name the kernel found among the builtins now a global
    assert np.array_equal(shadowed.main(), _expected(2.0, [1, 10, 100], max))
    assert cache.counts["compiled"] == 5
    # one entry per kernel and argument types: the last compilation stored (the shadowed one)
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 1 and cache.counts["compiled"] == 6
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 2


def test_an_edited_kernel_compiles_again(cache_on, tmp_path):
    path = _write(tmp_path / "kern.py", KERNEL)
    _fresh(path).main()
    _fresh(path).main()  # stored
    _write(path, KERNEL.replace("a[i] * SCALE", "a[i] * SCALE + 0.5"))
    assert np.array_equal(
        _fresh(path).main(),
        _expected(2.0, [1, 10, 100]) + np.array([0.5 if i * 2.0 + 0.5 < 50 else 0.0 for i in range(8)]),
    )
    assert cache.counts["compiled"] == 3 and "loaded" not in cache.counts
    _fresh(path).main()  # the edited kernel's second compilation replaces the entry
    _fresh(path).main()
    assert cache.counts["loaded"] == 1


def test_a_loaded_kernel_faults_where_and_as_the_compiled_one_does(cache_on, tmp_path):
    path = _write(tmp_path / "kern.py", KERNEL.replace("out[i] = min(", "out[i + 1] = min("))
    faults = []
    for _ in range(3):  # compiled, compiled and stored, loaded
        with pytest.raises(EmulatorError) as caught:
            _fresh(path).main()
        faults.append(str(caught.value))
    assert cache.counts["loaded"] == 1
    assert faults[0] == faults[1] == faults[2]
    assert "kern.py:14: kernel scaled, block (0, 0, 0) thread (7, 0, 0)" in faults[2]


def test_a_device_function_in_another_file_is_followed(cache_on, tmp_path):
    helper = _write(
        tmp_path / "helpers.py",
        """
        from warpscope.emulator import cuda

        @cuda.jit(device=True)
        def twice(x):
            return x * 2
        """,
    )
    kernel = _write(
        tmp_path / "uses.py",
        """
        import numpy as np
        from helpers import twice
        from warpscope.emulator import cuda

        @cuda.jit
        def k(out):
            i = cuda.grid(1)
            out[i] = twice(i)

        def main():
            out = np.zeros(32)
            k[1, 32](out)
            return out
        """,
    )
    sys.path.insert(0, str(tmp_path))
    try:
        for _ in range(3):  # noted, stored, loaded
            sys.modules["helpers"] = _module(helper, "helpers")
            assert np.array_equal(_fresh(kernel).main(), np.arange(32) * 2)
        assert cache.counts["loaded"] == 1
        _write(helper, Path(helper).read_text().replace("x * 2", "x * 3"))
        sys.modules["helpers"] = _module(helper, "helpers")
        assert np.array_equal(_fresh(kernel).main(), np.arange(32) * 3)
        assert cache.counts["loaded"] == 1 and cache.counts["compiled"] == 3
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("helpers", None)


def test_kernels_of_one_factory_keep_an_entry_each(cache_on):
    path = CORPUS / "c53_closure_capture.py"
    first = harness.run_warpscope(path)
    harness.run_warpscope(path)
    second = harness.run_warpscope(path)
    assert cache.counts["stored"] == 2 and cache.counts["loaded"] == 2
    for k in first:
        assert np.array_equal(first[k], second[k])


def test_a_kernel_that_reads_a_device_array_by_reference_is_not_stored(cache_on, tmp_path):
    path = _write(
        tmp_path / "dev.py",
        """
        import numpy as np
        from warpscope.emulator import cuda

        LUT = cuda.to_device(np.arange(4.0))

        @cuda.jit
        def k(out):
            i = cuda.grid(1)
            out[i] = LUT[i % 4]

        def main():
            out = np.zeros(8)
            k[1, 8](out)
            return out
        """,
    )
    assert np.array_equal(_fresh(path).main(), np.arange(8) % 4)
    assert cache.counts == {"compiled": 1, "uncacheable": 1}
    assert _entries(cache_on) == []


def test_a_kernel_that_froze_a_large_global_array_is_not_stored(cache_on, tmp_path):
    path = _write(
        tmp_path / "big.py",
        KERNEL.replace(
            "TABLE = np.array([1.0, 10.0, 100.0])", "TABLE = np.tile([1.0, 10.0, 100.0], 100_000)"
        ),
    )
    for _ in range(3):
        assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts == {"compiled": 3, "seen": 1, "uncacheable": 2}
    assert _entries(cache_on) == []
    (note,) = (cache_on / "kernels").glob("*/*.seen")
    assert note.read_bytes().startswith(b"refused ")  # the third run did not pickle it again


def test_a_damaged_entry_is_compiled_again(cache_on, tmp_path):
    path = _write(tmp_path / "kern.py", KERNEL)
    _fresh(path).main()
    _fresh(path).main()
    (entry,) = _entries(cache_on)
    entry.write_bytes(entry.read_bytes()[: len(entry.read_bytes()) // 2])
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["compiled"] == 3 and cache.counts["stored"] == 2  # rewritten whole
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 1


def test_a_loaded_entry_is_marked_used(cache_on, tmp_path):
    """Loading an entry refreshes its time: the cache forgets the least recently used."""
    path = _write(tmp_path / "kern.py", KERNEL)
    _fresh(path).main()
    _fresh(path).main()
    (entry,) = _entries(cache_on)
    os.utime(entry, (1_000_000_000, 1_000_000_000))  # 2001
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 1 and entry.stat().st_mtime > time.time() - 600
    # used again within ``TOUCH_AFTER_S``: its time is fine as it is, nothing is written
    recent = int(time.time()) - 5
    os.utime(entry, (recent, recent))
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 2 and entry.stat().st_mtime == recent


def test_a_store_keeps_its_subfolder_within_its_share_of_the_limit(monkeypatch, cache_on, tmp_path):
    """Entries left behind (a kernel moved to another line, an older warpscope's) are removed
    by a later store into their subfolder once it holds more than its share of
    ``WARPSCOPE_COMPILE_CACHE_MB``, the least recently used first (a load refreshes an
    entry's time); the entry just stored stays, and loads."""
    path = _write(tmp_path / "kern.py", KERNEL)
    _fresh(path).main()  # noted: the note names the entry's subfolder
    (note,) = (cache_on / "kernels").glob("*/*.seen")
    stored_elsewhere = tmp_path / "other"
    monkeypatch.setenv("WARPSCOPE_CACHE", str(stored_elsewhere))
    _fresh(path).main()
    _fresh(path).main()  # a real entry of this kernel, to copy as the ones left behind
    (real,) = _entries(stored_elsewhere)
    monkeypatch.setenv("WARPSCOPE_CACHE", str(cache_on))
    size = real.stat().st_size
    left = []
    for k in range(6):  # oldest first, a day apart
        old = note.parent / f"{k:032x}.pkl"
        old.write_bytes(real.read_bytes())
        os.utime(old, (1_000_000_000 + k * 86_400,) * 2)
        left.append(old)
    cache._touch(left[0])  # the oldest, used since: now the newest of them
    share = 4 * size + 4096  # the subfolder's share: four entries, trimmed to three (and the note)
    monkeypatch.setenv(cache.LIMIT_ENV, str(share * cache.SUBFOLDERS / (1 << 20)))
    assert cache.limit_bytes() // cache.SUBFOLDERS == share
    cache.counts.clear()
    _fresh(path).main()  # the second compilation: stored, and the subfolder trimmed
    assert cache.counts["stored"] == 1
    kept = sorted(note.parent.iterdir())
    total = sum(f.stat().st_size for f in kept)
    assert total <= share * 3 // 4  # down to three quarters of the share
    assert len([f for f in kept if f.suffix == ".pkl" and f not in left]) == 1  # the one stored
    assert left[0] in kept and left[5] in kept  # used recently, and the newest left behind
    assert not any(f in kept for f in left[1:4])  # the least recently used went first
    assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts["loaded"] == 1  # what was stored stayed


def test_argument_types_name_their_entries_apart():
    """An entry's name holds its argument types: dtypes by their short code, records (same
    size, other fields) and sub-arrays in full."""
    texts = [
        cache._type_text(t)
        for t in (
            (np.dtype(np.float32), 1),
            (np.dtype(np.float32), 2),
            (np.dtype(">f4"), 1),
            np.dtype(np.int64),
            np.dtype(np.float64),
            np.dtype("datetime64[s]"),
            np.dtype("datetime64[ms]"),
            np.dtype([("x", "f4"), ("y", "f4")]),
            np.dtype([("y", "f4"), ("x", "f4")]),
            np.dtype(("f4", (2,))),
            int,
            float,
        )
    ]
    assert len(set(texts)) == len(texts)
    assert texts[0] == "(<f4,1)" and texts[3] == "<i8"


def test_the_limit_reads_megabytes_and_falls_back_on_nonsense(monkeypatch):
    monkeypatch.setenv(cache.LIMIT_ENV, "0.5")
    assert cache.limit_bytes() == 1 << 19
    monkeypatch.setenv(cache.LIMIT_ENV, "lots")
    assert cache.limit_bytes() == int(cache.LIMIT_MB * (1 << 20))
    monkeypatch.delenv(cache.LIMIT_ENV)
    assert cache.limit_bytes() == 64 << 20


def test_switched_off_or_generating_code_nothing_is_stored(monkeypatch, cache_on, tmp_path):
    path = _write(tmp_path / "kern.py", KERNEL)
    monkeypatch.setenv(cache.SWITCH_ENV, "0")
    _fresh(path).main()
    _fresh(path).main()
    monkeypatch.setenv(cache.SWITCH_ENV, "1")
    monkeypatch.setenv("WARPSCOPE_CODEGEN", "1")
    _fresh(path).main()
    _fresh(path).main()
    assert not (cache_on / "kernels").exists() and cache.counts == {}


def test_a_cache_folder_that_cannot_be_written_compiles_each_run(monkeypatch, cache_on, tmp_path):
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("WARPSCOPE_CACHE", str(blocked / "cache"))  # no folder can be made there
    path = _write(tmp_path / "kern.py", KERNEL)
    for _ in range(3):
        assert np.array_equal(_fresh(path).main(), _expected(2.0, [1, 10, 100]))
    assert cache.counts == {"compiled": 3, "seen": 3}


def _pairs(a: Any, b: Any, seen: set[int]) -> Any:
    """Walk a compiled tree and its loaded copy side by side: (original, copy) pairs."""
    if id(a) in seen:
        return
    seen.add(id(a))
    yield a, b
    if isinstance(a, types.FunctionType) and "<" in a.__qualname__:
        assert isinstance(b, types.FunctionType) and b.__code__ is a.__code__
        for ca, cb in zip(a.__closure__ or (), b.__closure__ or ()):
            yield from _pairs(ca.cell_contents, cb.cell_contents, seen)
        assert not cache.COMPILE_ONLY & b.__dict__.keys()  # what only compiling reads: left out
        for k, v in a.__dict__.items():
            if k not in cache.COMPILE_ONLY:
                yield from _pairs(v, b.__dict__[k], seen)
    elif type(a) in (list, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            yield from _pairs(x, y, seen)
    elif type(a) is dict and not any(type(k) is str and k.startswith("__") for k in a):
        for k in a:
            yield from _pairs(a[k], b[k], seen)
    elif type(a).__module__.startswith("warpscope.") and hasattr(a, "__dict__") and not isinstance(a, type):
        for k, v in vars(a).items():
            if k in vars(b):
                yield from _pairs(v, vars(b)[k], seen)


def test_warpscopes_module_level_objects_stay_shared_after_loading(monkeypatch, cache_on):
    """A loaded tree refers to warpscope's own module-level objects (tables, caches a launch
    clears, sentinels) where the compiled one does: never to copies of them."""
    monkeypatch.delenv("WARPSCOPE_CODEGEN", raising=False)
    kernels = [k for k in vars(seed).values() if isinstance(k, Kernel)]
    module_objects = {
        id(v): v
        for name, m in list(sys.modules.items())
        if name.startswith("warpscope.emulator") and m is not None
        for v in vars(m).values()
        if not isinstance(v, cache._VALUES)  # immutable values: a copy is the same
    }
    closures = 0
    for k in kernels:
        k._compiled.clear()  # (an earlier test may have left generated code there)
    seed.main(256)  # every kernel compiled
    for k in kernels:
        for arg_types, compiled in list(k._compiled.items()):
            path = cache._entry_path(k.py_func, arg_types)
            assert path is not None
            assert cache._store(path, k.py_func, cache.Reads(), compiled)
            loaded = cache._load(path, k.py_func)
            assert loaded is not None
            for a, b in _pairs(compiled, loaded, set()):
                if id(a) in module_objects and module_objects[id(a)] is a:
                    assert b is a, a
                closures += isinstance(a, types.FunctionType)
    assert closures > 500


def test_a_closure_over_a_module_level_table_gets_the_table_itself_back():
    import io
    import pickle

    from warpscope.emulator import arrays, ir

    table = arrays._LOWEST  # a dict each launch's loads consult and the launch clears
    closure = ir.run_expr(ir.Const(table))
    buffer = io.BytesIO()
    cache._Pickler(buffer).dump(closure)
    loaded = pickle.loads(buffer.getvalue())
    assert loaded.__code__ is closure.__code__
    assert loaded.__closure__[0].cell_contents is table
    assert loaded(None, None, None) is table


def test_library_objects_are_digested_by_name_and_unknown_objects_refused():
    assert cache.digest(math) == ("module", "math")
    assert cache.digest(math.sqrt) == ("named", "math", "sqrt")
    with pytest.raises(cache.Uncacheable):
        cache.digest(object())
