"""Emulator speed (issue 6 targets), side by side with numba's CUDA simulator.

One kernel source (the seed's withDivergence: 100-iteration sqrt loop on random data) is
written twice, differing only in its import (``from warpscope.emulator import cuda`` /
``from numba import cuda`` with NUMBA_ENABLE_CUDASIM=1), and each copy runs in a fresh
process. Prints:
  - warpscope at the seed size (4096 blocks x 256 threads): target <= 10 s;
  - numba's simulator at a size it finishes in under a minute, and warpscope at that same
    size: thread throughput ratio, target >= 100x.

  - with ``--baseline REF``: the same seed-size run on warpscope as of git commit REF
    (a temporary worktree), side by side: speed must not regress;
  - the timing model's cost: withDivergence and the seed workload with the timing model on
    and off, in process and as a user runs them (``warpscope emulate FILE`` against
    ``warpscope emulate FILE --no-timing``, process start to report written; target: on
    within 5x of off).

    python benchmarks/emulator_bench.py [--sim-blocks 1024] [--repeat 3] [--baseline REF]

``--corpus`` instead times every file of ``tests/numba_corpus`` (the real numba.cuda
files): each file's ``main()`` (first call: compilation included, racecheck on as
``warpscope emulate`` runs it) under numba's simulator (``NUMBA_ENABLE_CUDASIM=1``, the
imports switched back to numba's) and under warpscope with the timing model off
(``WARPSCOPE_TIMING=0``) and on, one process per engine, the engines alternated
``--repeat`` times (best kept per file), and prints the three side by side with the ratios
(targets: total >= 300x without timing and >= 100x with it, per-file median >= 50x / 20x,
no file slower than the simulator), the share of warpscope's untimed time spent compiling
kernels (in total and the per-file median), and which timing model the timed runs ended
with (the module built ahead of time where the cache folder holds it, ``timing/aot.py``;
else numba's JIT once rent or buy loads it; else the reference alone). The compile cache
(``compiler/cache.py``) starts empty in a folder of the run's own: the first untimed run
compiles every kernel (and notes it), the first timed run stores it, the later runs load it,
as a user's runs do; it prints what each run loaded and the first run's median alone:

    python benchmarks/emulator_bench.py --corpus [--repeat 3] [--sim-timeout 120]

(three runs per engine by default: warpscope's first untimed run compiles every kernel, so
the best per file is of the two that load them, each of a noisy machine's runs one sample)

``--serial`` times the class the corpus has one file of (c65): one-thread launches whose
thread loops over an array (a sum of squares and a scale, ``[1, 1]``), ``--n`` elements,
the same source under both imports, each run in a fresh process (best of ``--repeat``):
numba's simulator runs the thread as Python, warpscope counts and times every iteration's
instructions:

    python benchmarks/emulator_bench.py --serial [--n 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

HEAD = """
import math, sys, time
import numpy as np
{import_line}

f32 = np.float32

"""
MAIN = """
blocks = int(sys.argv[1])
n = blocks * 256
data = np.random.default_rng(1234).random(n, dtype=np.float32)
start = time.perf_counter()
withDivergence[blocks, 256](data, n)
cuda.synchronize()  # warpscope: the launch's timing, if it went to the timing thread
print(time.perf_counter() - start)
"""


def _seed() -> Any:
    sys.path.insert(0, str(ROOT))
    from warpscope.emulator.workloads import seed

    return seed


def kernel_file(import_line: str) -> str:
    """The seed workload's withDivergence source, under the given ``cuda`` import."""
    return HEAD.format(import_line=import_line) + inspect.getsource(_seed().withDivergence.py_func) + MAIN


CLI_MAIN = """

def main():
    blocks = {blocks}
    n = blocks * 256
    data = np.random.default_rng(1234).random(n, dtype=np.float32)
    withDivergence[blocks, 256](data, n)
"""

SEED_WORKLOAD = """
import sys, time
from warpscope.emulator import cuda
from warpscope.emulator.kernel import SETTINGS
from warpscope.emulator.workloads import seed
SETTINGS.timing = sys.argv[1] == "on"
start = time.perf_counter()
seed.main(int(sys.argv[2]))
cuda.synchronize()  # the timings still on the timing thread (in a tree before it, a no-op)
print(time.perf_counter() - start)
"""


SERIAL = """
import sys, time
import numpy as np
{import_line}


@cuda.jit
def sum_of_squares(x, out):
    s = 0.0
    for i in range(x.size):
        s += x[i] * x[i]
    out[0] = s


@cuda.jit
def scale(x, y):
    for i in range(x.size):
        y[i] = 2.0 * x[i] + 1.0


x = np.arange(int(sys.argv[1]), dtype=np.float64)
out, y = np.zeros(1), np.zeros_like(x)
start = time.perf_counter()
sum_of_squares[1, 1](x, out)
scale[1, 1](x, y)
cuda.synchronize()
print(time.perf_counter() - start)
"""


