"""Profiles on disk as plain Parquet tables: one run in a folder, many runs as a dataset.

A saved profile folder holds ``<table>.parquet`` per table, every row carrying its ``run_id``,
and ``runs.parquet`` with the run's identity. A dataset is hive-partitioned:
``DATASET/<table>/run_id=<id>/part-0.parquet`` (the partition path carries ``run_id``; the files
do not repeat it), so DuckDB, Polars, pyarrow, Spark and Trino read it as it is.

Nothing is hidden in blobs: the raw page's unmapped cells are the wide ``raw_metrics`` table
(text, as exported), categoricals are written as plain strings.

Appending is safe with several writers at once: a run is written under ``DATASET/.staging/``
and each table's partition renamed into place (a rename within one filesystem is atomic),
``runs`` last. A run is committed when its ``runs`` row exists; readers see committed runs only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl

from warpscope.model import schema
from warpscope.model.profile import Profile
from warpscope.model.runs import is_run_id, run_row

#: tables written to disk; ``raw_pages`` (compressed text) goes as the plain ``raw_metrics``
TABLES = [name for name in Profile.table_names() if name != "raw_pages"]
PART = "part-0.parquet"
STAGING = ".staging"


def is_profile_folder(path: str | os.PathLike[str]) -> bool:
    """A folder written by ``save_folder`` (it holds ``runs.parquet``)."""
    return (Path(path) / "runs.parquet").is_file()


def is_dataset(path: str | os.PathLike[str]) -> bool:
    """A dataset written by ``append_run`` (it holds a ``runs/`` partition folder)."""
    return (Path(path) / "runs").is_dir()


def may_append_to(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` can take a run: absent, or a folder holding nothing but a dataset's
    tables and staging area (another writer may be creating it this very moment)."""
    folder = Path(path)
    if not folder.exists():
        return True
    return folder.is_dir() and all(p.name in TABLES or p.name == STAGING for p in folder.iterdir())


def with_run(profile: Profile, **identity: Any) -> Profile:
    """``profile`` with exactly one ``runs`` row: its own where it has one, else a new one
    (``identity``: ``run_id``, ``labels``, ``files``, ... as ``run_row`` takes them)."""
    if profile.runs.height == 1 and not identity:
        return profile
    runs = run_row(profile.launches, profile.sources, **identity)
    return replace(profile, runs=runs)


# -- one run in a folder ---------------------------------------------------------------------
def save_folder(profile: Profile, path: str | os.PathLike[str]) -> str:
    """Write ``profile`` as ``path/<table>.parquet`` (replacing what was there); its run id."""
    profile = with_run(profile)
    run_id = str(profile.runs["run_id"][0])
    target = Path(path)
    if target.exists() and not (target.is_dir() and (is_profile_folder(target) or not any(target.iterdir()))):
        raise FileExistsError(f"{target}: exists and is not a saved profile folder; not replacing it")
    target.parent.mkdir(parents=True, exist_ok=True)
    with _fresh_folder(target) as tmp:
        for name in TABLES:
            frame = portable(table_frame(profile, name)).with_columns(pl.lit(run_id).alias("run_id"))
            frame = frame.select("run_id", pl.exclude("run_id"))
            _write(frame, tmp / f"{name}.parquet")
    return run_id


def load_folder(path: str | os.PathLike[str]) -> Profile:
    """A Profile from a folder ``save_folder`` wrote (``raw_metrics`` scanned lazily)."""
    folder = Path(path)
    tables: dict[str, Any] = {}
    for name in TABLES:
        file = folder / f"{name}.parquet"
        if not file.is_file():
            tables[name] = schema.empty(name).lazy() if name in schema.WIDE_TABLES else schema.empty(name)
            continue
        tables[name] = _read(file, name, drop_run_id=name != "runs")
    return Profile(**tables)


