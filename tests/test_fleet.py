"""A fleet of runs as one dataset: saved profiles as plain Parquet tables, hive-partitioned runs,
trends over commits and SQL — read by DuckDB, Polars and pyarrow alike (docs/fleet.md)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys

import duckdb
import polars as pl
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import warpscope
from tests.conftest import (
    CNN_FILES,
    FLEET_KERNEL,
    FLEET_REGRESSION,
    FLEET_RUNS,
    H100,
    ROOT,
    run_cli,
)
from warpscope.analysis import analyze
from warpscope.model import store
from warpscope.report.trend import trend

SEED = H100 / "seed_full_raw.csv"


@pytest.fixture(scope="module")
def saved_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saved") / "step"
    out = run_cli(
        "import",
        *map(str, CNN_FILES),
        "-o",
        str(folder),
        "--label",
        "commit=abc123",
        "--label",
        "branch=main",
    )
    assert out.returncode == 0, out.stderr
    return folder


def test_a_saved_folder_is_plain_tables_every_engine_reads(saved_folder):
    launches = saved_folder / "launches.parquet"
    rows = duckdb.sql(f"select run_id, kernel, duration_ns from '{launches}'").fetchall()
    assert len(rows) == 90
    assert any(kernel.startswith("void cudnn::bn_bw_1C11_kernel_new") for _, kernel, _ in rows)
    run = pq.read_table(saved_folder / "runs.parquet").to_pylist()
    assert len(run) == 1 and {r[0] for r in rows} == {run[0]["run_id"]}
    assert (run[0]["commit"], run[0]["branch"]) == ("abc123", "main")
    assert run[0]["labels"] == [{"key": "commit", "value": "abc123"}, {"key": "branch", "value": "main"}]
    assert run[0]["gpu"] == "NVIDIA H100 80GB HBM3" and run[0]["profiler"] == "ncu"
    assert [(f["path"], f["sha256"]) for f in run[0]["files"]] == [
        (str(p), hashlib.sha256(p.read_bytes()).hexdigest()) for p in CNN_FILES
    ]
    findings = pl.read_parquet(saved_folder / "findings.parquet")
    assert set(findings["origin"]) == {"warpscope", "ncu"}
    assert findings["run_id"].unique().to_list() == [run[0]["run_id"]]
    # the raw page's 2,000-odd unmapped columns are a plain wide table, not a blob
    raw = pq.read_schema(saved_folder / "raw_metrics.parquet")
    assert "device__attribute_display_name" in raw.names and len(raw.names) > 2000


def test_a_saved_folder_reopens_as_the_profile_it_saved(saved_folder):
    fresh = analyze(warpscope.load(CNN_FILES))
    back = warpscope.load(saved_folder)
    for name in ("launches", "metrics", "stalls", "findings", "sources"):
        expected = getattr(fresh, name)
        assert getattr(back, name).equals(expected), name
    columns = ["device__attribute_display_name", "launch__grid_size"]
    assert back.raw_cells(columns).collect().equals(fresh.raw_cells(columns).collect())
    assert back.runs.height == 1


def test_single_file_saves_still_work_and_keep_the_run(tmp_path):
    out = run_cli("import", str(SEED), "-o", str(tmp_path / "x.parquet"), "--label", "commit=f00")
    assert out.returncode == 0, out.stderr
    back = warpscope.load(tmp_path / "x.parquet")
    assert back.launches.height == 22 and back.runs["commit"].to_list() == ["f00"]


def test_import_refuses_to_replace_a_folder_that_is_not_a_profile(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "main.cu").write_text("// mine")
    out = run_cli("import", str(SEED), "-o", str(tmp_path / "project"))
    assert out.returncode == 2 and "not a saved profile folder" in out.stderr
    assert (tmp_path / "project" / "main.cu").read_text() == "// mine"


def test_labels_from_the_environment_and_bad_labels(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSCOPE_LABELS", "commit=e1,gpu=h100")
    out = run_cli("import", str(SEED), "--into", str(tmp_path / "ds"), "--label", "commit=c1")
    assert out.returncode == 0, out.stderr
    (run,) = store.runs(tmp_path / "ds").to_dicts()
    assert run["commit"] == "c1" and {"key": "gpu", "value": "h100"} in run["labels"]
    bad = run_cli("import", str(SEED), "--into", str(tmp_path / "ds"), "--label", "no equals sign")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "KEY=VALUE" in bad.stderr


def test_the_dataset_reads_the_same_in_duckdb_polars_and_pyarrow(fleet_dataset):
    per_run = duckdb.sql(
        f"select run_id, count(*) n, sum(duration_ns) t from read_parquet('{fleet_dataset}/launches/*/*.parquet', "
        "hive_partitioning = true) group by run_id order by run_id"
    ).fetchall()
    by_polars = (
        pl.scan_parquet(fleet_dataset / "launches", hive_partitioning=True)
        .group_by("run_id")
        .agg(pl.len().alias("n"), pl.col("duration_ns").sum().alias("t"))
        .sort("run_id")
        .collect()
        .rows()
    )
    table = pads.dataset(fleet_dataset / "launches", format="parquet", partitioning="hive").to_table()
    by_arrow = (
        pl.from_arrow(table)
        .group_by("run_id")
        .agg(pl.len().alias("n"), pl.col("duration_ns").sum().alias("t"))
        .sort("run_id")
        .rows()
    )
    assert len(per_run) == FLEET_RUNS and all(n == 90 for _, n, _ in per_run)
    for other in (by_polars, by_arrow):
        assert [r[:2] for r in other] == [r[:2] for r in per_run]
        assert [r[2] for r in other] == pytest.approx([r[2] for r in per_run], rel=1e-12)
    names = duckdb.sql(
        f"select distinct f.rule_id from read_parquet('{fleet_dataset}/findings/*/*.parquet', hive_partitioning = true) f "
        "where f.origin = 'warpscope'"
    ).fetchall()
    assert names


def test_a_run_being_written_is_invisible_until_its_runs_row_lands(fleet_dataset, tmp_path):
    ds = tmp_path / "ds"
    shutil.copytree(fleet_dataset, ds)
    newest = store.run_ids(ds)[-1]
    half = "20990101T000000000000Z-abcdef"  # tables renamed in, runs not yet
    shutil.copytree(ds / "launches" / f"run_id={newest}", ds / "launches" / f"run_id={half}")
    assert store.run_ids(ds)[-1] == newest
    out = run_cli(
        "query", str(ds), "select count(distinct run_id) runs, count(*) launches from launches", "-f", "json"
    )
    assert json.loads(out.stdout) == [{"runs": FLEET_RUNS, "launches": 90 * FLEET_RUNS}]
    assert len(trend(ds).points) == FLEET_RUNS
    assert warpscope.load(ds).runs["run_id"].to_list() == [newest]


def test_concurrent_appends_lose_nothing(tmp_path):
    ds = tmp_path / "ds"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "warpscope",
                "import",
                str(SEED),
                "--into",
                str(ds),
                "--label",
                f"commit=c{i}",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    runs = store.runs(ds)
    assert sorted(runs["commit"]) == ["c0", "c1", "c2", "c3"]
    per_run = store.scan(ds, "launches").group_by("run_id").len().collect()
    assert per_run.height == 4 and set(per_run["len"]) == {22}
    assert not any((ds / store.STAGING).iterdir())


def test_trend_finds_the_planted_regression_and_the_counters_that_moved(fleet_dataset):
    result = trend(fleet_dataset, by="commit")
    changed = [s for s in result.series if s.changes]
    assert [s.kernel for s in changed] == [FLEET_KERNEL]  # none of the 53 jittered kernels
    (change,) = changed[0].changes
    assert result.points[change.index]["key"] == f"c{FLEET_REGRESSION:04d}"
    assert change.change_pct == pytest.approx(30, abs=3)
    moved = {m["metric"]: m for m in change.moved}
    assert moved["registers_per_thread"]["after"] - moved["registers_per_thread"]["before"] == 32
    assert moved["theoretical_occupancy_pct"]["change_pct"] == pytest.approx(-100 / 3, abs=2)


def test_trend_catches_a_regression_in_the_newest_run(tmp_path):
    from tools.fleet_runs import build_dataset

    ds = tmp_path / "ds"
    build_dataset(warpscope.load(SEED), str(ds), 12, 11, "matmulNaive", seed=3)
    series = next(s for s in trend(ds).series if s.kernel == "matmulNaive")
    assert [c.index for c in series.changes] == [11]


def test_trend_cli_exit_codes_markdown_and_json(fleet_dataset):
    failing = run_cli("trend", str(fleet_dataset), "--by", "commit", "--fail-on", "duration_ns>+10%")
    assert failing.returncode == 1
    assert "crossing duration_ns>+10%" in failing.stderr and "bn_bw_1C11_kernel_new" in failing.stderr
    assert "moved with it: `registers_per_thread` 32 " in failing.stdout
    assert run_cli("trend", str(fleet_dataset), "--fail-on", "duration_ns>+50%").returncode == 0
    # the newest ten runs all come after the change: nothing to flag
    recent = run_cli(
        "trend", str(fleet_dataset), "--last", "10", "--fail-on", "duration_ns>+10%", "-f", "json"
    )
    assert recent.returncode == 0
    doc = json.loads(recent.stdout)
    assert len(doc["points"]) == 10 and not doc["crossings"] and doc["regression"] is False
    occupancy = run_cli(
        "trend", str(fleet_dataset), "-m", "theoretical_occupancy_pct", "-k", "bn_bw", "-f", "json"
    )
    (series,) = [s for s in json.loads(occupancy.stdout)["series"] if s["changes"]]
    assert series["changes"][0]["index"] == FLEET_REGRESSION


def test_trend_and_query_say_what_is_wrong_in_one_line(fleet_dataset, tmp_path):
    assert run_cli("trend", str(tmp_path)).stderr.count("\n") == 1
    for args in (
        ("trend", str(fleet_dataset), "-m", "durationns"),
        ("trend", str(fleet_dataset), "--since", "nope"),
        ("query", str(fleet_dataset), "select nothing from launches"),
    ):
        out = run_cli(*args)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, (args, out.stderr)


def test_query_formats_over_a_dataset_a_folder_and_an_export(fleet_dataset, saved_folder):
    sql = "select kernel_short, count(*) n from launches where kernel_short like 'cudnn::bn_bw%' group by 1 order by 1"
    md = run_cli("query", str(fleet_dataset), sql)
    assert md.returncode == 0 and md.stdout.startswith("| kernel\\_short | n |\n|---|---:|\n")
    csv = pl.read_csv(run_cli("query", str(fleet_dataset), sql, "-f", "csv").stdout.encode())
    assert csv["n"].to_list() == [FLEET_RUNS] * csv.height and csv.height == 3
    one = run_cli(
        "query",
        str(saved_folder),
        "select r.commit, count(*) n from findings join runs r using (run_id) group by 1",
        "-f",
        "json",
    )
    assert json.loads(one.stdout)[0]["commit"] == "abc123"
    export = run_cli(
        "query", str(SEED), "select count(*) n, count(distinct run_id) runs from launches", "-f", "json"
    )
    assert json.loads(export.stdout) == [{"n": 22, "runs": 1}]


def test_a_dataset_opens_at_its_newest_run(fleet_dataset):
    newest = warpscope.load(fleet_dataset)
    assert newest.runs["commit"].to_list() == [f"c{FLEET_RUNS - 1:04d}"]
    assert store.select_run(fleet_dataset, offset=1) == store.run_ids(fleet_dataset)[-2]
    assert store.select_run(fleet_dataset, "commit=c0003") == store.run_ids(fleet_dataset)[3]


async def test_the_trend_screen_lists_the_changed_kernel_first(fleet_dataset):
    from textual.widgets import DataTable, Static

    from tests.conftest import settle
    from tests.test_tui_pilot import _text
    from warpscope.explore.workspace import Workspace
    from warpscope.tui import WarpscopeApp
    from warpscope.tui.screens.trend import TrendScreen
    from warpscope.tui.text import p

    profile = warpscope.load(fleet_dataset)
    base = store.load_run(fleet_dataset, store.select_run(fleet_dataset, offset=1))
    app = WarpscopeApp(Workspace(profile, base, dataset=fleet_dataset))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, TrendScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 54  # kernels of the step
        first = [str(c) for c in table.get_row_at(0)]
        (change,) = next(s for s in trend(fleet_dataset).series if s.changes).changes
        assert first[0].startswith("cudnn::bn_bw_1C11_kerne") and first[0].endswith("512, 1, 1>")
        # as the screen prints a percentage (trailing zeros cut: +29%, not +29.0%)
        assert first[3] == f"+{p(change.change_pct)}" and first[4] == f"commit c{FLEET_REGRESSION:04d}"
        # the step up: every bar before it below every bar after it (block elements ▁ < … < █)
        spark = first[1]
        assert spark.startswith("▁") and max(spark[: len(spark) // 2]) < min(spark[-6:])
        detail = _text(app.screen.query_one("#trend-detail", Static))
        assert (
            f"(+{p(change.change_pct)}) at commit c{FLEET_REGRESSION:04d}; moved with it: registers_per_thread +100%"
            in detail
        )


def test_the_engine_snippets_of_docs_fleet_md_run_as_written(fleet_dataset, tmp_path, monkeypatch):
    """The DuckDB, Polars and pyarrow code of docs/fleet.md, run as a user pastes it."""
    doc = (ROOT / "docs" / "fleet.md").read_text()
    code = doc.split("# DuckDB\n", 1)[1].split("\n# Spark", 1)[0]
    (tmp_path / "perf-ds").symlink_to(fleet_dataset)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile("# DuckDB\n" + code, "docs/fleet.md", "exec"), scope)
    assert scope["launches"].num_rows == 90 * FLEET_RUNS  # the pyarrow dataset, last assigned


def test_open_on_a_dataset_loads_the_newest_run_against_the_one_before(fleet_dataset, monkeypatch):
    """`warpscope open DS` (and `--baseline commit=…`): the app is handed the newest run, the
    baseline and the dataset (its trend screen)."""
    import warpscope.tui

    loaded = []

    class App:  # stands in for the Textual app: loads as it would, shows nothing
        load_error = None

        def __init__(self, load, **kwargs):
            self.load = load

        def run(self):
            loaded.append(self.load(lambda done, total: None))

    monkeypatch.setattr(warpscope.tui, "WarpscopeApp", App)
    ids = store.run_ids(fleet_dataset)
    assert run_cli("open", str(fleet_dataset)).returncode == 0
    assert run_cli("open", str(fleet_dataset), "--baseline", "commit=c0003").returncode == 0
    (newest, previous), (_, third) = [(ws.profile.runs, ws.baseline.runs) for ws in loaded]
    assert newest["run_id"].to_list() == [ids[-1]] and previous["run_id"].to_list() == [ids[-2]]
    assert third["commit"].to_list() == ["c0003"] and loaded[0].dataset == fleet_dataset
    missing = run_cli("open", str(fleet_dataset), "--baseline", "commit=nope")
    assert missing.returncode == 2 and "no run labelled commit=nope" in missing.stderr
