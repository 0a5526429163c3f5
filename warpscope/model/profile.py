"""A Profile: the Arrow tables one or more imported files become.

Saved as one file: the ``metrics`` table (the largest) is the file's body, so
``pl.read_parquet(path)`` / ``pl.read_ipc(path)`` give it directly; every other table
travels in the schema metadata as compressed Parquet under ``warpscope.<table>``, with a
blake2b checksum under ``warpscope.<table>.blake2b``. ``raw_metrics`` (thousands of text
columns) is scanned lazily: loading does not decode it, and a query reads only the columns
it names. Profiles saved when the tables went as Arrow IPC streams still load. Round trips
are lossless (types, nulls, order).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from warpscope.files import PARQUET_SUFFIXES, atomic_path
from warpscope.model import raw_pages, schema

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported where a profile is saved or loaded, not with this module: importing
# and reporting on an export never needs it, and it costs ~0.05 s of every start

FORMAT_VERSION = "1"
_META_PREFIX = b"warpscope."
_DIGEST = b".blake2b"
_MAX_META = 2**31 - 1


@dataclass
class Profile:
    """Tables of one profile, as Polars frames with the schemas of ``schema.TABLES``."""

    launches: pl.DataFrame = field(default_factory=lambda: schema.empty("launches"))
    metrics: pl.DataFrame = field(default_factory=lambda: schema.empty("metrics"))
    stalls: pl.DataFrame = field(default_factory=lambda: schema.empty("stalls"))
    findings: pl.DataFrame = field(default_factory=lambda: schema.empty("findings"))
    source: pl.DataFrame = field(default_factory=lambda: schema.empty("source"))
    transfers: pl.DataFrame = field(default_factory=lambda: schema.empty("transfers"))
    api_calls: pl.DataFrame = field(default_factory=lambda: schema.empty("api_calls"))
    sources: pl.DataFrame = field(default_factory=lambda: schema.empty("sources"))
    rejected: pl.DataFrame = field(default_factory=lambda: schema.empty("rejected"))
    timeline: pl.DataFrame = field(default_factory=lambda: schema.empty("timeline"))
    hazards: pl.DataFrame = field(default_factory=lambda: schema.empty("hazards"))
    #: lazy: thousands of columns nobody reads whole (``.select(...).collect()`` what you need)
    raw_metrics: pl.LazyFrame = field(default_factory=lambda: schema.empty("raw_metrics").lazy())
    raw_units: pl.DataFrame = field(default_factory=lambda: schema.empty("raw_units"))
    #: raw pages read whole keep those columns as compressed text instead (``raw_pages.py``);
    #: ``raw_cells`` reads both
    raw_pages: pl.DataFrame = field(default_factory=lambda: schema.empty("raw_pages"))
    #: the runs the tables came from (``warpscope.model.runs``): one row per run once saved
    runs: pl.DataFrame = field(default_factory=lambda: schema.empty("runs"))

    @staticmethod
    def table_names() -> list[str]:
        return [f.name for f in fields(Profile)]

    def tables(self) -> dict[str, pl.DataFrame | pl.LazyFrame]:
        return {name: getattr(self, name) for name in self.table_names()}

    # -- combining -------------------------------------------------------------
    @classmethod
    def concat(cls, profiles: list[Profile]) -> Profile:
        """One Profile holding all of ``profiles``, launch ids renumbered to stay unique."""
        if len(profiles) == 1:
            return profiles[0]
        # eager and lazy (wide) tables: Any, as the Profile fields' types differ by name
        parts: dict[str, list[Any]] = {n: [] for n in cls.table_names()}
        offset = 0
        for p in profiles:
            for name, frame in p.tables().items():
                if "launch_id" in _columns(frame) and offset:
                    frame = frame.with_columns(pl.col("launch_id") + offset)
                elif name == "raw_pages" and offset:
                    frame = frame.with_columns(pl.col("first_launch_id") + offset)
                parts[name].append(frame)
            # past every id the profile uses: a subset's raw pages still span their whole page
            ends = [int(p.launches["launch_id"].max()) + 1] if p.launches.height else []  # type: ignore[arg-type]
            if p.raw_pages.height:
                ends.append(int((p.raw_pages["first_launch_id"] + p.raw_pages["launches"]).max()))  # type: ignore[arg-type]
            offset += max(ends, default=0)
        tables: dict[str, Any] = {
            n: pl.concat(fs, how="diagonal" if n in schema.WIDE_TABLES else "vertical")
            for n, fs in parts.items()
        }
        tables["raw_units"] = tables["raw_units"].unique(maintain_order=True)
        return cls(**tables)

    def subset(self, launch_ids: list[int]) -> Profile:
        """The same profile holding only ``launch_ids`` (run-level tables kept whole)."""
        ids = [int(i) for i in launch_ids]
        tables: dict[str, Any] = {
            name: frame.filter(pl.col("launch_id").is_in(ids)) if "launch_id" in _columns(frame) else frame
            for name, frame in self.tables().items()
        }
        return Profile(**tables)

    # -- the raw page's unmapped cells -----------------------------------------
    def raw_names(self) -> set[str]:
        """Every unmapped raw-page column the profile holds (``raw_cells`` reads them)."""
        wide = set(self.raw_metrics.collect_schema().names()) - {"launch_id"}
        return wide | raw_pages.names(self.raw_pages)

    def raw_cells(self, columns: list[str] | None = None) -> pl.LazyFrame:
        """``launch_id`` and the unmapped raw-page ``columns`` (all when None) as exported text,
        one row per launch that has them; a column no page has is left out. Lazy: pages kept
        as text are parsed when collected, and only for the columns asked for."""
        wide = self.raw_metrics
        if columns is not None:
            have = set(wide.collect_schema().names())
            wide = wide.select("launch_id", *[c for c in dict.fromkeys(columns) if c in have])
        if self.raw_pages.is_empty():
            return wide
        parts = [wide, *raw_pages.cells(self.raw_pages, columns)]
        cells = pl.concat(parts, how="diagonal")
        # a subset keeps whole pages: only its own launches
        return cells.join(
            self.launches.lazy().select("launch_id"), on="launch_id", how="semi", maintain_order="left"
        )

    # -- saving and loading ----------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write to ``path`` (``.parquet``, or ``.arrow``/``.ipc``/``.feather``), atomically.

        The metrics table is the file's body; every other table goes as Parquet bytes (with a
        checksum) in its key-value metadata. Parquet is written by Polars (pyarrow is needed
        only for Arrow IPC), the tables encoded on two threads: a raw page's wide table takes
        most of the time, the others go beside it.
        """
        path = Path(path)
        names = [n for n in self.tables() if n != "metrics"]
        with ThreadPoolExecutor(max_workers=2) as pool:
            blobs = dict(zip(names, pool.map(lambda n: _to_parquet_bytes(getattr(self, n), n), names)))
        meta = {b"warpscope.format": FORMAT_VERSION.encode()}
        for name, blob in blobs.items():
            meta[_META_PREFIX + name.encode()] = base64.b64encode(blob)
            meta[_META_PREFIX + name.encode() + _DIGEST] = _digest(blob)
        with atomic_path(path) as tmp:
            if path.suffix.lower() in PARQUET_SUFFIXES:
                self.metrics.write_parquet(
                    tmp,
                    compression="zstd",
                    statistics=False,
                    metadata={k.decode(): v.decode() for k, v in meta.items()},
                )
            else:
                import pyarrow as pa
                import pyarrow.ipc as ipc

                # one chunk, one dictionary per column: the IPC file format allows no replacements
                body = self.metrics.rechunk().to_arrow().unify_dictionaries().combine_chunks()
                body = body.replace_schema_metadata({**(body.schema.metadata or {}), **meta})
                with pa.OSFile(str(tmp), "wb") as sink, ipc.new_file(sink, body.schema) as writer:
                    writer.write_table(body)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Profile:
        """Read a Profile written by ``save``."""
        import pyarrow as pa
        import pyarrow.ipc as ipc
        import pyarrow.parquet as pq

        path = Path(path)
        if _is_parquet(path):
            # the tables in the footer can pass Parquet's default 100 MB guard for Thrift strings;
            # ParquetFile, not read_table: that one loads pyarrow.dataset first (~0.1 s)
            body = pq.ParquetFile(
                path, thrift_string_size_limit=_MAX_META, thrift_container_size_limit=_MAX_META
            ).read()
        else:
            with pa.memory_map(str(path), "r") as source:
                body = ipc.open_file(source).read_all()
        meta = body.schema.metadata or {}
        if b"warpscope.format" not in meta:
            raise ValueError(f"{path}: not a warpscope profile (no warpscope metadata)")
        tables: dict[str, Any] = {}  # eager and lazy (wide) tables
        for name in cls.table_names():
            if name == "metrics":
                continue
            blob = meta.get(_META_PREFIX + name.encode())
            digest = meta.get(_META_PREFIX + name.encode() + _DIGEST)
            wide = name in schema.WIDE_TABLES
            if blob is None:
                tables[name] = schema.empty(name).lazy() if wide else schema.empty(name)
            elif digest is None and not wide:  # saved before tables went as Parquet
                tables[name] = _checked(name, _from_ipc_bytes(base64.b64decode(blob)))
            else:
                tables[name] = _table_from_parquet_bytes(name, base64.b64decode(blob), digest)
        body = body.replace_schema_metadata(None)
        # checked before Polars sees the table: a damaged column name makes Polars' Arrow
        # import panic in a way that aborts the process instead of raising
        unknown = [c for c in body.column_names if c not in schema.TABLES["metrics"]]
        if unknown:
            raise ValueError(
                f"table 'metrics' has columns warpscope does not write: {', '.join(unknown[:3])}"
            )
        metrics = pl.from_arrow(_plain(body))
        if not isinstance(metrics, pl.DataFrame):
            raise ValueError("the metrics table is not a table")
        tables["metrics"] = _checked("metrics", metrics)
        return cls(**tables)


