"""Hierarchical (L1, L2, DRAM) and tensor-core rooflines on the H100 exports: the bytes and roofs
are Nsight Compute's own (its SpeedOfLight_Hierarchical*RooflineChart sections), matmulNaive sits
under the L1 roof, and every tensor-core kernel of the CNN step sits under its tensor path's roof."""

from __future__ import annotations

import csv
import gzip
import math
from collections import defaultdict

import polars as pl
import pytest

import warpscope
from tests.conftest import H100
from warpscope.analysis.roofline import hierarchical_roofline, main_roofline, rooflines, tensor_rooflines
from warpscope.analysis.views import launch_views
from warpscope.model.tensor_paths import TENSOR_PATHS
from warpscope.model.units import to_base

CNN = H100 / "cnn_step" / "cnn_full_raw_base.csv.gz"
EXPORTS = (H100 / "seed_full_raw.csv", CNN, H100 / "advice_full_raw_base.csv.gz")
#: how far above its roof a point may sit: Nsight Compute's counters and its clocks are
#: sampled over slightly different windows (no point on these exports comes within 8% of it)
NOISE = 1.02


@pytest.fixture(scope="module")
def seed():
    return {v.kernel_short: v for v in launch_views(warpscope.load(H100 / "seed_full_raw.csv"))}


@pytest.fixture(scope="module")
def cnn():
    return {v.launch_id: v for v in launch_views(warpscope.load(CNN))}


@pytest.fixture(scope="module")
def cnn_raw() -> pl.DataFrame:
    """The CNN step's raw page in base units: the values Nsight Compute states."""
    frame = pl.read_csv(CNN, infer_schema=False).slice(1)
    return frame.with_columns(
        pl.col(c).str.replace_all(",", "").cast(pl.Float64, strict=False)
        for c in frame.columns
        if c.startswith(("sm__ops_path_tensor", "sm__cycles_elapsed"))
    )


def _cnn_precisions() -> list[str]:
    """The precisions whose tensor paths did work somewhere in the CNN step, from the file."""
    frame = pl.read_csv(CNN, infer_schema=False).slice(1)
    return sorted(
        {
            path.precision
            for path in TENSOR_PATHS
            if (frame[f"{path.ncu}.sum"].str.replace_all(",", "").cast(pl.Float64) > 0).any()
        }
    )


def test_matmul_naive_is_under_the_l1_roof_not_compute(seed):
    """DRAM-only it reads "compute-bound" (128 flop/B, right of the ridge); its reuse is served
    by the L1, whose roof is the one it runs into."""
    r = hierarchical_roofline(seed["matmulNaive"].metrics)
    assert r is not None and r.pipe == "fp32"
    assert [lv.level for lv in r.levels] == ["L1", "L2", "DRAM"]
    assert not r.level("DRAM").memory_bound  # the DRAM-only view: compute side
    assert r.bound == "L1" and r.level("L1").memory_bound
    # 2·512³ flop over 1.08 GB returned by the L1 (8,444,522 writeback cycles × 128 B)
    assert r.level("L1").bytes == 8_444_522 * 128
    assert r.level("L1").intensity == pytest.approx(2 * 512**3 / (8_444_522 * 128))
    assert r.pct_of_roof == pytest.approx(56.4, abs=0.1)
    assert main_roofline(seed["matmulNaive"].metrics) == r
    # tiled through shared memory, the L1 traffic falls 16× and no level binds hard
    tiled = hierarchical_roofline(seed["matmulTiled<16, 0>"].metrics)
    assert tiled is not None and tiled.level("L1").bytes < r.level("L1").bytes / 15


def test_cnn_step_has_the_tensor_precisions_it_ran():
    assert _cnn_precisions() == ["bf16", "tf32"]


@pytest.mark.parametrize("precision", _cnn_precisions())
def test_tensor_kernels_sit_under_their_tensor_roof(precision, cnn, cnn_raw):
    """Each launch with work on a path of this precision has that path's point: the file's ops,
    the file's roof (peak_sustained × sm__cycles_elapsed.avg.per_second), under it."""
    checked = 0
    for path in (p for p in TENSOR_PATHS if p.precision == precision):
        ops = cnn_raw[f"{path.ncu}.sum"]
        for row in cnn_raw.filter(ops > 0).iter_rows(named=True):
            launch = cnn[int(row["ID"])]
            point = next(r for r in tensor_rooflines(launch.metrics) if r.pipe == path.label)
            assert point.tensor and point.precision == precision and point.unit == "op"
            assert point.work == row[f"{path.ncu}.sum"]
            assert point.peak_work == pytest.approx(
                row[f"{path.ncu}.sum.peak_sustained"] * row["sm__cycles_elapsed.avg.per_second"], rel=1e-9
            )
            assert point.achieved <= point.peak_work
            for lv in point.levels:
                assert lv.pct_of_roof <= 100 * NOISE, (launch.kernel_short, lv.level)
            # the kernel's main point is its tensor work, not its epilogue's few FP32 flop
            assert main_roofline(launch.metrics).tensor
            checked += 1
    assert checked >= 2


