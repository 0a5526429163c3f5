"""Reading a report through Nsight Compute's own export (``--via-ncu``).

For a report this reader cannot read whole (one from a newer Nsight Compute with messages it
does not know), where ``ncu`` is installed: ncu exports the raw page (base units) and the
details page, and the CSV importers read them as one report. The result is what ncu itself
prints (two decimals, shortened names), with no per-instruction counters.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import polars as pl

from warpscope.errors import InputError
from warpscope.importers.pages import merge_pages
from warpscope.model.profile import Profile

PAGES = {"raw": ["--page", "raw", "--print-units", "base"], "details": ["--page", "details"]}
HINT = "ncu is on the PATH: --via-ncu reads the report through Nsight Compute's own export"


def ncu_path() -> str | None:
    return shutil.which("ncu")


def import_via_ncu(path: str, import_file: Callable[[Path], Profile]) -> Profile:
    """The report's raw and details pages, exported by ncu and imported as one report."""
    ncu = ncu_path()
    if ncu is None:
        raise InputError(
            path,
            "--via-ncu needs NVIDIA's ncu-report (pip install 'warpscope[ncu]') or Nsight Compute's "
            "ncu on the PATH; neither is there",
        )
    with tempfile.TemporaryDirectory(prefix="warpscope-ncu-") as tmp:
        report = Path(tmp) / "report.ncu-rep"
        with open(path, "rb") as f:
            gzipped = f.read(2) == b"\x1f\x8b"
        if gzipped:  # ncu reads plain reports only
            with gzip.open(path, "rb") as src, report.open("wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            report.symlink_to(Path(path).resolve())
        pages = []
        for name, options in PAGES.items():
            page = Path(tmp) / f"{name}.csv"
            with page.open("wb") as out:
                done = subprocess.run(
                    [ncu, "--import", str(report), "--csv", *options], stdout=out, stderr=subprocess.PIPE
                )
            if done.returncode != 0:
                said = done.stderr.decode("utf-8", "replace").strip().splitlines()
                raise InputError(
                    path, f"ncu could not export it ({said[-1] if said else f'exit {done.returncode}'})"
                )
            pages.append(import_file(page))
    merged = merge_pages(pages)
    profile = merged[0]  # the raw page, with the details page's rules when the two agree
    said = ["read through ncu's own export of its raw and details pages"]
    if len(merged) > 1:
        said.append(
            "the details page did not match the raw page launch for launch: its rule results are left out"
        )
    sources = profile.sources.with_columns(
        pl.lit(path).alias("path"),
        pl.lit("ncu-rep via ncu").alias("format"),
        pl.col("notes").list.concat(pl.lit(said, dtype=pl.List(pl.String))),
    )
    return replace(
        profile,
        launches=profile.launches.with_columns(pl.lit(path).alias("source_file")),
        sources=sources.head(1).with_columns(
            pl.lit(int(sources["launches"][0])).alias("launches"),
        ),
        raw_units=profile.raw_units.with_columns(pl.lit(path).alias("source_file")),
    )
