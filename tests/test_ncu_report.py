"""warpscope's own .ncu-rep decoder (importers/ncurep/) against NVIDIA's: the ``ncu-report``
package (the ``warpscope[ncu]`` extra), which reads a report without a GPU. Every shipped report,
every launch, every metric warpscope reads by its Nsight Compute name: the same value."""

from __future__ import annotations

import gzip
import math
import shutil

import ncu_report
import polars as pl
import pytest
from conftest import H100

from warpscope.importers import import_file

REPORTS = sorted((H100 / "ncurep").glob("*.ncu-rep.gz"))
#: what warpscope states for a metric the report holds no value for
NO_VALUE = (None, "", "no data")


def _number(text: str | None) -> float | None:
    try:
        return float(text.replace(",", "")) if text not in NO_VALUE else None  # type: ignore[union-attr]
    except ValueError:
        return None


def _same(metric: ncu_report.IMetric, text: str | None) -> bool:
    """warpscope's text of a metric (base units, as the raw page prints it) against NVIDIA's value."""
    if not metric.has_value():
        return text in NO_VALUE
    if metric.kind() == metric.ValueKind_STRING:
        return (metric.as_string() or "") == (text or "")
    theirs, ours = metric.as_double(), _number(text)
    if math.isnan(theirs):
        return text is not None and text.lower() == "nan"
    return ours is not None and abs(ours - theirs) <= 1e-9 * max(abs(theirs), 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.name.removesuffix(".ncu-rep.gz"))
def test_every_metric_agrees_with_nvidias_reader(report, tmp_path):
    plain = tmp_path / report.name.removesuffix(".gz")
    with gzip.open(report) as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    ours = import_file(report)
    context = ncu_report.load_report(str(plain))
    actions = [
        context.range_by_idx(r).action_by_idx(a)
        for r in range(context.num_ranges())
        for a in range(context.range_by_idx(r).num_actions())
    ]
    launches = ours.launches.sort("launch_id")
    assert launches.height == len(actions) > 0
    # launch by launch in the same order: the same mangled names (the demangled ones are spelled
    # differently by design: `transposeShared<0>` where ncu writes `<(int)0>`)
    assert launches["kernel_mangled"].to_list() == [a.name(a.NameBase_MANGLED) for a in actions]
    # the metrics warpscope maps (their names and text as read) and the raw page's other columns
    named = ours.metrics.filter(~pl.col("name").cast(pl.String).str.contains(" ")).select(
        "launch_id", pl.col("name").cast(pl.String), pl.col("text").cast(pl.String)
    )
    wide = ours.raw_cells().collect().unpivot(index="launch_id", variable_name="name", value_name="text")
    cells = pl.concat([named, wide.select("launch_id", "name", pl.col("text").cast(pl.String))])
    compared, differ = 0, []
    for launch_id, action in zip(launches["launch_id"].to_list(), actions, strict=True):
        names = set(action.metric_names())
        rows = cells.filter(pl.col("launch_id") == launch_id)
        for name, text in rows.select("name", "text").iter_rows():
            assert name in names, (launch_id, name)  # every metric warpscope read is in the report
            compared += 1
            if not _same(action.metric_by_name(name), text):
                differ.append((launch_id, name, text))
    assert compared >= 100 * len(actions)
    assert differ == []
