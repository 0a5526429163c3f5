"""A run's identity: the ``runs`` row that says which files, GPU and labels a profile came from.

A run id sorts by import time (UTC, to the microsecond) and ends in a random suffix, so CI jobs
that import at the same moment never share one. It is also a hive partition value
(``run_id=…``): letters in it keep engines from reading it as a number.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from warpscope.model import schema

#: labels from the environment, ``key=value`` pairs separated by commas
LABELS_ENV = "WARPSCOPE_LABELS"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_RUN_ID = re.compile(r"\d{8}T\d{12}Z-[0-9a-f]{6}")
_PROFILERS = {"nvprof": "nvprof", "emulator": "emulator"}


def new_run_id(now: datetime | None = None) -> str:
    """``20261125T191502123456Z-3fa9c1``: sortable by time, unique across processes."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%S%f}Z-{secrets.token_hex(3)}"


def is_run_id(text: str) -> bool:
    return _RUN_ID.fullmatch(text) is not None


def parse_labels(pairs: Iterable[str], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``key=value`` labels: those of ``WARPSCOPE_LABELS`` first, then ``pairs`` (which win).

    A key is a short identifier (letters, digits, ``_ . -``); the value is any text. A pair
    without ``=`` or with a bad key is a ValueError naming it."""
    env = os.environ if env is None else env
    from_env = [p for p in env.get(LABELS_ENV, "").split(",") if p.strip()]
    labels: dict[str, str] = {}
    for origin, items in ((LABELS_ENV, from_env), ("--label", list(pairs))):
        for pair in items:
            key, sep, value = pair.partition("=")
            key = key.strip()
            if not sep or _KEY.fullmatch(key) is None:
                raise ValueError(
                    f"{origin} {pair!r}: expected KEY=VALUE with a key of letters, digits, _ . - "
                    "(e.g. commit=abc123)"
                )
            labels[key] = value.strip()
    return labels


def file_entries(paths: Iterable[str | os.PathLike[str]], formats: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per input file: the path as given, its format, SHA-256 and size (None where unreadable)."""
    out = []
    for path in paths:
        digest, size = None, None
        try:
            with open(path, "rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
            size = Path(path).stat().st_size
        except OSError:
            pass
        out.append({"path": str(path), "format": formats.get(str(path)), "sha256": digest, "bytes": size})
    return out


def run_row(
    launches: pl.DataFrame,
    sources: pl.DataFrame,
    *,
    run_id: str | None = None,
    labels: Mapping[str, str] | None = None,
    files: list[dict[str, Any]] | None = None,
    driver: str | None = None,
    profiler_version: str | None = None,
) -> pl.DataFrame:
    """The one-row ``runs`` table of a profile of ``launches`` read from ``sources``."""
    labels = dict(labels or {})
    run_id = run_id or new_run_id()
    stamp = datetime.strptime(run_id[:21], "%Y%m%dT%H%M%S%f").replace(tzinfo=UTC)
    if files is None:
        files = [
            {"path": p, "format": f, "sha256": None, "bytes": None}
            for p, f in sources.select("path", "format").iter_rows()
        ]
    row = {
        "run_id": run_id,
        "imported_at": stamp,
        "commit": labels.get("commit"),
        "branch": labels.get("branch"),
        "labels": [{"key": k, "value": v} for k, v in labels.items()],
        "files": files,
        "gpu": _joined(launches, "device_name"),
        "compute_capability": _joined(launches, "compute_capability"),
        "sm_count": _first_int(launches, "sm_count"),
        "driver": driver,
        "profiler": _profiler(sources),
        "profiler_version": profiler_version,
        "host": _joined(launches, "host"),
        "launches": launches.height,
        "kernel_time_ns": launches["duration_ns"].sum() if launches.height else None,
        "warpscope_version": _warpscope_version(),
    }
    return pl.DataFrame([row], schema=schema.RUNS)


def _warpscope_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:  # as warpscope.__version__ reads it (importing the package from here would be a cycle)
        return version("warpscope")
    except PackageNotFoundError:
        return "0+unknown"


def _joined(launches: pl.DataFrame, column: str) -> str | None:
    values = [v for v in launches[column].unique(maintain_order=True).to_list() if v]
    return " + ".join(values) or None


def _first_int(launches: pl.DataFrame, column: str) -> int | None:
    values = launches[column].drop_nulls()
    return int(values[0]) if values.len() else None


def _profiler(sources: pl.DataFrame) -> str | None:
    names = []
    for fmt in sources["format"].drop_nulls().to_list():
        head = fmt.split("-", 1)[0]
        names.append(_PROFILERS.get(head, "ncu" if head.startswith("ncu") else head))
    return " + ".join(dict.fromkeys(names)) or None