def test_cudnn_dgrad_runs_85_6_tera_tensor_ops_under_the_tf32_roof(cnn):
    """The issue's example: on the FP32 roofline, 300 Gflop/s at 17.8% of the DRAM roof; on
    its tensor roof, 85.6 T tf32 ops/s."""
    dgrad = cnn[74]
    assert "dgrad" in dgrad.kernel_short
    main = main_roofline(dgrad.metrics)
    assert main is not None and main.pipe == "tf32 HGMMA"
    assert main.achieved == pytest.approx(85.6e12, rel=0.001)
    assert main.bound == "L2"
    assert main.level("DRAM").intensity > 100  # ~143 op per DRAM byte: DRAM is not what binds


@pytest.mark.parametrize("export", EXPORTS, ids=lambda p: p.name)
def test_every_launch_point_is_finite_and_under_its_roof(export):
    points = 0
    for v in launch_views(warpscope.load(export)):
        for r in rooflines(v.metrics):
            assert math.isfinite(r.achieved) and math.isfinite(r.peak_work) and r.peak_work > 0
            for lv in r.levels:
                assert all(math.isfinite(x) for x in (lv.intensity, lv.roof, lv.pct_of_roof))
                assert 0 < lv.pct_of_roof <= 100 * NOISE, (v.launch_id, v.kernel_short, r.pipe, lv.level)
            assert r.bound in ("L1", "L2", "DRAM", "compute")
            points += 1
    assert points >= 10


def _ncu_hierarchical_sections() -> dict[str, dict[tuple[str, str, str], float]]:
    """Per seed launch id: (section, body item, label) -> value in base units, of Nsight Compute's
    own hierarchical roofline sections (``--print-details all``: it prints a byte rate's unit as
    "Gbyte" or "Tbyte", per second meant)."""
    out: dict[str, dict[tuple[str, str, str], float]] = defaultdict(dict)
    with gzip.open(H100 / "seed_details_all.csv.gz", "rt", newline="") as fh:
        for row in csv.DictReader(fh):
            if "Hierarchical" in (row["Section Name"] or "") and row["Metric Name"]:
                value = float(row["Metric Value"].replace(",", "")) * to_base(row["Metric Unit"])[0]
                out[row["ID"]][row["Section Name"], row["Body Item Label"], row["Metric Name"]] = value
    return out


def test_roofs_are_the_ones_nsight_compute_draws(seed):
    """Nsight Compute's hierarchical sections (another run of the same binary on the same H100):
    the per-cycle roofs are the same constants, and the traffic and the clocks agree within the
    run-to-run noise (5% for the rates, 2% for the clocks of launches of 10 µs or more)."""
    ncu = _ncu_hierarchical_sections()
    single = "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)"
    tensor = "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)"
    compared = 0
    for v in seed.values():
        s = ncu[str(v.launch_id)]
        l1_peak = s[single, "L1 Roofline (Global/Local)", "Theoretical L1/TEX Cache Bytes Accessible"]
        l2_peak = s[single, "L2 Roofline", "Theoretical L2 Cache Bytes Accessible"]
        assert v.get("peak_l1_writeback_bytes_per_cycle") == l1_peak
        assert v.get("peak_l2_xbar_bytes_per_cycle") == l2_peak
        for path in TENSOR_PATHS:
            label = _tensor_label(path.ncu)
            peak = s[tensor, f"DRAM Roofline ({label})", "Theoretical Tensor Operations"]
            assert v.get(path.peak_per_cycle_id) == peak
        l1 = s[single, "L1 Achieved Value (Global/Local)", "L1 Cache Bandwidth (Global/Local)"]
        l2 = s[single, "L2 Achieved Value", "L2 Cache Bandwidth"]
        assert v.get("l1_writeback_bytes_per_s") == pytest.approx(l1, rel=0.05), v.kernel_short
        assert v.get("l2_xbar_bytes_per_s") == pytest.approx(l2, rel=0.05), v.kernel_short
        if v.get("duration_ns") >= 10_000:  # a few µs are too few to measure a clock to 2%
            l1_clock = s[single, "L1 Roofline (Global/Local)", "L1/TEX Cache Frequency"]
            l2_clock = s[single, "L2 Roofline", "L2 Cache Frequency"]
            assert v.get("l1_clock_hz") == pytest.approx(l1_clock, rel=0.02), v.kernel_short
            assert v.get("l2_clock_hz") == pytest.approx(l2_clock, rel=0.02), v.kernel_short
        compared += 1
    assert compared == 22


def _tensor_label(ncu: str) -> str:
    """How Nsight Compute titles a path's roofline: ``Op:hgmma Src:bf16 Dst:fp32 Sparsity:off``."""
    words = ncu.removeprefix("sm__ops_path_tensor_").split("_")
    parts, i = [], 0
    while i < len(words):
        key, value = words[i], words[i + 1]
        parts.append(f"{key.capitalize()}:{value}")
        i += 2
    return " ".join(parts)


