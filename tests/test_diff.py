"""warpscope diff: launches matched across profiles, deltas, findings, CI exit codes."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

import warpscope
from tests.conftest import H100, run_cli
from warpscope.report.diff import Threshold

SEED = str(H100 / "seed_full_raw.csv")


def _changed(tmp_path, name: str, set_to: dict[str, float] | None = None, **scale: float) -> str:
    """The seed export saved with one kernel's metrics scaled (metric -> factor) or set."""
    profile = warpscope.load(SEED)
    lid = profile.launches.filter(pl.col("kernel_short") == name)["launch_id"][0]
    value = pl.col("value")
    for metric, new in (set_to or {}).items():
        value = (
            pl.when((pl.col("launch_id") == lid) & (pl.col("metric") == metric)).then(new).otherwise(value)
        )
    for metric, factor in scale.items():
        value = (
            pl.when((pl.col("launch_id") == lid) & (pl.col("metric") == metric))
            .then(value * factor)
            .otherwise(value)
        )
    metrics = profile.metrics.with_columns(value.alias("value"))
    path = tmp_path / f"{name}.parquet"
    type(profile)(**{**profile.tables(), "metrics": metrics}).save(path)
    return str(path)


def test_self_diff_has_no_deltas_and_exits_0():
    result = run_cli("diff", SEED, SEED, "--fail-on", "duration_ns>+5%", "--format", "json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["matched"] == 22 and out["changed"] == [] and out["crossings"] == []
    assert out["only_in_base"] == out["only_in_new"] == [] and out["regression"] is False


def test_slower_kernel_crosses_the_threshold(tmp_path):
    slower = _changed(tmp_path, "transposeShared<0>", duration_ns=1.10)
    result = run_cli("diff", SEED, slower, "--fail-on", "duration_ns>+5%")
    assert result.returncode == 1
    assert "transposeShared<0> (launch 9 -> 9) crossed duration_ns>+5%" in result.stderr
    assert (
        "| transposeShared\\<0\\> | 9 → 9 | duration\\_ns\\>+5% | 11,680 | 12,848 | +10% |" in result.stdout
    )
    # the same change under a looser threshold passes
    assert run_cli("diff", SEED, slower, "--fail-on", "duration_ns>+15%").returncode == 0


def test_findings_that_appear_are_listed(tmp_path):
    # transposeShared<1> with <0>'s conflict count (and the exact excess that proves it):
    # the bank-conflict finding appears
    worse = _changed(
        tmp_path,
        "transposeShared<1>",
        set_to={"shared_excess_wavefronts": 1016034.0},
        shared_load_bank_conflicts=1016034 / 586,
        shared_load_wavefronts=1048802 / 33354,
    )
    out = json.loads(run_cli("diff", SEED, worse, "--format", "json").stdout)
    (pair,) = out["changed"]
    assert pair["kernel"] == "transposeShared<1>"
    assert {f["rule"] for f in pair["appeared"]} >= {"shared_bank_conflicts"}
    assert {d["metric"] for d in pair["deltas"]} == {
        "shared_load_bank_conflicts",
        "shared_load_wavefronts",
        "shared_excess_wavefronts",
    }


def test_kernels_only_on_one_side(tmp_path):
    profile = warpscope.load(SEED)
    fewer = tmp_path / "fewer.parquet"
    keep = profile.launches.filter(pl.col("kernel_short") != "tinyBlocks")["launch_id"].to_list()
    profile.subset(keep).save(fewer)
    out = json.loads(run_cli("diff", SEED, str(fewer), "--format", "json").stdout)
    assert [k["kernel"] for k in out["only_in_base"]] == ["tinyBlocks"] and out["only_in_new"] == []


@pytest.mark.parametrize("bad", ["duration_ns", "durationns>5%", "nonsense>+5%", "duration_ns=>5"])
def test_bad_threshold_exits_2(bad):
    result = run_cli("diff", SEED, SEED, "--fail-on", bad)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--fail-on" in result.stderr


def test_bad_input_exits_2(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    result = run_cli("diff", SEED, str(empty))
    assert result.returncode == 2 and str(empty) in result.stderr and "Traceback" not in result.stderr


def test_threshold_semantics():
    t = Threshold.parse("achieved_occupancy_pct<-10")
    assert not t.relative and t.crossed(80, 69) and not t.crossed(80, 71)
    r = Threshold.parse("duration_ns >= +5 %")
    assert r.relative and r.crossed(100, 105) and not r.crossed(100, 104.9)
    assert Threshold.parse("duration_ns>+5%").crossed(0, 1)  # from nothing to something


def test_a_kernel_relaunched_with_another_grid_still_matches(tmp_path):
    """Following the advice (tinyBlocks: 40 blocks of 32 threads → 264 of 128) changes the
    launch configuration; the kernel still lines up by name and order, and the change is
    reported as a change rather than as one kernel gone and another come."""
    profile = warpscope.load(SEED)
    tiny = pl.col("kernel_short") == "tinyBlocks"
    launches = profile.launches.with_columns(
        pl.when(tiny).then(264).otherwise(pl.col("grid_x")).alias("grid_x"),
        pl.when(tiny).then(128).otherwise(pl.col("block_x")).alias("block_x"),
    )
    path = tmp_path / "regridded.parquet"
    type(profile)(**{**profile.tables(), "launches": launches}).save(path)
    out = json.loads(run_cli("diff", SEED, str(path), "--format", "json").stdout)
    assert out["matched"] == 22 and out["only_in_base"] == out["only_in_new"] == []
    (pair,) = out["changed"]
    assert pair["kernel"] == "tinyBlocks"
    assert pair["config"] == {"grid": [[40, 1, 1], [264, 1, 1]], "block": [[32, 1, 1], [128, 1, 1]]}
    text = run_cli("diff", SEED, str(path)).stdout
    assert "Launch configuration: grid 40×1×1 → 264×1×1, block 32×1×1 → 128×1×1." in text


def test_two_runs_of_one_program_differ_within_noise_and_the_time_leads():
    """The seed program profiled twice on one H100: the time change comes first, every kernel's
    time is within noise, and of the 602 metric values that differ only those beyond noise
    are listed."""
    other = str(H100 / "seed_details_all.csv.gz")
    base = str(H100 / "seed_full_raw.csv")
    out = json.loads(run_cli("diff", base, other, "--format", "json").stdout)
    assert out["noise"] == {"relative_pct": 5.0, "points_for_pct_metrics": 2.0}
    assert all(t["within_noise"] for t in out["times"]) and len(out["times"]) == 22
    deltas = [d for pair in out["changed"] for d in pair["deltas"]]
    beyond = [d for d in deltas if not d["within_noise"]]
    assert len(beyond) < 0.05 * len(deltas)
    text = run_cli("diff", base, other).stdout
    assert text.index("## Time") < text.index("## Changes")
    assert "Kernel time: 497.92 µs → 497.93 µs (+0%, within noise)." in text
    listed = sum(1 for line in text.splitlines() if line.startswith("| `"))
    assert listed == len(beyond)


TRAINLOOP = H100 / "trainloop"
FUSED = str(TRAINLOOP / "trainloop_fused_raw_base.csv.gz")
LOOP = str(TRAINLOOP / "trainloop_loop_raw_base.csv.gz")


def test_differing_launch_counts_warn_and_times_compare_matched_launches():
    """The fused-AdamW training loop (511 launches) against the per-tensor one (524, cut short
    by the profiling limit): a warning in the JSON and on the page, and each kernel's time is
    that of its launches matched in order of occurrence, not of all its launches."""
    out = json.loads(run_cli("diff", FUSED, LOOP, "--format", "json").stdout)
    assert out["launches"] == {"base": 511, "new": 524}
    (warning,) = out["warnings"]
    assert "launch counts differ (base 511, new 524)" in warning
    base, new = warpscope.load(FUSED).launches, warpscope.load(LOOP).launches
    by_kernel = {t["kernel"]: t for t in out["times"]}
    checked = 0
    for short, row in by_kernel.items():
        b = base.filter(pl.col("kernel_short") == short).sort("launch_id")["duration_ns"]
        n = new.filter(pl.col("kernel_short") == short).sort("launch_id")["duration_ns"]
        assert (row["base_launches"], row["new_launches"]) == (len(b), len(n))
        k = min(len(b), len(n))
        assert row["matched_launches"] == k
        if k:
            assert row["base_ns"] == pytest.approx(b[:k].sum()) and row["new_ns"] == pytest.approx(
                n[:k].sum()
            )
            checked += len(b) != len(n)
        else:
            assert (row["base_ns"] is None) == (len(b) == 0) and (row["new_ns"] is None) == (len(n) == 0)
    assert checked >= 10  # kernels launched a different number of times on each side
    text = run_cli("diff", FUSED, LOOP, "--full").stdout
    assert f"- **warning**: {warning}" in text.replace("\\", "")
    assert "| kernel | base | new | change | launches (base → new) |" in text
    # one matched launch of 3 and 1: its time, not the base's three; names of at most 60 characters
    assert (
        "| at::\\<unnamed\\>::embedding\\_back…ure\\_kernel\\<float, float, long\\> | 94.56 µs | 95.23 µs"
        in text
    )
    rows = [r for r in text.split("## Changes")[0].splitlines() if r.startswith("| ") and " µs | " in r]
    names = [re.sub(r"\\(.)", r"\1", r[2:].split(" | ")[0]).replace("&amp;", "&") for r in rows]
    assert max(len(n) for n in names) == 60
    full = next(t["kernel"] for t in out["times"] if len(t["kernel"]) > 60)
    assert full[:29] + "…" + full[-30:] in names


def test_equal_launch_counts_give_no_warning():
    out = json.loads(run_cli("diff", SEED, str(H100 / "seed_details_all.csv.gz"), "--format", "json").stdout)
    assert out["warnings"] == [] and out["launches"] == {"base": 22, "new": 22}
    assert "warning" not in run_cli("diff", SEED, SEED).stdout


def test_time_table_is_ordered_by_time_largest_first():
    """Identical runs (no change to order by): the kernel with the most time leads, not the
    first in the alphabet."""
    out = json.loads(run_cli("diff", SEED, SEED, "--format", "json").stdout)
    times = [t["base_ns"] for t in out["times"]]
    assert times == sorted(times, reverse=True)
    durations = warpscope.load(SEED).launches.group_by("kernel_short").agg(pl.col("duration_ns").sum())
    slowest = durations.sort("duration_ns", descending=True)["kernel_short"][0]
    assert out["times"][0]["kernel"] == slowest
    rows = [line for line in run_cli("diff", SEED, SEED).stdout.splitlines() if line.startswith("| ")]
    assert rows[1].startswith(f"| {slowest} |")


def test_stdout_is_cut_to_a_github_comment_like_the_report(tmp_path):
    """The two training loops' diff is 0.13 MB whole: on stdout it is cut to 65,536 characters with
    a closing line; --full and -o give it whole."""
    cut = run_cli("diff", FUSED, LOOP)
    assert cut.returncode == 0 and len(cut.stdout) <= 65_536
    assert cut.stdout.rstrip().splitlines()[-1].startswith("Cut to fit 65,536 characters")
    # the changed launches all fit, and then the first parts of the one-side-only tables, each
    # table closed by a blank line before the closing note
    assert "## Only in base" in cut.stdout and "\n|\n\n---\n" not in cut.stdout
    assert re.search(r"\|\n\n---\n\nCut to fit 65,536 characters .*: (\d+) of (\d+) parts", cut.stdout)
    full = run_cli("diff", FUSED, LOOP, "--full").stdout
    assert len(full) > 65_536 and "Cut to fit" not in full
    assert full.startswith(cut.stdout.split("\n---\n")[0].rstrip("\n"))
    run_cli("diff", FUSED, LOOP, "-o", str(tmp_path / "d.md"))
    assert (tmp_path / "d.md").read_text(encoding="utf-8") == full
