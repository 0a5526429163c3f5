"""Batch occupancy speed: `warpscope occupancy --batch --json` against CUDA's own calculator.

    python benchmarks/occupancy_bench.py [--rows 50000]

Prints, in one run: rows per second of the batch command end to end (process start,
CSV read, one JSON line per row), of `evaluate()` alone, and of the baseline — CUDA's
cuda_occupancy.h compiled with g++ -O2 (tools/occupancy_reference/generate.cpp over its
8,030 configurations, printing CSV) when g++ and the CUDA toolkit are present. The target
of issue 4 is thousands of rows a second.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from warpscope.occupancy.arch import ARCHS  # noqa: E402
from warpscope.occupancy.calculator import evaluate  # noqa: E402


def _configs(n: int) -> list[tuple]:
    rng = random.Random(7)
    archs = sorted(ARCHS)
    return [
        (
            rng.choice(archs),
            rng.choice(range(32, 1025, 32)),
            rng.randint(0, 255),
            rng.choice((0, 1024, 4096, 16384)),
            rng.choice((0, 0, 8192, 40000, 98304)),
        )
        for _ in range(n)
    ]


def _bench_batch(configs: list[tuple]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "configs.csv"
        path.write_text(
            "arch,block_size,registers_per_thread,static_smem,dynamic_smem\n"
            + "".join(",".join(map(str, c)) + "\n" for c in configs)
        )
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "warpscope", "occupancy", "--batch", str(path), "--json"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        elapsed = time.perf_counter() - start
    assert out.stdout.count(b"\n") == len(configs)
    return len(configs) / elapsed


def _bench_evaluate(configs: list[tuple]) -> float:
    start = time.perf_counter()
    for c in configs:
        evaluate(*c)
    return len(configs) / (time.perf_counter() - start)


def _bench_cuda() -> float | None:
    cuda = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    header = next(
        (
            p
            for p in [cuda / "include", *Path("/usr/local").glob("cuda*/include")]
            if (p / "cuda_occupancy.h").exists()
        ),
        None,
    )
    if header is None or shutil.which("g++") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "occref"
        subprocess.run(
            [
                "g++",
                "-O2",
                "-std=c++17",
                f"-I{header}",
                str(ROOT / "tools" / "occupancy_reference" / "generate.cpp"),
                "-o",
                str(exe),
            ],
            check=True,
        )
        start = time.perf_counter()
        out = subprocess.run([str(exe)], capture_output=True, check=True)
        elapsed = time.perf_counter() - start
    return (out.stdout.count(b"\n") - 1) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    args = parser.parse_args()
    configs = _configs(args.rows)
    batch = _bench_batch(configs)
    calc = _bench_evaluate(configs)
    cuda = _bench_cuda()
    print(f"{'what':<48}{'rows/s':>14}")
    print(f"{'warpscope occupancy --batch --json (end to end)':<48}{batch:>14,.0f}")
    print(f"{'warpscope evaluate() in-process':<48}{calc:>14,.0f}")
    if cuda is None:
        print(f"{'cuda_occupancy.h (g++ -O2)':<48}{'n/a (no g++ or CUDA toolkit)':>14}")
    else:
        print(f"{'cuda_occupancy.h (g++ -O2, incl. CSV printing)':<48}{cuda:>14,.0f}")
        print(f"ratio C++ / warpscope batch: {cuda / batch:.1f}x")
    print(f"target: >= 1,000 rows/s -> {'met' if batch >= 1000 else 'NOT met'}")


if __name__ == "__main__":
    main()
