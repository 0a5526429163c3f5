"""Long profiles: 1k to 100k (or 1M) launches, each command beside Polars' bare read of the file.

The raw pages are a real PyTorch training loop profiled on the H100
(sample_traces/h100/trainloop/trainloop_loop_raw_base.csv.gz: 524 launches, 285 columns),
repeated with fresh launch IDs to each size; with ``--distinct`` every copy also has each counter
and the duration scaled by 1 + N(0, 1%) (percentages kept within 0–100; launch and device
attributes as they are), so no two launches are alike and nothing groups. Timed in a fresh
process each, with the child's own peak resident memory (wait4):

  - polars:  `pl.read_csv(FILE)` (the baseline: reading the text, nothing else)
  - import:  `warpscope import FILE -o x.parquet`
  - report:  `warpscope report FILE -o r.md`
  - TUI:     the app on FILE headless (Textual's pilot): the kernel table on screen, then the
             findings analysed

    python benchmarks/scale_bench.py [--sizes 1000,10000,100000] [--max-tui 100000] [--distinct]
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
STEP = ROOT / "sample_traces" / "h100" / "trainloop" / "trainloop_loop_raw_base.csv.gz"
DATA = ROOT / "benchmarks" / "_data"
_ID = re.compile(rb'^"(\d+)"', re.M)
#: the identity columns of a raw page and the attributes of the launch and the device: not jittered
_KEPT = ("ID", "Process ID", "Context", "Stream", "Device", "CC")
_ATTRIBUTE = ("launch__", "device__", "c2clink__", "profiler__")
JITTER = 0.01

POLARS = "import polars as pl, sys; pl.read_csv(sys.argv[1], infer_schema=False)"
TUI = """
import asyncio, sys, time
t0 = time.perf_counter()
import warpscope
from warpscope.explore.workspace import Workspace
from warpscope.tui import WarpscopeApp
from warpscope.tui.screens.kernels import KernelsScreen

async def run():
    app = WarpscopeApp(lambda progress: Workspace(warpscope.load(sys.argv[1])))
    async with app.run_test(size=(160, 50)) as pilot:
        while not isinstance(app.screen, KernelsScreen):
            await asyncio.sleep(0.01)
        await pilot.pause()
        table = time.perf_counter() - t0
        while app.analysis is None or app.analysis.is_alive():
            await asyncio.sleep(0.02)
        await pilot.pause()
        print(f"{table:.2f} {time.perf_counter() - t0:.2f}")

asyncio.run(run())
"""


def synthesise(launches: int) -> Path:
    """The training loop's raw page repeated to ``launches`` launches, IDs renumbered."""
    path = DATA / f"trainloop_raw_{launches}.csv"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    header, units, body = gzip.decompress(STEP.read_bytes()).split(b"\n", 2)
    rows = [r for r in body.split(b"\n") if r.strip()]
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(header + b"\n" + units + b"\n")
        for copy in range(-(-launches // len(rows))):
            offset = copy * len(rows)
            chunk = b"\n".join(rows[: launches - offset]) + b"\n"
            out.write(_ID.sub(lambda m, offset=offset: b'"%d"' % (int(m.group(1)) + offset), chunk))
    tmp.rename(path)
    return path


def synthesise_distinct(launches: int, seed: int = 0) -> Path:
    """As ``synthesise``, every copy with its own jitter on every counter and the duration."""
    path = DATA / f"trainloop_raw_{launches}_distinct.csv"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    header, units, body = gzip.decompress(STEP.read_bytes()).split(b"\n", 2)
    step = pl.read_csv(io.BytesIO(header + b"\n" + body), infer_schema=False)
    unit = dict(zip(step.columns, pl.read_csv(io.BytesIO(header + b"\n" + units), infer_schema=False).row(0)))
    rng = np.random.default_rng(seed)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(header + b"\n" + units + b"\n")
        for offset in range(0, launches, step.height):
            copy = step.head(launches - offset)
            out.write(
                _jittered(copy, unit, offset, rng)
                .write_csv(include_header=False, quote_style="always")
                .encode()
            )
    tmp.rename(path)
    return path


def _jittered(
    step: pl.DataFrame, unit: dict[str, str | None], offset: int, rng: np.random.Generator
) -> pl.DataFrame:
    """One copy of the step: IDs moved by ``offset``, each number scaled by 1 + N(0, JITTER)."""
    columns = []
    for name in step.columns:
        text = pl.col(name)
        if name == "ID":
            columns.append((text.cast(pl.Int64) + offset).cast(pl.String))
            continue
        if name in _KEPT or name.startswith(_ATTRIBUTE):
            columns.append(text)
            continue
        value = text.str.replace_all(",", "").cast(pl.Float64, strict=False)
        scaled = value * pl.Series(1 + rng.normal(0, JITTER, step.height))
        if unit.get(name) == "%":
            scaled = scaled.clip(0, 100)
        columns.append(pl.when(value.is_not_null()).then(scaled.cast(pl.String)).otherwise(text).alias(name))
    return step.select(columns)


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak MiB (the child's own) and stdout of ``cmd`` in a fresh process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read().decode()[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out.read().decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--max-tui", type=int, default=100_000, help="largest size the TUI is timed at")
    parser.add_argument("--distinct", action="store_true", help="jitter every copy: no two launches alike")
    args = parser.parse_args()
    py = sys.executable
    print("| launches | file | Polars read | import | report | report ÷ Polars | TUI table | TUI findings |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in [int(s) for s in args.sizes.split(",")]:
        path = synthesise_distinct(n) if args.distinct else synthesise(n)
        base, base_mib, _ = timed([py, "-c", POLARS, str(path)])
        imp, imp_mib, _ = timed([py, "-m", "warpscope", "import", str(path), "-o", str(DATA / "x.parquet")])
        rep, rep_mib, _ = timed([py, "-m", "warpscope", "report", str(path), "-o", str(DATA / "r.md")])
        table, findings = "–", "–"
        if n <= args.max_tui:
            _, _, out = timed([py, "-c", TUI, str(path)])
            table, findings = (f"{float(x):.1f} s" for x in out.split())
        print(
            f"| {n:,} | {path.stat().st_size / 1e6:,.0f} MB | {base:.1f} s ({base_mib:,.0f} MiB) "
            f"| {imp:.1f} s ({imp_mib:,.0f} MiB) | {rep:.1f} s ({rep_mib:,.0f} MiB) | {rep / base:.1f}× "
            f"| {table} | {findings} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
