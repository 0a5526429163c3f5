"""Speed of the timing model: simulated warp instructions per second on one core.

Runs the whole seed workload at full size (every launch timed on sm_90 with the default
scheduler) and prints, side by side, the timing model's rate, the issue's target and
Accel-Sim's published trace-driven rate (12.5K warp instructions per second, ISCA 2020), and the seed suite's total timing time (target: under a minute).

    python benchmarks/timing_bench.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warpscope.emulator.kernel import recording
from warpscope.emulator.workloads import seed

ACCEL_SIM = 12_500
TARGET = 100_000


def main() -> None:
    started = time.perf_counter()
    with recording() as launches:
        seed.main()
    total = time.perf_counter() - started
    timing_s = sum(l.timing.wall_s for l in launches)
    issued = sum(l.timing.issued for l in launches)
    rate = issued / timing_s
    print(f"{'launch':<24}{'warp instr':>12}{'timing s':>10}{'instr/s':>12}")
    for l in launches:
        t = l.timing
        print(f"{l.kernel:<24}{t.issued:>12,}{t.wall_s:>10.2f}{t.issued / max(t.wall_s, 1e-9):>12,.0f}")
    print()
    print(f"timing model        {rate:>12,.0f} warp instructions/s  ({issued:,} in {timing_s:.2f} s)")
    print(f"target              {TARGET:>12,}  -> {rate / TARGET:.1f}x")
    print(f"Accel-Sim (publ.)   {ACCEL_SIM:>12,}  -> {rate / ACCEL_SIM:.1f}x")
    print(
        f"seed suite: timing {timing_s:.1f} s (target < 60 s); whole run incl. functional layer {total:.1f} s"
    )


if __name__ == "__main__":
    main()
