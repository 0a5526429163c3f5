"""Saving and loading a Profile is lossless, in both Parquet and Arrow IPC."""

from __future__ import annotations

import polars as pl
import pytest

import warpscope
from tests.conftest import H100, run_cli
from warpscope.model import schema
from warpscope.model.profile import Profile


@pytest.fixture(scope="module")
def rich_profile():
    # findings, stalls, metrics with items and stats, source rows, messages, rejections, and two
    # raw pages with different columns and units (wide raw_metrics, raw_units)
    return warpscope.load(
        [
            H100 / "seed_details_all.csv.gz",
            H100 / "seed_source_cuda_sass.csv",
            H100 / "seed_summary_per_kernel.csv",
            H100 / "seed_live_stdout.log.gz",
            H100 / "seed_raw_auto.csv",
            H100 / "seed_sass_counters_raw.csv",
        ]
    )


def _eager(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@pytest.mark.parametrize("suffix", [".parquet", ".arrow"])
def test_round_trip(tmp_path, rich_profile, suffix):
    path = tmp_path / f"p{suffix}"
    rich_profile.save(path)
    back = Profile.load(path)
    for name, frame in rich_profile.tables().items():
        frame, other = _eager(frame), _eager(getattr(back, name))
        assert other.schema == frame.schema, name
        assert other.equals(frame, null_equal=True), name
    assert rich_profile.launches["launch_id"].is_unique().all()
    assert rich_profile.source.height > 0 and rich_profile.findings.height > 0
    assert back.raw_units["source_file"].n_unique() == 2
    assert len(back.raw_names()) > 2000
    assert back.raw_cells().collect().equals(rich_profile.raw_cells().collect(), null_equal=True)


def test_tables_follow_the_schema(rich_profile):
    for name, frame in rich_profile.tables().items():
        found = dict(_eager(frame).schema)
        fixed = schema.TABLES[name]
        if name in schema.WIDE_TABLES:  # the fixed columns, then any number of text ones
            assert list(found.items())[: len(fixed)] == list(fixed.items())
            assert {t for c, t in found.items() if c not in fixed} == {pl.String()}
        else:
            assert found == fixed, name


def test_body_is_the_metrics_table(tmp_path, seed_raw):
    path = tmp_path / "p.parquet"
    seed_raw.save(path)
    assert pl.read_parquet(path).height == seed_raw.metrics.height


def test_cli_import_then_report_from_saved(tmp_path):
    out = tmp_path / "seed.arrow"
    result = run_cli("import", str(H100 / "seed_full_raw.csv"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "22 launches" in result.stderr
    from_csv = run_cli("report", str(H100 / "seed_full_raw.csv"), "--format", "json").stdout
    from_saved = run_cli("report", str(out), "--format", "json").stdout
    assert from_csv == from_saved and '"launch_id": 21' in from_saved


def test_raw_metrics_are_lazy_and_checked(tmp_path, seed_raw):
    """The raw page's unmapped columns travel as the page's compressed text and are parsed when
    a query names them; a damaged copy is refused at load (checksum) with one line, not at the
    first query."""
    import pyarrow.parquet as pq

    assert seed_raw.raw_pages.height == 1 and seed_raw.raw_metrics.collect_schema().names() == ["launch_id"]
    path = tmp_path / "p.parquet"
    seed_raw.save(path)
    back = Profile.load(path)
    one = back.raw_cells(["device__attribute_max_warps_per_multiprocessor", "no_such_metric"]).collect()
    assert one.columns == ["launch_id", "device__attribute_max_warps_per_multiprocessor"]
    assert one.height == 22 and set(one[:, 1]) == {"64"}
    assert back.raw_cells().collect().equals(seed_raw.raw_cells().collect())

    table = pq.ParquetFile(path).read()  # with the file's key-value metadata (read_table drops it)
    meta = dict(table.schema.metadata)
    blob = bytearray(meta[b"warpscope.raw_pages"])
    blob[len(blob) // 2] = ord("A") if blob[len(blob) // 2] != ord("A") else ord("B")
    meta[b"warpscope.raw_pages"] = bytes(blob)
    damaged = tmp_path / "damaged.parquet"
    pq.write_table(table.replace_schema_metadata(meta), damaged)
    with pytest.raises(ValueError, match=r"raw_pages.*damaged"):
        Profile.load(damaged)
    out = run_cli("report", str(damaged))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "damaged warpscope profile" in out.stderr


def test_raw_pages_follow_subset_and_concat(seed_raw):
    """Launch ids of a page kept as text follow a merge of profiles and a subset."""
    varies = "TPC.TriageCompute.sm__cycles_active.avg"  # unmapped, a value per launch
    cells = seed_raw.raw_cells(["device__attribute_display_name", varies]).collect()
    both = Profile.concat([seed_raw, seed_raw])
    twice = both.raw_cells(["device__attribute_display_name", varies]).collect()
    assert twice.height == 44 and twice["launch_id"].to_list() == both.launches["launch_id"].to_list()
    assert twice.drop("launch_id").equals(pl.concat([cells, cells]).drop("launch_id"))
    some = both.subset([30, 3]).raw_cells([varies]).collect()
    assert some["launch_id"].to_list() == [3, 30]
    assert some[varies].to_list() == [cells[varies][3], cells[varies][30 - 22]]
    # a subset's page still spans its 22 launches: what follows it is numbered past them
    after = Profile.concat([seed_raw.subset([3]), seed_raw]).raw_cells([varies]).collect()
    assert after["launch_id"].to_list() == [3, *range(22, 44)]
    assert after[varies].to_list() == [cells[varies][3], *cells[varies]]


def test_profiles_saved_with_ipc_tables_still_load(tmp_path, rich_profile):
    """Before the tables in the metadata went as checksummed Parquet they went as Arrow IPC
    streams (no checksum): such files still load, to the same tables."""
    import base64
    import io

    import pyarrow.parquet as pq

    path = tmp_path / "new.parquet"
    rich_profile.save(path)
    table = pq.ParquetFile(path).read()  # with the file's key-value metadata (read_table drops it)
    meta = {}
    for key, value in table.schema.metadata.items():
        name = key.decode().removeprefix("warpscope.")
        if key.endswith(b".blake2b") and name != "raw_metrics.blake2b":
            continue
        if name in Profile.table_names() and name != "raw_metrics":
            sink = io.BytesIO()
            getattr(rich_profile, name).write_ipc(sink, compression="zstd")
            value = base64.b64encode(sink.getvalue())
        meta[key] = value
    old = tmp_path / "old.parquet"
    pq.write_table(table.replace_schema_metadata(meta), old)
    back = Profile.load(old)
    for name, frame in rich_profile.tables().items():
        assert _eager(getattr(back, name)).equals(_eager(frame), null_equal=True), name
