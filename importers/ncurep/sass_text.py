"""SASS text of a report's instructions, from NVIDIA's ``ncu-report`` package where installed.

A report holds the cubin, not its disassembly (``source.py``); Nsight Compute disassembles the
cubin with its own disassembler, which the ``ncu-report`` package (``pip install
'warpscope[ncu]'``) ships. Where it is installed, each instruction's text is asked of it
(``IAction.sass_by_pc``); where it is not, or cannot read the report, instructions have an
address and no text, and the import notes say so.
"""

from __future__ import annotations

import gzip
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

#: what the import notes say when the instructions have no text
NO_TEXT = (
    "SASS text needs NVIDIA's ncu-report package (pip install 'warpscope[ncu]'): "
    "instructions are listed by address only"
)


#: the label ncu-report's disassembly gives a branch target, "BRA `(.L_x_0) 0x7f03197b2250",
#: which ncu's source page leaves out ("BRA 0x7f03197b2250")
_LABEL = re.compile(r"`\(\.L_x_\d+\) ")


def available() -> bool:
    try:
        import ncu_report  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return True


def _actions(report: Any) -> list[Any]:
    """Every action of the report, range by range (the report's own order)."""
    out = []
    for r in range(report.num_ranges()):
        current = report.range_by_idx(r)
        out += [current.action_by_idx(a) for a in range(current.num_actions())]
    return out


def texts(path: str, source: pl.DataFrame, mangled: list[str]) -> pl.DataFrame | None:
    """``source`` with ``code`` set on its instruction rows from ncu-report's disassembly, or
    None where ncu-report is not installed, cannot load the report, or lists other launches
    than warpscope read (``mangled``: each launch's mangled name, in order)."""
    try:
        import ncu_report
    except ImportError:
        return None
    wanted = source.filter(pl.col("address").is_not_null()).select("launch_id", "address").unique()
    if wanted.is_empty():
        return source
    with tempfile.TemporaryDirectory(prefix="warpscope-sass-") as tmp:
        plain = Path(tmp) / "report.ncu-rep"
        with open(path, "rb") as f:
            gzipped = f.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if gzipped else open(path, "rb") as f, open(plain, "wb") as out:
            shutil.copyfileobj(f, out)
        try:
            report = ncu_report.load_report(str(plain))
        except Exception:  # NVIDIA's reader refusing a report: no text, no failure
            return None
        actions = _actions(report)
        names = [a.name(a.NameBase_MANGLED) for a in actions]
        if names != mangled:
            return None
        code = [
            _LABEL.sub("", actions[launch].sass_by_pc(int(address, 16))).strip() or None
            for launch, address in wanted.iter_rows()
        ]
    found = wanted.with_columns(pl.Series("sass", code, dtype=pl.String))
    return (
        source.join(found, on=["launch_id", "address"], how="left")
        .with_columns(pl.coalesce("code", "sass").alias("code"))
        .drop("sass")
    )
