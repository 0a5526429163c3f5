"""Speed of the timing model: the compiled model against the reference, on the same traces.

Runs the seed workload once (sm_90, the default scheduler; ``--scale 8`` for 1/8 of the
H100's sizes), keeps every launch's recorded trace, then times the same traces with the
reference model (``timing/sm.py``, plain Python: the baseline, what every warpscope before
the compiled model ran) and the compiled one (``timing/compiled.py``, numba's CPU target),
alternated ``--repeat`` times, best kept; checks both give the same cycles and counters;
and prints, side by side, per launch and in total, their times, warp instructions per
second and the ratio (target: >= 1 M issued warp instructions per second). Then, each in a
fresh process: what numba costs before the first timed launch (loading the compiled model
from numba's on-disk cache, and compiling it with an empty cache, as the first run on a
machine does).

    python benchmarks/timing_bench.py [--scale 1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import warpscope.emulator.kernel as kernel_module  # noqa: E402
from warpscope.emulator.kernel import recording  # noqa: E402
from warpscope.emulator.timing import TimingResult, overlap, simulate  # noqa: E402
from warpscope.emulator.workloads import seed  # noqa: E402

TARGET = 1_000_000
LOAD = """
import time
import warpscope.emulator  # imports numba for its type names, as every emulator run does
from warpscope.emulator.timing import compiled
from warpscope.emulator.trace import Trace
started = time.perf_counter()
compiled.compiled_run()  # the dispatchers; the machine code loads (or compiles) on first call
from benchmarks.timing_bench import first_call
first_call()
print(time.perf_counter() - started)
"""


def first_call() -> None:
    """One tiny launch through the compiled model (loads or compiles it)."""
    import numpy as np

    from warpscope.emulator import cuda
    from warpscope.emulator.kernel import Settings, using

    os.environ["WARPSCOPE_JIT"] = "1"
    with using(Settings(timing=True)):
        cuda.jit(_tiny)[1, 32](np.zeros(32, np.float32))


def _tiny(a):  # type: ignore[no-untyped-def]
    a[0] = 1.0


def _same(a: TimingResult, b: TimingResult) -> bool:
    return a.cycles == b.cycles and all(
        all(
            np.array_equal(v, getattr(y, k)) if k == "timeline" else v == getattr(y, k)
            for k, v in vars(x).items()
        )
        for x, y in zip(a.simulated, b.simulated)
    )


def _timed(args: Any, jit: bool) -> tuple[float, TimingResult]:
    started = time.process_time()
    result = simulate(*args, jit=jit)
    return time.process_time() - started, result


def _load_seconds(cache: str | None) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, "-c", LOAD], env=env, cwd=ROOT, capture_output=True, text=True)
    out.check_returncode()
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    calls: list[tuple[Any, ...]] = []

    def keep(*a: Any, **k: Any) -> TimingResult:
        calls.append(a)
        return simulate(*a, jit=False, **k)

    kernel_module.simulate = keep  # type: ignore[assignment]
    with recording() as launches:
        seed.main(args.scale)
    overlap.wait()  # every launch's call made (big ones go to the timing thread)
    kernel_module.simulate = simulate  # type: ignore[assignment]
    _timed(calls[0], jit=True)  # load the compiled model before timing it
    ref = [float("inf")] * len(calls)
    fast = [float("inf")] * len(calls)
    for _ in range(args.repeat):
        for i, a in enumerate(calls):
            t_ref, r_ref = _timed(a, jit=False)
            t_fast, r_fast = _timed(a, jit=True)
            assert _same(r_ref, r_fast), f"{launches[i].kernel}: the compiled model differs"
            ref[i], fast[i] = min(ref[i], t_ref), min(fast[i], t_fast)
    issued = [launches[i].timing.issued for i in range(len(calls))]  # type: ignore[union-attr]
    print(
        f"seed workload at 1/{args.scale}, CPU seconds, best of {args.repeat} alternated; load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'launch':<24}{'issued':>11}{'reference s':>13}{'compiled s':>12}{'ratio':>8}{'compiled/s':>13}")
    for i, l in enumerate(launches):
        print(
            f"{l.kernel:<24}{issued[i]:>11,}{ref[i]:>13.3f}{fast[i]:>12.4f}{ref[i] / max(fast[i], 1e-9):>7.1f}x"
            f"{issued[i] / max(fast[i], 1e-9):>13,.0f}"
        )
    total, t_ref, t_fast = sum(issued), sum(ref), sum(fast)
    print(
        f"{'total':<24}{total:>11,}{t_ref:>13.3f}{t_fast:>12.4f}{t_ref / t_fast:>7.1f}x{total / t_fast:>13,.0f}"
    )
    print(
        f"issued warp instructions per second: reference {total / t_ref:,.0f}, compiled {total / t_fast:,.0f} "
        f"(target >= {TARGET:,}: {'met' if total / t_fast >= TARGET else 'not met'}); every result identical"
    )
    warm = min(_load_seconds(None) for _ in range(2))
    with tempfile.TemporaryDirectory() as cache:
        cold = _load_seconds(cache)
    print(
        f"numba's cost before the first compiled launch (fresh process, wall): {warm:.2f} s from its disk cache, "
        f"{cold:.1f} s compiling with an empty cache (the first run on a machine); the reference "
        f"times ~{t_ref / total * 1e6:.1f} µs an issued instruction, so launches under "
        f"~{int(warm / (t_ref / total)):,} instructions stay on it until the model is loaded"
    )


if __name__ == "__main__":
    main()