def _columns(frame: pl.DataFrame | pl.LazyFrame) -> list[str]:
    return frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns


def _checked(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with the table's schema. A column the table lacks is null (profiles saved before
    it existed); a column warpscope does not know is a ValueError (a damaged or foreign file must
    not reach code that trusts the schema)."""
    unknown = [c for c in frame.columns if c not in schema.TABLES[name]]
    if unknown:
        raise ValueError(f"table {name!r} has columns warpscope does not write: {', '.join(unknown[:3])}")
    return schema.conform(name, frame)


def is_saved_profile(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` looks like a file ``Profile.save`` wrote (by its magic bytes)."""
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError:
        return False
    return head[:4] == b"PAR1" or head == b"ARROW1"


def _is_parquet(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"PAR1"


def _plain(table: pa.Table) -> pa.Table:
    """``table`` validated and without field metadata, fit to hand to Polars: its Arrow import
    panics (printing to stderr) on metadata that is not UTF-8."""
    import pyarrow as pa

    table.validate(full=True)
    return pa.Table.from_arrays(table.columns, names=[str(n) for n in table.column_names])


#: launches per row group of a saved wide table: the writer holds a row group of ~2,000 text
#: columns at a time (unbounded, a 2 GB raw export's took 1.8 GiB; this way 0.1 GiB)
_WIDE_ROW_GROUP = 16_384


def _to_parquet_bytes(frame: pl.DataFrame | pl.LazyFrame, name: str) -> bytes:
    """A table as Parquet bytes, without statistics (nothing filters on them; they cost a fifth of
    a raw page's save). A lazy (wide) table is streamed: a big raw page's chunks are never
    decoded all at once. Raw pages are compressed already."""
    sink = io.BytesIO()
    compression: Literal["uncompressed", "zstd"] = "uncompressed" if name == "raw_pages" else "zstd"
    if isinstance(frame, pl.LazyFrame):
        frame.sink_parquet(sink, compression=compression, statistics=False, row_group_size=_WIDE_ROW_GROUP)
    else:
        frame.write_parquet(sink, compression=compression, statistics=False)
    return sink.getvalue()


def _digest(blob: bytes) -> bytes:
    return hashlib.blake2b(blob, digest_size=16).hexdigest().encode()


def _table_from_parquet_bytes(name: str, blob: bytes, digest: bytes | None) -> pl.DataFrame | pl.LazyFrame:
    """A table saved in the metadata, checked by its checksum first: Polars then reads only
    bytes it wrote itself (its readers trust lengths; a damaged one can abort the process).
    A wide table is scanned lazily and its schema checked here, so a foreign one fails at
    load, not at the first query."""
    if digest != _digest(blob):
        raise ValueError(f"table {name!r} is damaged (its checksum does not match)")
    if name not in schema.WIDE_TABLES:
        return _checked(name, pl.read_parquet(io.BytesIO(blob)))
    fixed = schema.TABLES[name]
    found = pl.read_parquet_schema(io.BytesIO(blob))
    if any(c not in found for c in fixed):
        raise ValueError(f"table {name!r} lacks its key column")
    for column, dtype in found.items():
        if dtype != (fixed[column] if column in fixed else pl.String()):
            raise ValueError(f"table {name!r}: column {column[:80]!r} is {dtype}, not what warpscope writes")
    return pl.scan_parquet(io.BytesIO(blob))


def _from_ipc_bytes(blob: bytes) -> pl.DataFrame:
    # pyarrow reads and fully validates the stream first: Polars' own IPC reader trusts the
    # lengths in it, and a damaged length makes it allocate terabytes and abort the process
    import pyarrow as pa
    import pyarrow.ipc as ipc

    table = _plain(ipc.open_file(pa.BufferReader(blob)).read_all())
    frame = pl.from_arrow(table)
    if not isinstance(frame, pl.DataFrame):
        raise ValueError("not a table")
    return frame
