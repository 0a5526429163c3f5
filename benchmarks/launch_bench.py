"""Fixed cost of a launch: an already-compiled kernel launched thousands of times.

Times, in a fresh process per tree, CPU time per launch of an empty kernel (one warp: the
launch path alone) and of a three-statement kernel (one warp), with the timing model off
and on (with timing also with the timing memo off: every launch simulated, as a launch whose
trace differs from the last 64 is; without timing also with racecheck on), the first launch of a newly decorated kernel (its
compilation), and that of a 12-block kernel with timing through the compiled model (a small
grid is timed on up to eight SMs, a call each), for this tree
and for warpscope at ``--baseline REF`` (a temporary git worktree), alternated ``--repeat``
times, best kept, side by side with the ratio (target: <= 50 µs for the empty launch).

    python benchmarks/launch_bench.py [--baseline b0731f8] [--repeat 3] [--launches 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_US = 50.0

CHILD = """
import json, os, sys, time
import numpy as np
from warpscope.emulator import cuda
from warpscope.emulator.kernel import Settings, using

N = int(sys.argv[1])


def empty(a):
    pass


def inc(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def per_launch(kernel, a):
    kernel[1, 32](a)
    started = time.process_time()
    for _ in range(N):
        kernel[1, 32](a)
    return (time.process_time() - started) / N * 1e6


out = {}
a = cuda.to_device(np.zeros(32, np.float32))
for timing in (False, True):
    with using(Settings(timing=timing, racecheck=False)):
        for name, fn in (("empty", empty), ("inc", inc)):
            out[f"{name} launch, timing {'on' if timing else 'off'} (µs)"] = per_launch(cuda.jit(fn), a)
with using(Settings(timing=False, racecheck=True)):  # racecheck's share: a read and write of one's own element
    out["inc launch, timing off, racecheck on (µs)"] = per_launch(cuda.jit(inc), a)
from warpscope.emulator import timing as timing_model

timing_model.MEMO_MAX_TRACED = -1  # every launch simulated (trees before the timing memo: no change)
with using(Settings(timing=True, racecheck=False)):
    for name, fn in (("empty", empty), ("inc", inc)):
        out[f"{name} launch, timing on, no memo (µs)"] = per_launch(cuda.jit(fn), a)
with using(Settings(timing=False, racecheck=False)):
    compiles = []
    for _ in range(20):
        k = cuda.jit(inc)
        started = time.process_time()
        k[1, 32](a)
        compiles.append(time.process_time() - started)
    out["first launch of a new kernel (ms)"] = min(compiles) * 1e3


def grid3d(vol):  # a small 3-D grid: 12 blocks, timed on eight SMs of one block each
    x, y, z = cuda.grid(3)
    if x < vol.shape[2] and y < vol.shape[1] and z < vol.shape[0]:
        vol[z, y, x] = x + 10 * y + 100 * z


os.environ["WARPSCOPE_JIT"] = "1"  # the compiled timing model (its load: the warm-up launch)
vol = np.zeros((5, 6, 7), np.int32)
with using(Settings(timing=True, racecheck=False)):
    cuda.jit(grid3d)[(2, 2, 3), (4, 4, 2)](vol)
    firsts = []
    for _ in range(20):
        k = cuda.jit(grid3d)  # a new kernel each time: compiled, traced and simulated afresh
        started = time.process_time()
        k[(2, 2, 3), (4, 4, 2)](vol)
        cuda.synchronize()
        firsts.append(time.process_time() - started)
    out["first launch, 12 blocks, timing on (ms)"] = min(firsts) * 1e3
print(json.dumps(out))
"""


def measure(tree: Path, script: Path, launches: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(script), str(launches)],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default="b0731f8")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--launches", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), args.baseline],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            script = Path(tmp) / "launches.py"
            script.write_text(CHILD)
            best: dict[str, dict[str, float]] = {"then": {}, "now": {}}
            for _ in range(args.repeat):
                for label, where in (("then", tree), ("now", ROOT)):
                    for k, v in measure(where, script, args.launches).items():
                        best[label][k] = min(v, best[label].get(k, v))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    print(
        f"CPU time, best of {args.repeat} alternated, {args.launches} launches each; load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'measure':<42}{args.baseline:>10}{'now':>10}{'then/now':>10}")
    for k, now in best["now"].items():
        then = best["then"][k]
        print(f"{k:<42}{then:>10.2f}{now:>10.2f}{then / now:>9.2f}x")
    empty = best["now"]["empty launch, timing off (µs)"], best["now"]["empty launch, timing on (µs)"]
    print(
        f"fixed cost of a launch: {empty[0]:.1f} µs without timing, {empty[1]:.1f} µs with (target <= {TARGET_US:.0f} µs)"
    )


if __name__ == "__main__":
    main()