# -- many runs in a dataset ------------------------------------------------------------------
def append_run(profile: Profile, dataset: str | os.PathLike[str]) -> str:
    """Add ``profile`` to ``dataset`` (created if absent) as one run; its run id."""
    profile = with_run(profile)
    run_id = str(profile.runs["run_id"][0])
    root = Path(dataset)
    staging = root / STAGING / run_id
    staging.mkdir(parents=True, exist_ok=False)
    try:
        written = []
        for name in TABLES:
            frame = table_frame(profile, name)
            if name != "runs" and _is_empty(frame):
                continue  # a partition is only where rows are
            part = staging / name
            part.mkdir()
            _write(portable(frame), part / PART)
            written.append(name)
        for name in sorted(written, key=lambda n: n == "runs"):  # runs last: the commit
            (root / name).mkdir(exist_ok=True)
            os.rename(staging / name, root / name / f"run_id={run_id}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return run_id


def runs(dataset: str | os.PathLike[str]) -> pl.DataFrame:
    """The committed runs of ``dataset``, oldest first."""
    files = partition_files(Path(dataset), "runs")
    if not files:
        return schema.empty("runs")
    return schema.conform("runs", read_files(files)).sort("run_id")


def read_files(
    files: list[Path], columns: list[str] | None = None, where: pl.Expr | None = None
) -> pl.DataFrame:
    """Partition files as one frame, with ``run_id`` from their paths: ``columns`` of the rows
    ``where`` holds. One scan over the list (1,000 runs' launches in ~0.1 s; a read per file
    costs several times that)."""
    frame = pl.scan_parquet(files, hive_partitioning=True, hive_schema={"run_id": pl.String})
    if where is not None:
        frame = frame.filter(where)
    return (frame.select(columns) if columns else frame).collect()


def committed_files(dataset: str | os.PathLike[str], table: str, only: list[str] | None = None) -> list[Path]:
    """The partition files of ``table`` of the committed runs (or of those of ``only``)."""
    root = Path(dataset)
    wanted = set(only) if only is not None else set(run_ids(root))
    return [f for f in partition_files(root, table) if f.parent.name.removeprefix("run_id=") in wanted]


def run_ids(dataset: str | os.PathLike[str]) -> list[str]:
    """Committed run ids, oldest first (from the partition names: nothing is read)."""
    return sorted(f.parent.name.removeprefix("run_id=") for f in partition_files(Path(dataset), "runs"))


def select_run(dataset: str | os.PathLike[str], spec: str | None = None, *, offset: int = 0) -> str:
    """A run id of ``dataset``: the newest (``offset`` runs back from it), the run ``spec`` names
    (its id, or a unique prefix of it), or the newest run labelled ``spec`` = ``KEY=VALUE``.
    A KeyError says what is missing."""
    ids = run_ids(dataset)
    if not ids:
        raise KeyError("the dataset has no runs yet")
    if spec is None:
        if offset >= len(ids):
            raise KeyError(f"the dataset has {len(ids)} run(s)")
        return ids[-1 - offset]
    key, sep, value = spec.partition("=")
    if sep:
        table = runs(dataset)
        for run_id, labels in reversed(table.select("run_id", "labels").rows()):
            if any(lab["key"] == key and lab["value"] == value for lab in labels or ()):
                return str(run_id)
        raise KeyError(f"no run labelled {spec}")
    matches = [i for i in ids if i.startswith(spec)]
    if len(matches) != 1:
        raise KeyError(f"no run {spec}" if not matches else f"{len(matches)} runs start with {spec}")
    return str(matches[0])


def load_run(dataset: str | os.PathLike[str], run_id: str) -> Profile:
    """One run of ``dataset`` as a Profile."""
    root = Path(dataset)
    if not (root / "runs" / f"run_id={run_id}" / PART).is_file():
        raise KeyError(run_id)
    tables: dict[str, Any] = {}
    for name in TABLES:
        file = root / name / f"run_id={run_id}" / PART
        if file.is_file():
            tables[name] = _read(file, name, drop_run_id=False)
        else:
            tables[name] = schema.empty(name).lazy() if name in schema.WIDE_TABLES else schema.empty(name)
    return Profile(**tables)


def scan(dataset: str | os.PathLike[str], table: str, only: list[str] | None = None) -> pl.LazyFrame:
    """``table`` over the committed runs of ``dataset`` (or those of ``only``), with ``run_id``."""
    files = committed_files(dataset, table, only)
    if not files:
        return schema.empty(table).with_columns(pl.lit(None, pl.String).alias("run_id")).lazy()
    return pl.scan_parquet(files, hive_partitioning=True, missing_columns="insert", extra_columns="ignore")


# -- helpers ---------------------------------------------------------------------------------
def partition_files(root: Path, table: str) -> list[Path]:
    folder = root / table
    if not folder.is_dir():
        return []
    return sorted(
        p / PART
        for p in folder.iterdir()
        if p.name.startswith("run_id=") and is_run_id(p.name.removeprefix("run_id=")) and (p / PART).is_file()
    )


def table_frame(profile: Profile, name: str) -> pl.DataFrame | pl.LazyFrame:
    if name == "raw_metrics":
        return profile.raw_cells()  # raw pages kept as compressed text come out as columns
    frame: pl.DataFrame = getattr(profile, name)
    return frame


def _is_empty(frame: pl.DataFrame | pl.LazyFrame) -> bool:
    if isinstance(frame, pl.LazyFrame):
        return bool(frame.select(pl.len()).collect().item() == 0)
    return frame.is_empty()


def portable(frame: pl.DataFrame | pl.LazyFrame) -> Any:  # the type it was given
    """Categoricals as plain strings: every engine reads them the same way."""
    cats = [c for c, t in frame.collect_schema().items() if isinstance(t, pl.Categorical)]
    return frame.with_columns(pl.col(cats).cast(pl.String)) if cats else frame


def _write(frame: pl.DataFrame | pl.LazyFrame, file: Path) -> None:
    if isinstance(frame, pl.LazyFrame):  # a wide raw page: streamed, never decoded whole
        frame.sink_parquet(file, compression="zstd", row_group_size=16_384)
    else:
        frame.write_parquet(file, compression="zstd")


def _read(file: Path, name: str, *, drop_run_id: bool) -> pl.DataFrame | pl.LazyFrame:
    if name in schema.WIDE_TABLES:
        wide = pl.scan_parquet(file)
        return wide.drop("run_id") if drop_run_id and "run_id" in wide.collect_schema() else wide
    frame = pl.read_parquet(file)
    unknown = [c for c in frame.columns if c not in schema.TABLES[name] and c != "run_id"]
    if unknown:
        raise ValueError(f"{file}: columns warpscope does not write: {', '.join(unknown[:3])}")
    return schema.conform(name, frame)


@contextmanager
def _fresh_folder(target: Path) -> Iterator[Path]:
    """A temporary folder beside ``target``, put in its place when the block ends without error."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            os.rename(target, old / "previous")
        os.rename(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