def serial(n: int, repeat: int) -> None:
    """One-thread serial loops: numba's simulator, warpscope without and with timing."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = {
        "numba simulator": ("from numba import cuda", {"NUMBA_ENABLE_CUDASIM": "1"}),
        "warpscope, no timing": ("from warpscope.emulator import cuda", {"WARPSCOPE_TIMING": "0"}),
        "warpscope, timing": ("from warpscope.emulator import cuda", {"WARPSCOPE_TIMING": "1"}),
    }
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, (line, extra) in runs.items():
            path = Path(tmp) / f"serial_{len(best)}.py"
            path.write_text(SERIAL.format(import_line=line))
            try:
                best[label] = min(run_args(path, [str(n)], {**env, **extra}) for _ in range(repeat))
            except SystemExit as e:  # numba without its CUDA target (numba-cuda) has no simulator
                if label != "numba simulator":
                    raise
                print(f"numba's simulator did not run: {str(e).splitlines()[-1]}")
    sim = best.get("numba simulator")
    print(f"one-thread launches looping over {n:,} float64 elements (two kernels), best of {repeat}")
    for label, seconds in best.items():
        ratio = f"   simulator / this: {sim / seconds:6.2f}x" if sim else ""
        print(f"{label:24} {seconds * 1e3:9.1f} ms{ratio}")


def run(path: Path, blocks: int, env: dict[str, str]) -> float:
    return run_args(path, [str(blocks)], env)


def run_args(path: Path, argv: list[str], env: dict[str, str]) -> float:
    out = subprocess.run(
        [sys.executable, str(path), *argv], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600
    )
    if out.returncode != 0:
        raise SystemExit(f"{path.name} failed:\n{out.stderr}")
    return float(out.stdout.strip().splitlines()[-1])


def cli_seconds(args: list[str], out: Path) -> float:
    """``warpscope emulate ARGS -o OUT``, process start to exit."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "warpscope", "emulate", *args, "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"warpscope emulate {' '.join(args)} failed:\n{done.stderr}")
    return time.perf_counter() - started


def baseline_run(ref: str, tmp: Path, blocks: int, repeat: int) -> float:
    """The seed-size functional run on warpscope as it was at ``ref`` (a git worktree)."""
    tree = tmp / "baseline"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(tree), ref], cwd=ROOT, check=True, capture_output=True
    )
    try:
        source = tmp / "theirs_then.py"
        source.write_text(
            kernel_file(
                "from warpscope.emulator import cuda\nfrom warpscope.emulator.kernel import SETTINGS\n"
                "SETTINGS.timing = False"
            )
        )
        env = {**os.environ, "PYTHONPATH": str(tree)}
        return min(run_args(source, [str(blocks)], env) for _ in range(repeat))
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)


CORPUS = ROOT / "tests" / "numba_corpus"


