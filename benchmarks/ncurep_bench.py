"""Opening an Nsight Compute report: warpscope's reader against Nsight Compute's own export.

Run on a machine with ncu, on a large report (~200 MB: the whole cnn_step program,
``ncu --set full --import-source yes -o big python3 tools/gpu/cnnstep.py``). Each
side runs as its own process, from start to exit, alternating, ``--repeat`` times:
  - baseline: ``ncu --import R --csv --page raw`` writing the raw page to a file
  - warpscope: ``warpscope import R -o X.parquet`` (every table built and saved)
Prints the medians side by side, their ratio, and warpscope's peak memory against the
report's size. Targets: time <= 0.5x ncu's, peak memory <= 2x the report.

    python benchmarks/ncurep_bench.py REPORT.ncu-rep [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# one process per measurement, so the peak resident size is that command's alone
MEASURE = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out).returncode
print(json.dumps({"seconds": time.perf_counter() - t, "rc": rc,
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def measure(command: list[str], stdout: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(stdout), *command], capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    if result["rc"] != 0:
        raise SystemExit(f"{command[0]} exited {result['rc']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ncu = shutil.which("ncu")
    if ncu is None:
        raise SystemExit("ncu is not on the PATH: this benchmark runs where Nsight Compute is installed")
    size_mb = args.report.stat().st_size / 2**20
    runs: dict[str, list[dict[str, float]]] = {"ncu": [], "warpscope": []}
    with tempfile.TemporaryDirectory() as tmp:
        raw, saved = Path(tmp) / "raw.csv", Path(tmp) / "report.parquet"
        for _ in range(args.repeat):
            runs["ncu"].append(measure([ncu, "--import", str(args.report), "--csv", "--page", "raw"], raw))
            runs["warpscope"].append(
                measure(
                    [sys.executable, "-m", "warpscope", "import", str(args.report), "-o", str(saved)],
                    Path(tmp) / "stdout.txt",
                )
            )
        raw_mb = raw.stat().st_size / 2**20
    med = {
        k: {m: statistics.median(r[m] for r in v) for m in ("seconds", "peak_mb")} for k, v in runs.items()
    }
    print(
        f"report {args.report.name}: {size_mb:,.1f} MiB; its raw page {raw_mb:,.1f} MiB; {args.repeat} runs each"
    )
    print(f"{'':34}{'seconds':>10}{'peak MiB':>12}")
    print(
        f"{'ncu --import --csv --page raw':34}{med['ncu']['seconds']:>10.2f}{med['ncu']['peak_mb']:>12,.0f}"
    )
    print(
        f"{'warpscope import -o X.parquet':34}{med['warpscope']['seconds']:>10.2f}{med['warpscope']['peak_mb']:>12,.0f}"
    )
    ratio = med["warpscope"]["seconds"] / med["ncu"]["seconds"]
    memory = med["warpscope"]["peak_mb"] / size_mb
    print(f"time: warpscope / ncu = {ratio:.2f}x (target <= 0.5x)")
    print(f"peak memory: warpscope / report size = {memory:.2f}x (target <= 2x)")
    print("all runs:", json.dumps(runs))


if __name__ == "__main__":
    main()
