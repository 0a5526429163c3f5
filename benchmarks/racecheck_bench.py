"""What racecheck costs: the seed workload emulated with and without it, side by side.

Two measurements, each the best of ``--repeat`` runs:
  - as a user runs it: ``warpscope emulate --workload seed [--no-timing] [--no-racecheck]``
    in a fresh process, start to report written (target: racecheck within +20%);
  - in process, per kernel (functional layer only): where the extra time goes.

    python benchmarks/racecheck_bench.py [--repeat 2] [--scale 1] [--timing] [--per-kernel]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_seconds(racecheck: bool, timing: bool, scale: int) -> float:
    args = [sys.executable, "-m", "warpscope", "emulate", "--workload", "seed", "--scale", str(scale)]
    args += [] if timing else ["--no-timing"]
    args += [] if racecheck else ["--no-racecheck"]
    start = time.perf_counter()
    subprocess.run(args, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def per_kernel(racecheck: bool, scale: int) -> dict[str, float]:
    """Seconds per seed launch (functional layer), by kernel name (summed over launches)."""
    sys.path.insert(0, str(ROOT))
    from warpscope.emulator.kernel import Settings
    from warpscope.emulator.runner import emulate_workload

    out: dict[str, float] = {}
    last = [time.perf_counter()]

    def heard(done: int, total: int, kernel: str) -> None:
        now = time.perf_counter()
        out[kernel] = out.get(kernel, 0.0) + now - last[0]
        last[0] = now

    emulate_workload("seed", Settings(timing=False, racecheck=racecheck), scale, heard)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--timing", action="store_true", help="also with the timing model (the default command)")
    ap.add_argument("--per-kernel", action="store_true", help="also time each seed kernel in process")
    a = ap.parse_args()
    modes = [False, True] if a.timing else [False]
    print(f"warpscope emulate --workload seed --scale {a.scale}, best of {a.repeat} (seconds)")
    print(f"{'':28s} {'--no-racecheck':>15s} {'racecheck':>10s} {'overhead':>9s}")
    for timing in modes:
        offs, ons = [], []
        for _ in range(a.repeat):  # alternated, so that a load that comes and goes hits both
            offs.append(cli_seconds(False, timing, a.scale))
            ons.append(cli_seconds(True, timing, a.scale))
        off, on = min(offs), min(ons)
        label = "with timing" if timing else "--no-timing"
        print(f"{label:28s} {off:15.2f} {on:10.2f} {100 * (on / off - 1):+8.1f}%")
    if a.per_kernel:
        off_k = per_kernel(False, a.scale)
        on_k = per_kernel(True, a.scale)
        print()
        print(f"{'kernel (functional, in process)':28s} {'--no-racecheck':>15s} {'racecheck':>10s}")
        for k in off_k:
            print(f"{k:28s} {off_k[k]:15.2f} {on_k.get(k, 0.0):10.2f}")
        total_off, total_on = sum(off_k.values()), sum(on_k.values())
        print(f"{'total':28s} {total_off:15.2f} {total_on:10.2f} {100 * (total_on / total_off - 1):+8.1f}%")


if __name__ == "__main__":
    main()
