"""Huge exports (issue 9): a 2 GB Nsight Compute details export imports with bounded memory,
shows progress, and Ctrl-C leaves no output file behind.

The exports are synthesised by replicating a real H100 export (sample_traces/h100/
seed_full_details.csv, or seed_full_raw.csv with --page raw) with fresh launch IDs, at a
tenth of the size and the full size (2 GB: 82,610 details launches or ~110,000 raw ones), and
imported by the real CLI (`warpscope import FILE -o OUT.parquet`) in a fresh process each.
Printed side by side: file size, wall time, the child's peak resident memory, and the
rows of the resulting tables -- peak memory should grow with the tables, not with the file.
Then the 2 GB import is interrupted with SIGINT halfway: exit 130 and no OUT.parquet nor
temporary file may remain.

    python benchmarks/huge_import.py [--gb 2] [--page details|raw]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {page: ROOT / "sample_traces" / "h100" / f"seed_full_{page}.csv" for page in ("details", "raw")}
DATA = ROOT / "benchmarks" / "_data"
_ID = re.compile(rb'^"(\d+)"', re.M)


def synthesise(gigabytes: float, page: str = "details") -> Path:
    """The seed export of ``page`` repeated until it is ``gigabytes`` large, launch IDs renumbered."""
    path = DATA / f"{page}_{gigabytes:g}gb.csv"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    header_lines = 2 if page == "raw" else 1  # the raw page has a units row
    *head, body = SEEDS[page].read_bytes().split(b"\n", header_lines)
    header = b"\n".join(head)
    launches = len(set(_ID.findall(body)))
    target = int(gigabytes * 1e9)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(header + b"\n")
        copy = 0
        while out.tell() < target:
            offset = copy * launches
            out.write(_ID.sub(lambda m, offset=offset: b'"%d"' % (int(m.group(1)) + offset), body))
            copy += 1
    tmp.rename(path)
    return path


def run_import(path: Path, out: Path, interrupt_after: float | None = None) -> dict:
    """`warpscope import path -o out` in a fresh process: wall time, its own peak RSS (wait4),
    exit code, stderr."""
    started = time.perf_counter()
    with open(DATA / "stderr.txt", "wb") as err:
        # SIGINT as a terminal sends it, even when this script runs in the background (where
        # the shell has children ignore it)
        child = subprocess.Popen(
            [sys.executable, "-m", "warpscope", "import", str(path), "-o", str(out)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            child.send_signal(signal.SIGINT)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    rc = os.waitstatus_to_exitcode(status)
    child.returncode = rc
    return {
        "rc": rc,
        "wall_s": wall,
        "peak_mib": usage.ru_maxrss / 1024,
        "stderr": (DATA / "stderr.txt").read_text(errors="replace"),
    }


def table_rows(out: Path) -> str:
    sys.path.insert(0, str(ROOT))
    import warpscope

    p = warpscope.load(out)
    raw = len(p.raw_names())
    return (
        f"{p.launches.height:,} launches, {p.metrics.height:,} metric rows, {p.findings.height:,} findings"
        + (f", {raw:,} unmapped raw columns" if raw else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--page", choices=("details", "raw"), default="details")
    args = parser.parse_args()
    sizes = [args.gb / 10, args.gb]
    print(f"{'export':24} {'size':>9} {'wall':>8} {'peak RSS':>10}  result")
    for gb in sizes:
        path = synthesise(gb, args.page)
        out = DATA / f"{path.stem}.parquet"
        out.unlink(missing_ok=True)
        r = run_import(path, out)
        if r["rc"] != 0:
            raise SystemExit(f"import failed ({r['rc']}): {r['stderr'][-2000:]}")
        print(
            f"{path.name:24} {path.stat().st_size / 1e9:7.2f}GB {r['wall_s']:7.1f}s {r['peak_mib']:8.0f}MiB  "
            f"{table_rows(out)}"
        )
        full = r
    # Ctrl-C halfway through the big one
    out = DATA / "interrupted.parquet"
    out.unlink(missing_ok=True)
    r = run_import(synthesise(args.gb, args.page), out, interrupt_after=full["wall_s"] / 2)
    leftovers = [p.name for p in DATA.iterdir() if p.name.startswith(f".{out.name}.")]
    print(
        f"\nSIGINT after {full['wall_s'] / 2:.1f} s: exit {r['rc']}, stderr {r['stderr'].strip().splitlines()[-1:]}, "
        f"{out.name} {'EXISTS' if out.exists() else 'absent'}, temporary files left: {leftovers or 'none'}"
    )
    if r["rc"] != 130 or out.exists() or leftovers:
        sys.exit(1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