def corpus_worker(engine: str, out: str, timeout: float) -> None:
    """In a child process: time each corpus file's main() under ``engine`` (``numba`` or
    ``warpscope``, the timing model as WARPSCOPE_TIMING says), seconds to JSON (None: failed
    or over ``timeout``)."""
    import json
    import signal
    import types

    sys.path.insert(0, str(CORPUS))
    import harness  # type: ignore[import-not-found]

    def stop(*_: Any) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, stop)
    compiling = [0.0]  # seconds the running file's kernels took to compile
    if engine == "warpscope":  # as WARPSCOPE_TIMING says, also on a warpscope that predates it
        from warpscope.emulator import cuda
        from warpscope.emulator.kernel import SETTINGS, Kernel

        SETTINGS.timing = os.environ.get("WARPSCOPE_TIMING", "1") != "0"
        compile_kernel = Kernel.compile

        def timed_compile(self: Any, arg_types: tuple[Any, ...] = ()) -> Any:
            started = time.perf_counter()
            try:
                return compile_kernel(self, arg_types)
            finally:
                compiling[0] += time.perf_counter() - started

        Kernel.compile = timed_compile  # type: ignore[method-assign]
    times: dict[str, float | None] = {}
    compiled: dict[str, float] = {}
    for path in harness.corpus_files():
        compiling[0] = 0.0
        name = f"_bench_{engine}_{path.stem}"
        module = types.ModuleType(name)
        module.__file__ = str(path)
        sys.modules[name] = module
        source = harness.numba_source(path) if engine == "numba" else path.read_text()
        try:
            exec(compile(source, str(path), "exec"), module.__dict__)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            started = time.perf_counter()
            module.main()
            if engine == "warpscope":  # what the file's timings cost (a big launch's may be on
                cuda.synchronize()  # the timing thread still: warpscope emulate waits too)
            times[path.stem] = time.perf_counter() - started
            compiled[path.stem] = compiling[0]
        except BaseException as e:  # a file numba cannot run (or over the timeout) is reported, not fatal
            times[path.stem] = None
            print(f"{engine}: {path.stem}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.modules.pop(name, None)
    Path(out).write_text(json.dumps(times))
    Path(out + ".compile").write_text(json.dumps(compiled))
    if engine == "warpscope":
        Path(out + ".model").write_text(_timing_model())
        try:  # what the compile cache gave (a warpscope from before it: nothing)
            from warpscope.emulator.compiler import cache

            Path(out + ".cache").write_text(json.dumps(dict(cache.counts)))
        except ImportError:
            pass


def _timing_model() -> str:
    """Which timing model this process ended with: the reference alone, numba's JIT, or the
    module built ahead of time (``timing/aot.py``)."""
    from warpscope.emulator.timing import compiled

    run_sm = compiled._run_sm
    if run_sm is None:
        return "the reference model only"
    return "numba's JIT (loaded by rent or buy)" if hasattr(run_sm, "py_func") else "built ahead of time"


def corpus(repeat: int, timeout: float) -> None:
    """The corpus side by side: numba's simulator, warpscope without and with timing."""
    import json
    import statistics

    engines = {
        "numba simulator": ("numba", {"NUMBA_ENABLE_CUDASIM": "1"}),
        "warpscope, no timing": ("warpscope", {"WARPSCOPE_TIMING": "0"}),
        "warpscope, timing": ("warpscope", {"WARPSCOPE_TIMING": "1"}),
    }
    best: dict[str, dict[str, float | None]] = {k: {} for k in engines}
    compile_of_best: dict[str, float] = {}  # per file: the compile time within its best untimed run
    models: list[str] = []  # per repeat: the timing model the timed run ended with
    cached: list[str] = []  # per warpscope run: what the compile cache gave
    first_off: dict[str, float | None] = {}  # the first untimed run's: every kernel compiled
    with tempfile.TemporaryDirectory() as tmp:
        # the compile cache starts empty (the first untimed run compiles every kernel and
        # stores it, later runs load it, as a user's later runs do); the timing model built
        # ahead of time is the user's, as their runs find it
        folder = Path(tmp) / "cache"
        folder.mkdir()
        from warpscope.emulator.cachedir import cache_dir

        timing = cache_dir() / "timing"
        timing.mkdir(parents=True, exist_ok=True)  # (a first build lands there too)
        (folder / "timing").symlink_to(timing, target_is_directory=True)
        for _ in range(repeat):
            for label, (engine, extra) in engines.items():
                out = Path(tmp) / "times.json"
                Path(str(out) + ".cache").unlink(missing_ok=True)
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--corpus-worker",
                        engine,
                        str(out),
                        "--sim-timeout",
                        str(timeout),
                    ],
                    cwd=ROOT,
                    env={**os.environ, "PYTHONPATH": str(ROOT), "WARPSCOPE_CACHE": str(folder), **extra},
                    check=True,
                    timeout=3600,
                )
                counts = Path(str(out) + ".cache")
                if counts.is_file():
                    c = json.loads(counts.read_text())
                    cached.append(
                        f"{label.removeprefix('warpscope, ')}: {c.get('loaded', 0)} loaded, "
                        f"{c.get('compiled', 0)} compiled ({c.get('stored', 0)} stored)"
                    )
                if label == "warpscope, no timing" and not first_off:
                    first_off = json.loads(out.read_text())
                model = Path(str(out) + ".model")
                if label == "warpscope, timing" and model.is_file():
                    models.append(model.read_text())
                compiled = Path(str(out) + ".compile")
                spent = json.loads(compiled.read_text()) if compiled.is_file() else {}
                for stem, sec in json.loads(out.read_text()).items():
                    old = best[label].get(stem)
                    best[label][stem] = sec if old is None or (sec is not None and sec < old) else old
                    if label == "warpscope, no timing" and best[label][stem] == sec and stem in spent:
                        compile_of_best[stem] = spent[stem]
    sim, off, on = (best[k] for k in engines)
    stems = sorted(sim)
    print(
        f"tests/numba_corpus, main() per file (first call, compile included), best of {repeat}; {os.cpu_count()} CPUs"
    )
    print(
        f"{'file':40} {'numba sim s':>11} {'ws no-timing s':>14} {'ratio':>7} {'ws timing s':>11} {'ratio':>7}"
    )

    def ratio(a: float | None, b: float | None) -> float | None:
        return a / b if a is not None and b else None

    def fmt(x: float | None, spec: str) -> str:
        return format(x, spec) if x is not None else "-"

    both = [s for s in stems if sim[s] is not None and off.get(s) is not None and on.get(s) is not None]
    for s in stems:
        r_off, r_on = ratio(sim[s], off.get(s)), ratio(sim[s], on.get(s))
        print(
            f"{s:40} {fmt(sim[s], '11.4f')} {fmt(off.get(s), '14.4f')} {fmt(r_off, '6.1f') + 'x':>7} "
            f"{fmt(on.get(s), '11.4f')} {fmt(r_on, '6.1f') + 'x':>7}"
        )
    if not both:
        print(
            "no file ran under all three (is numba with its CUDA simulator installed? pip install numba-cuda)"
        )
        return
    t_sim = sum(sim[s] or 0.0 for s in both)
    t_off = sum(off[s] or 0.0 for s in both)
    t_on = sum(on[s] or 0.0 for s in both)
    med_off = statistics.median(sim[s] / off[s] for s in both)  # type: ignore[operator]
    med_on = statistics.median(sim[s] / on[s] for s in both)  # type: ignore[operator]
    slower_off = [s for s in both if (off[s] or 0.0) > (sim[s] or 0.0)]
    slower = [s for s in both if (on[s] or 0.0) > (sim[s] or 0.0)]
    print(f"files all three ran: {len(both)} of {len(stems)} (numba's simulator failed on the others)")
    print(
        f"total: numba sim {t_sim:.2f} s, warpscope {t_off:.2f} s without timing ({t_sim / t_off:.1f}x, target >= 300x), "
        f"{t_on:.2f} s with timing ({t_sim / t_on:.1f}x, target >= 100x)"
    )
    print(
        f"per-file median ratio: {med_off:.1f}x without timing (target >= 50x), {med_on:.1f}x with (target >= 20x)"
    )
    print(
        f"files slower than numba's simulator: without timing {', '.join(slower_off) or 'none'}; "
        f"with timing {', '.join(slower) or 'none'}"
    )
    print(f"timing model of the timed runs, run by run: {'; '.join(models)}")
    if cached:
        print(f"compile cache (empty at the start), run by run: {'; '.join(cached)}")
        firsts = [s for s in both if first_off.get(s)]
        if firsts:
            cold = statistics.median(sim[s] / first_off[s] for s in firsts)  # type: ignore[operator]
            print(
                f"per-file median without timing in the first run alone (every kernel compiled): {cold:.1f}x; "
                f"total {sum(sim[s] or 0.0 for s in firsts) / sum(first_off[s] or 0.0 for s in firsts):.1f}x"
            )
    shares = [compile_of_best[s] / off[s] for s in both if s in compile_of_best and off[s]]  # type: ignore[operator]
    if shares:
        spent = sum(compile_of_best.get(s, 0.0) for s in both)
        print(
            f"compiling kernels (first call, in warpscope's untimed runs): {spent / t_off:.0%} of its total, "
            f"per-file median {statistics.median(shares):.0%}"
        )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--corpus-worker":
        corpus_worker(sys.argv[2], sys.argv[3], float(sys.argv[5]) if len(sys.argv) > 5 else 120.0)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--corpus", action="store_true", help="time every file of tests/numba_corpus")
    mode.add_argument("--serial", action="store_true", help="time one-thread serial loops")
    parser.add_argument("--repeat", type=int, help="runs per measurement, the best kept (default 3)")
    parser.add_argument("--sim-timeout", type=float, default=120.0, help="--corpus: seconds per file")
    parser.add_argument("--n", type=int, default=2000, help="--serial: elements each loop goes over")
    parser.add_argument("--seed-blocks", type=int, default=4096)
    parser.add_argument(
        "--sim-blocks",
        type=int,
        default=1024,
        help="grid for numba's simulator (it must finish in under a minute)",
    )
    parser.add_argument("--baseline", metavar="REF", help="git commit to compare the seed-size run with")
    parser.add_argument(
        "--seed-scale", type=int, default=8, help="the seed workload's scale for timing on/off"
    )
    args = parser.parse_args()
    if args.corpus:
        corpus(args.repeat or 3, args.sim_timeout)
        return
    if args.serial:
        serial(args.n, args.repeat or 3)
        return
    repeat = args.repeat or 3
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        timed = Path(tmp) / "timed.py"
        timed.write_text(kernel_file("from warpscope.emulator import cuda"))
        workload = Path(tmp) / "workload.py"
        workload.write_text(SEED_WORKLOAD)
        timed_s = min(run(timed, args.seed_blocks, env) for _ in range(repeat))
        seed_on = min(run_args(workload, ["on", str(args.seed_scale)], env) for _ in range(repeat))
        seed_off = min(run_args(workload, ["off", str(args.seed_scale)], env) for _ in range(repeat))
        baseline_s = (
            baseline_run(args.baseline, Path(tmp), args.seed_blocks, repeat) if args.baseline else None
        )
        cli_file = Path(tmp) / "with_divergence.py"
        cli_file.write_text(
            HEAD.format(import_line="from warpscope.emulator import cuda")
            + inspect.getsource(_seed().withDivergence.py_func)
            + CLI_MAIN.format(blocks=args.seed_blocks)
        )
        report = Path(tmp) / "report.md"
        targets = {
            "withDivergence file": [str(cli_file)],
            f"--workload seed --scale {args.seed_scale}": [
                "--workload",
                "seed",
                "--scale",
                str(args.seed_scale),
            ],
        }
        cli = {
            name: [
                min(cli_seconds([*target, *flag], report) for _ in range(repeat))
                for flag in ([], ["--no-timing"])
            ]
            for name, target in targets.items()
        }
        ours = Path(tmp) / "ours.py"
        # functional layer only: numba's simulator has no timing model to compare with
        ours.write_text(
            kernel_file(
                "from warpscope.emulator import cuda\nfrom warpscope.emulator.kernel import SETTINGS\nSETTINGS.timing = False"
            )
        )
        theirs = Path(tmp) / "theirs.py"
        theirs.write_text(kernel_file("from numba import cuda"))
        seed_s = min(run(ours, args.seed_blocks, env) for _ in range(repeat))
        small_s = min(run(ours, args.sim_blocks, env) for _ in range(repeat))
        try:
            import numba  # noqa: F401
        except ImportError:
            sim_s = None
        else:
            try:
                sim_s = run(theirs, args.sim_blocks, {**env, "NUMBA_ENABLE_CUDASIM": "1"})
            except SystemExit as e:  # numba without its CUDA target (numba-cuda) has no simulator
                print(f"numba's simulator did not run: {str(e).splitlines()[-1]}")
                sim_s = None
    seed_threads, sim_threads = args.seed_blocks * 256, args.sim_blocks * 256
    print(f"withDivergence (100-iteration loop), 256 threads per block; {os.cpu_count()} CPUs")
    print(f"{'run':44} {'threads':>9} {'seconds':>8} {'threads/s':>11} {'target':>10}")
    print(
        f"{'warpscope, seed size':44} {seed_threads:9,} {seed_s:8.2f} {seed_threads / seed_s:11,.0f} {'<= 10 s':>10}"
    )
    print(f"{'warpscope, simulator size':44} {sim_threads:9,} {small_s:8.3f} {sim_threads / small_s:11,.0f}")
    if baseline_s is not None:
        print(
            f"{'warpscope at ' + args.baseline[:12] + ', seed size':44} {seed_threads:9,} {baseline_s:8.2f} "
            f"{seed_threads / baseline_s:11,.0f}   now/then: {seed_s / baseline_s:.2f}x (target <= 1.0x, noise ~10%)"
        )
    print(
        f"{'warpscope, seed size, timing model on':44} {seed_threads:9,} {timed_s:8.2f} "
        f"{seed_threads / timed_s:11,.0f}   on/off: {timed_s / seed_s:.2f}x (target <= 5x)"
    )
    print(
        f"seed workload at 1/{args.seed_scale} size: timing on {seed_on:.2f} s, off {seed_off:.2f} s, "
        f"on/off {seed_on / seed_off:.2f}x (target <= 5x)"
    )
    for name, (on, off) in cli.items():
        print(
            f"warpscope emulate {name}: {on:.2f} s, with --no-timing {off:.2f} s, "
            f"on/off {on / off:.2f}x (target <= 5x)"
        )
    if sim_s is None:
        print("numba is not installed (pip install numba numba-cuda): no simulator baseline")
        return
    print(
        f"{'numba CUDA simulator (NUMBA_ENABLE_CUDASIM=1)':44} {sim_threads:9,} {sim_s:8.2f} "
        f"{sim_threads / sim_s:11,.0f} {'< 60 s':>10}"
    )
    print(
        f"thread throughput, warpscope / numba simulator, same size: {sim_s / small_s:,.0f}x (target >= 100x)"
    )


if __name__ == "__main__":
    main()
