"""A fleet of 1,000 runs as one dataset: import, size, trend and query, beside DuckDB's own scan.

The runs are the real PyTorch training step (sample_traces/h100/cnn_step: 90 launches, the full
section set, raw and details pages) with 2% run-to-run jitter on every duration and counter,
labelled commit=c0000…; from commit c0600 on, a compiler regression is planted on the step's
longest kernel (32 more registers per thread, a third less occupancy, 30% slower:
tools/fleet_runs.py). Measured, each command in a fresh process as a CI job runs it:

  - import: `warpscope import RAW DETAILS --into DS --label commit=…` of the real files
    (median of 3), and the append of each jittered run (in process);
  - size: the dataset on disk against the same runs saved one file each (`import -o x.parquet`);
  - trend: `warpscope trend DS --by commit` over all runs, beside DuckDB scanning the same
    launches files for the per-kernel, per-run medians (the query trend starts from);
  - query: a per-kernel `warpscope query DS "SQL"` beside the same SQL in DuckDB alone.

    python benchmarks/fleet_bench.py [--runs 1000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CNN = ROOT / "sample_traces" / "h100" / "cnn_step"
FILES = [CNN / "cnn_full_raw_base.csv.gz", CNN / "cnn_full_details.csv.gz"]
KERNEL = "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, 1, 1>"
TARGET_S = 1.0


def wall(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return elapsed, out.stdout


def best(cmd: list[str], repeat: int = 3) -> tuple[float, str]:
    runs = [wall(cmd) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[0][1]


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build the dataset here and keep it")
    args = parser.parse_args()
    regress_at = args.runs * 3 // 5

    import warpscope
    from tools.fleet_runs import build_dataset

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ds = args.keep or work / "ds"
        py = [sys.executable, "-m", "warpscope"]

        # import of the real files, as CI does it
        real = work / "real"
        imports = [
            wall([*py, "import", *map(str, FILES), "--into", str(real), "--label", f"commit=r{i}"])[0]
            for i in range(3)
        ]
        single, _ = wall([*py, "import", *map(str, FILES), "-o", str(work / "one.parquet")])

        base = warpscope.load(FILES)
        start = time.perf_counter()
        build_dataset(base, str(ds), args.runs, regress_at, KERNEL)
        append_s = (time.perf_counter() - start) / args.runs

        dataset_bytes = size(ds)
        saved_bytes = (work / "one.parquet").stat().st_size * args.runs

        trend_s, trend_out = best([*py, "trend", str(ds), "--by", "commit", "-f", "json"])
        scan_sql = (
            f"select kernel_short, run_id, median(duration_ns) from read_parquet('{ds}/launches/*/*.parquet', "
            "hive_partitioning = true) group by all"
        )
        duck = f"import duckdb; duckdb.sql({scan_sql!r}).fetchall()"
        duck_trend_s, _ = best([sys.executable, "-c", duck])

        query_sql = (
            "select r.commit, median(l.duration_ns) as median_ns, max(l.registers_per_thread) as registers "
            f"from launches l join runs r using (run_id) where l.kernel_short = '{KERNEL}' group by 1 order by 1"
        )
        query_s, query_out = best([*py, "query", str(ds), query_sql, "-f", "csv"])
        duck_query = query_sql.replace(
            "from launches l join runs r",
            f"from read_parquet('{ds}/launches/*/*.parquet', hive_partitioning = true) l "
            f"join read_parquet('{ds}/runs/*/*.parquet', hive_partitioning = true) r",
        )
        duck_query_s, _ = best(
            [sys.executable, "-c", f"import duckdb; duckdb.sql({duck_query!r}).fetchall()"]
        )

        doc = json.loads(trend_out)
        found = [
            (s["kernel"], c["at"], c["change_pct"], [m["metric"] for m in c["moved"]])
            for s in doc["series"]
            for c in s["changes"]
        ]
        rows_after = sum(
            1 for line in query_out.splitlines()[1:] if line.split(",")[-1] == str(base_regs(base) + 32)
        )

    print(
        f"fleet of {args.runs} runs of the real cnn_step (90 launches each), regression planted at c{regress_at:04d}\n"
    )
    print("| measure | warpscope | DuckDB alone | target |")
    print("|---|---:|---:|---:|")
    print(
        f"| import one run (`import --into`, real files, median of 3) | {statistics.median(imports):.2f} s | – | – |"
    )
    print(f"| import one run to one file (`import -o x.parquet`) | {single:.2f} s | – | – |")
    print(f"| append one jittered run (in process) | {append_s * 1e3:.0f} ms | – | – |")
    print(
        f"| dataset size | {dataset_bytes / 1e6:,.0f} MB ({dataset_bytes / saved_bytes:.2f}× the saved runs, "
        f"{saved_bytes / 1e6:,.0f} MB) | – | ≤ 2× |"
    )
    print(
        f"| `trend --by commit`, all runs | {trend_s:.2f} s | {duck_trend_s:.2f} s (per-kernel medians scan) | ≤ {TARGET_S:.0f} s |"
    )
    print(f"| per-kernel `query` | {query_s:.2f} s | {duck_query_s:.2f} s (same SQL) | ≤ {TARGET_S:.0f} s |")
    print()
    print("change points found:")
    for kernel, at, pct, moved in found:
        print(f"  {kernel}: {pct:+.1f}% at {at}; moved with it: {', '.join(moved) or 'nothing'}")
    print(f"query: {rows_after} commits show the planted register count")


def base_regs(profile) -> int:
    import polars as pl

    return int(profile.launches.filter(pl.col("kernel_short") == KERNEL)["registers_per_thread"][0])


if __name__ == "__main__":
    main()
