"""Import speed and memory against Polars' own CSV reader, on ~300 MB exports.

Synthesises a details export and a raw export by replicating the real H100 seed exports
(sample_traces/h100) with fresh launch IDs, then, each in a fresh process so peak RSS
is its own:
  - baseline: polars.read_csv(file, all columns as strings)
  - warpscope: importers.import_file(file) -> Profile (every table built)
and end to end, each as its own process from start to exit (the figure a user waits for):
  - baseline: python -c "polars.read_csv(FILE, infer_schema=False)"
  - warpscope: warpscope import FILE -o X.parquet (the file written)
and reopening the saved profile (Parquet and Arrow IPC). Prints the ratios side by side.
Targets: end to end <= 1.5x Polars' time, peak memory <= 1.3x; reopen <= 0.5 s.

    python benchmarks/import_bench.py [--mb 300] [--repeat 3] [--keep | --reuse DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
H100 = ROOT / "sample_traces" / "h100"
_ID = re.compile(rb'^"(\d+)",')

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
kind, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if kind == "polars":
    import polars as pl
    df = pl.read_csv(path, infer_schema=False, truncate_ragged_lines=True)
    rows = df.height
elif kind == "warpscope":
    from warpscope.importers import import_file
    p = import_file(path)
    rows = p.metrics.height
    imported = time.perf_counter() - t
    if len(sys.argv) > 3:
        p.save(sys.argv[3])
        saved = time.perf_counter() - t - imported
else:
    from warpscope.model.profile import Profile
    p = Profile.load(path)
    rows = p.metrics.height
elapsed = time.perf_counter() - t
if kind == "warpscope":
    elapsed = imported
print(json.dumps({{"seconds": elapsed, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rows": rows, "save_seconds": saved if kind == "warpscope" and len(sys.argv) > 3 else None}}))
"""


def synthesise(src: Path, dst: Path, target_mb: int, header_lines: int) -> int:
    """Replicate the data rows of ``src`` until ``dst`` is ~target_mb, with fresh IDs."""
    lines = src.read_bytes().splitlines(keepends=True)
    head, body = lines[:header_lines], lines[header_lines:]
    ids = sorted({int(m.group(1)) for l in body if (m := _ID.match(l))})
    per_copy = sum(map(len, body))
    copies = max(1, target_mb * 1_000_000 // per_copy)
    with open(dst, "wb") as out:
        out.writelines(head)
        for k in range(copies):
            shift = k * (ids[-1] + 1)
            out.writelines(
                _ID.sub(lambda m, shift=shift: b'"%d",' % (int(m.group(1)) + shift), l) for l in body
            )
    return copies * len(ids)


#: runs a command as a child and reports its wall time and peak RSS (this wrapper is fresh, so
#: RUSAGE_CHILDREN's maximum is that one child's)
WRAPPER = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(json.dumps({"seconds": time.perf_counter() - t,
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def end_to_end(*command: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def polars_process(path: Path) -> dict:
    code = f"import polars as pl; pl.read_csv({str(path)!r}, infer_schema=False, truncate_ragged_lines=True)"
    return end_to_end(sys.executable, "-c", code)


def warpscope_process(path: Path, out: Path) -> dict:
    cli = Path(sys.executable).with_name("warpscope")
    return end_to_end(str(cli), "import", str(path), "-o", str(out))


def child(kind: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), kind, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side, alternating; medians shown")
    ap.add_argument("--keep", action="store_true", help="keep the synthesised files")
    ap.add_argument("--reuse", type=Path, help="a folder kept by --keep: skip synthesising")
    args = ap.parse_args()
    work = args.reuse or Path(tempfile.mkdtemp(prefix="warpscope-bench-"))
    rows, e2e = [], []
    for name, src, header in (
        ("details", H100 / "seed_full_details.csv", 1),
        ("raw", H100 / "seed_full_raw.csv", 2),
    ):
        path = work / f"{name}.csv"
        if args.reuse:
            with open(path, "rb") as f:
                launches = len({m.group(1) for line in f if (m := _ID.match(line))})
        else:
            launches = synthesise(src, path, args.mb, header)
        size = path.stat().st_size / 1e6
        base, ours, base_e2e, ours_e2e = [], [], [], []
        for _ in range(args.repeat):  # alternating, so drift in the machine hits both sides
            base_e2e.append(polars_process(path))
            ours_e2e.append(warpscope_process(path, work / f"{name}.e2e.parquet"))
            base.append(child("polars", str(path)))
            ours.append(child("warpscope", str(path)))
        saved = {
            fmt: child("warpscope", str(path), str(work / f"{name}.{fmt}")) for fmt in ("parquet", "arrow")
        }
        reopen = {
            fmt: _median([child("reopen", str(work / f"{name}.{fmt}")) for _ in range(args.repeat)])
            for fmt in ("parquet", "arrow")
        }
        rows.append((name, size, launches, _median(base), _median(ours), saved, reopen))
        e2e.append((name, _median(base_e2e), _median(ours_e2e)))
        if not (args.keep or args.reuse):
            path.unlink()
    print(
        f"{'export':8} {'MB':>5} {'launches':>8} | {'polars s':>8} {'ours s':>7} {'ratio':>5} | "
        f"{'polars MB':>9} {'ours MB':>8} {'ratio':>5} | {'save pq/arrow s':>15} | {'reopen pq/arrow s':>17}"
    )
    for name, size, launches, base, ours, saved, reopen in rows:
        print(
            f"{name:8} {size:5.0f} {launches:8d} | {base['seconds']:8.2f} {ours['seconds']:7.2f} "
            f"{ours['seconds'] / base['seconds']:5.2f} | {base['peak_mb']:9.0f} {ours['peak_mb']:8.0f} "
            f"{ours['peak_mb'] / base['peak_mb']:5.2f} | "
            f"{saved['parquet']['save_seconds']:7.2f} {saved['arrow']['save_seconds']:7.2f} | "
            f"{reopen['parquet']['seconds']:8.2f} {reopen['arrow']['seconds']:8.2f}"
        )
    print()
    print("end to end, process start to exit (target: time <= 1.5x, peak memory <= 1.3x):")
    print(
        f"{'export':8} | {'polars s':>8} {'warpscope import -o .parquet s':>30} {'ratio':>5} | "
        f"{'polars MB':>9} {'warpscope MB':>12} {'ratio':>5}"
    )
    for name, base, ours in e2e:
        print(
            f"{name:8} | {base['seconds']:8.2f} {ours['seconds']:30.2f} {ours['seconds'] / base['seconds']:5.2f} | "
            f"{base['peak_mb']:9.0f} {ours['peak_mb']:12.0f} {ours['peak_mb'] / base['peak_mb']:5.2f}"
        )
    print(
        f"(medians of {args.repeat} runs each; in the first table import time and peak memory exclude saving; metric rows: "
        + ", ".join(f"{r[0]} {r[4]['rows']:,}" for r in rows)
        + f"; files in {work})"
    )


def _median(runs: list[dict]) -> dict:
    """The run of median time, with the median peak memory."""
    by_time = sorted(runs, key=lambda r: r["seconds"])
    return {**by_time[len(by_time) // 2], "peak_mb": statistics.median(r["peak_mb"] for r in runs)}


if __name__ == "__main__":
    main()