def test_svg_draws_every_level_and_tensor_roof_with_the_points_under_them():
    """The report's figure: the L1 and L2 bandwidth roofs beside the DRAM one, each tensor
    path's roof named with its peak, every tensor point (◆) under its own path's roof, and the
    L1 (▲) and L2 (■) points of the kernels beside their DRAM point (●)."""
    import xml.etree.ElementTree as ET

    from tests.conftest import CNN_STEP
    from warpscope.analysis import analyze
    from warpscope.report.roofline_points import kernel_points
    from warpscope.report.roofline_svg import TENSOR_FILL, roofline_svg

    ns = "{http://www.w3.org/2000/svg}"
    points = kernel_points(analyze(warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz")))
    root = ET.fromstring(roofline_svg(points, "cnn step"))
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{ns}text"))
    assert "L1 27 TB/s (dotted)" in text and "L2 8.75 TB/s (dashed)" in text and "DRAM 3.35 TB/s" in text
    tensor = [(p, t) for p in points for t in p.tensor]
    pipes = sorted({t.pipe: t.peak_work for _, t in tensor}.items(), key=lambda kv: -kv[1])
    assert [pipe for pipe, _ in pipes] == ["bf16 HGMMA", "bf16 HMMA", "tf32 HGMMA", "tf32 HMMA"]
    for pipe, _ in pipes:
        assert f"{pipe} " in text and "Top/s" in text
    roofs = [p for p in root.iter(f"{ns}polyline") if p.get("stroke") == TENSOR_FILL]
    roof_y = {
        pipe: float(line.get("points").split()[0].split(",")[1]) for (pipe, _), line in zip(pipes, roofs)
    }
    diamonds = [
        p
        for p in root.iter(f"{ns}polygon")
        if p.get("fill") == TENSOR_FILL and p.get("fill-opacity") == "0.9"
    ]
    assert len(diamonds) == len(tensor) >= 11
    for (p, t), diamond in zip(tensor, diamonds):
        centre_y = float(diamond.get("points").split()[1].split(",")[1])
        assert centre_y >= roof_y[t.pipe], (p.kernel_short, t.pipe)  # lower on the page: under it

    seed = kernel_points(analyze(warpscope.load(H100 / "seed_full_raw.csv")))
    root = ET.fromstring(roofline_svg(seed, "seed"))
    assert not [p for p in root.iter(f"{ns}polygon") if p.get("fill-opacity") == "0.9"]  # no tensor work
    l1_roof = next(p for p in root.iter(f"{ns}polyline") if p.get("stroke-dasharray") == "2 3")
    (ax, ay), (bx, by) = (tuple(map(float, xy.split(","))) for xy in l1_roof.get("points").split())
    naive = next(p for p in seed if p.kernel_short == "matmulNaive")
    triangles = [p for p in root.iter(f"{ns}polygon") if len(p.get("points").split()) == 3]
    assert len(triangles) == sum(p.levels is not None and p.levels.level("L1") is not None for p in seed)
    # matmulNaive's L1 point: the first triangle (the kernels in table order, matmulNaive first)
    assert seed[0] is naive
    top, left, _right = (tuple(map(float, xy.split(","))) for xy in triangles[0].get("points").split())
    x, y = top[0], (top[1] + left[1]) / 2 + 0.5
    roof_there = ay + (by - ay) * (x - ax) / (bx - ax)  # the L1 roof's line at the point's x
    assert y > roof_there  # under the L1 roof


def test_the_ncu_rep_gives_the_points_of_its_raw_page():
    """The `.ncu-rep` reader (exact counts) and the raw page of the same report (counts from
    printed rates): the same tensor points, and each level's share of the roof to 0.1%."""
    folder = H100 / "ncurep"
    rep = {v.launch_id: v for v in launch_views(warpscope.load(folder / "cnn_first12.ncu-rep.gz"))}
    raw = {v.launch_id: v for v in launch_views(warpscope.load(folder / "cnn_first12_raw_base.csv.gz"))}
    assert rep.keys() == raw.keys()
    compared = 0
    tensor = 0
    for launch, v in rep.items():
        pairs = [(hierarchical_roofline(v.metrics), hierarchical_roofline(raw[launch].metrics))]
        ta, tb = tensor_rooflines(v.metrics), tensor_rooflines(raw[launch].metrics)
        assert [(t.pipe, t.work) for t in ta] == [(t.pipe, t.work) for t in tb]
        tensor += len(ta)
        for a, b in [*pairs, *zip(ta, tb)]:
            assert (a is None) == (b is None)
            if a is None or b is None:
                continue
            # launch 7 does as many fp16 as fp32 flop: the rates' rounding picks the other
            for x, y in zip(a.levels, b.levels, strict=True):
                assert x.pct_of_roof == pytest.approx(y.pct_of_roof, rel=1e-3), (launch, x.level)
            compared += 1
    assert compared == 10 and tensor == 1
