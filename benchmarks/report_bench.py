"""Report speed on a 10,000-launch profile (issue 5 target: under 5 s).

Builds a saved profile of N launches by repeating the real H100 seed export
(sample_traces/h100/seed_full_raw.csv, 22 kernels) and times, each in a fresh process:
  - baseline: warpscope.load(profile)            (reading the tables back)
  - analyze:  load + warpscope.analysis.analyze  (every rule on every launch)
  - report md / json / diff: the CLI end to end (`warpscope report`, `warpscope diff` against itself)
Prints one table with each time, its ratio to the baseline, and the target.

    python benchmarks/report_bench.py [--launches 10000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "sample_traces" / "h100" / "seed_full_raw.csv"
TARGET_S = 5.0

CHILD = {
    "load": "import warpscope; warpscope.load({path!r})",
    "analyze": "import warpscope; from warpscope.analysis import analyze; analyze(warpscope.load({path!r}))",
}


def build(launches: int, path: Path) -> int:
    sys.path.insert(0, str(ROOT))
    import warpscope
    from warpscope.model.profile import Profile

    seed = warpscope.load(SEED)
    copies = -(-launches // seed.launches.height)
    profile = Profile.concat([seed] * copies)
    profile.save(path)
    return profile.launches.height


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{result.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "profile.parquet"
        n = build(args.launches, path)
        py = [sys.executable, "-c"]
        cli = [sys.executable, "-m", "warpscope"]
        runs = {
            "load (baseline)": py + [CHILD["load"].format(path=str(path))],
            "load + analyze": py + [CHILD["analyze"].format(path=str(path))],
            "report --format md": cli + ["report", str(path), "-o", str(Path(tmp) / "r.md")],
            "report --format json": cli
            + ["report", str(path), "-f", "json", "-o", str(Path(tmp) / "r.json")],
            "diff (itself)": cli + ["diff", str(path), str(path), "-o", str(Path(tmp) / "d.md")],
        }
        times = {name: min(timed(cmd) for _ in range(args.repeat)) for name, cmd in runs.items()}
        size = (Path(tmp) / "r.md").stat().st_size
    base = times["load (baseline)"]
    print(f"{n:,} launches ({n // 22:,} x the 22 seed kernels); markdown report {size / 1e6:.1f} MB")
    print(f"{'measurement':24} {'seconds':>8} {'x baseline':>11} {'target':>8}")
    for name, seconds in times.items():
        target = f"< {TARGET_S:g} s" if name.startswith("report") else ""
        print(f"{name:24} {seconds:8.2f} {seconds / base:11.1f} {target:>8}")


if __name__ == "__main__":
    main()
