"""SQL over profiles with DuckDB (embedded): the tables are views over the Parquet files.

A dataset's tables read its hive partitions (``run_id`` from the path), committed runs only; a
saved profile folder's tables read its files; any other input (an export, a single-file save)
is imported and its tables handed to DuckDB as Arrow. Only the tables a query names are
opened, so a query of ``launches`` never reads the thousands of ``raw_metrics`` columns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from warpscope.model import schema, store
from warpscope.model.profile import Profile

if TYPE_CHECKING:
    import duckdb

#: every table a query may name
TABLES = store.TABLES


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _named(sql: str) -> list[str]:
    return [t for t in TABLES if re.search(rf"\b{t}\b", sql, re.IGNORECASE)]


def connect_dataset(root: Path, sql: str) -> duckdb.DuckDBPyConnection:
    """A connection with a view per table of dataset ``root`` that ``sql`` names: each reads the
    partition files of the committed runs, listed (a glob would also read a run being written)."""
    import duckdb

    con = duckdb.connect()
    committed = set(store.run_ids(root))
    for table in _named(sql):
        files = [
            f
            for f in store.partition_files(root, table)
            if f.parent.name.removeprefix("run_id=") in committed
        ]
        if not files:  # no run has rows in it: an empty view of its columns
            _register(con, table, _empty(table))
            continue
        listed = "[" + ", ".join(_quoted(f) for f in files) + "]"
        # every run writes the same columns but the raw page's, which differ by export
        union = ", union_by_name = true" if table in schema.WIDE_TABLES else ""
        con.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_parquet({listed}, hive_partitioning = true, "
            f"hive_types = {{'run_id': 'VARCHAR'}}{union})"
        )
    return con


def connect_folder(folder: Path, sql: str) -> duckdb.DuckDBPyConnection:
    """A connection with a view per table of saved profile ``folder`` that ``sql`` names."""
    import duckdb

    con = duckdb.connect()
    for table in _named(sql):
        file = folder / f"{table}.parquet"
        if file.is_file():
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet({_quoted(file)})")
        else:
            _register(con, table, _empty(table))
    return con


def connect_profile(profile: Profile, sql: str) -> duckdb.DuckDBPyConnection:
    """A connection with the tables of an in-memory ``profile`` that ``sql`` names."""
    import duckdb

    profile = store.with_run(profile)
    run_id = profile.runs["run_id"][0]
    con = duckdb.connect()
    for table in _named(sql):
        frame = store.portable(store.table_frame(profile, table))
        frame = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
        if table != "runs":
            frame = frame.with_columns(pl.lit(run_id).alias("run_id"))
        _register(con, table, frame)
    return con


def _empty(table: str) -> pl.DataFrame:
    return store.portable(schema.empty(table)).with_columns(pl.lit(None, pl.String).alias("run_id"))


def _register(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    con.register(f"_{table}_arrow", frame.to_arrow())
    con.execute(f"CREATE VIEW {table} AS SELECT * FROM _{table}_arrow")


def run(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    """The result of ``sql`` as a frame (an empty one for a statement without rows)."""
    relation = con.sql(sql)
    if relation is None:  # a statement without a result
        return pl.DataFrame()
    frame = relation.pl()
    return frame if isinstance(frame, pl.DataFrame) else frame.collect()


def as_markdown(frame: pl.DataFrame) -> str:
    """A GitHub markdown table; text shown literally (escaped), numbers right-aligned."""
    from warpscope.report.escape import md_cell

    if not frame.columns:
        return ""
    numeric = [dtype.is_numeric() for dtype in frame.dtypes]
    lines = [
        "| " + " | ".join(md_cell(c) for c in frame.columns) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in frame.iter_rows():
        lines.append("| " + " | ".join(md_cell(_text(v)) for v in row) + " |")
    return "\n".join(lines) + "\n"


def as_json(frame: pl.DataFrame) -> str:
    """One JSON array of row objects (non-finite numbers as null)."""
    return (
        json.dumps([_jsonable(r) for r in frame.iter_rows(named=True)], ensure_ascii=True, allow_nan=False)
        + "\n"
    )


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else str(value)
    return str(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, int | str | bool) or value is None:
        return value
    return str(value)  # dates, times, decimals
