"""The roofline on the H100 seed export: flop counts the source determines, DRAM bytes as the
file states them, the roofs as Nsight Compute's SpeedOfLight_RooflineChart computes them, the
point and its bound, and the emulator's counts."""

from __future__ import annotations

import polars as pl
import pytest

import warpscope
from tests.conftest import H100
from warpscope.analysis import analyze
from warpscope.analysis.roofline import roofline
from warpscope.analysis.views import launch_views
from warpscope.report.markdown import render

N = 1 << 20
#: fp32 flop each seed kernel does, from its source (an FMA counts 2)
SOURCE_FP32 = {
    "matmulNaive": 2 * 512**3,
    "matmulTiled<16, 0>": 2 * 512**3,
    "matmulTiled<32, 1>": 2 * 512**3,
    "saxpyCoalesced": 2 * N,
    "vecAddTail": 1000,
    "reduceSingleThread": N,  # thread 0 adds 256 values per block
    "reduceInterleaved": N - N // 256,  # a tree of 255 adds per 256-element block
    "reduceStridedIndex": N - N // 256,
    "reduceSequential": N - N // 256,
    "copyStrided": 0,
    "copyOffset": 0,
    "transposeNaive": 0,
    "transposeShared<0>": 0,
    "transposeShared<1>": 0,
    "bigShared": 0,
}


@pytest.fixture(scope="module")
def seed():
    return {v.kernel_short: v for v in launch_views(warpscope.load(H100 / "seed_full_raw.csv"))}


@pytest.fixture(scope="module")
def raw():
    """The raw page in base units, for the values Nsight Compute states."""
    frame = pl.read_csv(H100 / "seed_raw_base.csv", infer_schema=False).slice(1)
    return frame.with_columns(
        pl.col(c).str.replace_all(",", "").cast(pl.Float64, strict=False)
        for c in frame.columns
        if c.startswith(("dram__", "sm__", "smsp__cycles"))
    )


def test_fp32_flop_is_what_the_source_does(seed):
    for kernel, flop in SOURCE_FP32.items():
        assert seed[kernel].get("fp32_flop") == pytest.approx(flop, rel=0.01, abs=0.5), kernel


def test_dram_bytes_and_roofs_are_the_files_own(raw):
    profile = warpscope.load(H100 / "seed_raw_base.csv")
    views = {v.launch_id: v for v in launch_views(profile)}
    for i, row in enumerate(raw.iter_rows(named=True)):
        v = views[i]
        assert v.get("dram_bytes") == row["dram__bytes_read.sum"] + row["dram__bytes_write.sum"]
        # SpeedOfLight_RooflineChart: peak work = 2 x ffma peak_sustained x SM cycles per second,
        # peak traffic = dram__bytes.sum.peak_sustained x DRAM cycles per second
        fp32 = 2 * row["sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"]
        assert v.get("peak_fp32_flop_per_s") == pytest.approx(fp32 * row["sm__cycles_elapsed.avg.per_second"])
        fp64 = 2 * row["sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"]
        assert v.get("peak_fp64_flop_per_s") == pytest.approx(fp64 * row["sm__cycles_elapsed.avg.per_second"])
        dram = row["dram__bytes.sum.peak_sustained"] * row["dram__cycles_elapsed.avg.per_second"]
        assert v.get("peak_dram_bytes_per_s") == pytest.approx(dram)
    one = views[0]
    assert 3.3e12 < one.get("peak_dram_bytes_per_s") < 3.4e12  # H100 SXM HBM3: 3.35 TB/s
    assert 5.0e13 < one.get("peak_fp32_flop_per_s") < 5.5e13  # 132 SMs x 128 FMA x 2 at ~1.6 GHz


def test_points_and_bounds(seed):
    naive = roofline(seed["matmulNaive"].metrics)
    assert naive is not None and naive.precision == "fp32" and naive.bound == "compute"
    assert naive.intensity == pytest.approx(naive.flop / seed["matmulNaive"].get("dram_bytes"))
    assert naive.ridge == pytest.approx(naive.peak_flop / naive.peak_bytes)
    assert naive.roof == naive.peak_flop and 0 < naive.pct_of_roof < 100
    saxpy = roofline(seed["saxpyCoalesced"].metrics)
    assert saxpy is not None and saxpy.bound == "memory"
    # 2 flop per 8 bytes read: the 4 MB of stores stay in the 50 MB L2 while the kernel runs
    assert saxpy.intensity == pytest.approx(2 * N / (2 * 4 * N), rel=0.01)
    assert saxpy.roof == pytest.approx(saxpy.intensity * saxpy.peak_bytes)
    assert (
        roofline(seed["copyStrided"].metrics) is None
        or roofline(seed["copyStrided"].metrics).precision != "fp32"
    )
    assert roofline(seed["bigShared"].metrics) is None  # no floating point: no point


def test_markdown_roofline_table_is_deterministic():
    profile = analyze(warpscope.load(H100 / "seed_full_raw.csv"))
    first, second = render(profile), render(profile)
    assert first == second
    table = first.split("## Roofline", 1)[1].split("\n## ", 1)[0]
    assert "| matmulNaive | 269 Mflop (fp32) |" in table  # 2 x 512^3 fp32 and a few fp16
    assert "compute (16 flop/B)" in table and "memory (16 flop/B)" in table
    assert "3.35 TB/s DRAM" in table


def test_svg_figure_is_deterministic_well_formed_and_literal(tmp_path):
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from tests.conftest import run_cli
    from warpscope.report.roofline_points import kernel_points
    from warpscope.report.roofline_svg import roofline_svg

    out = run_cli(
        "report",
        str(H100 / "seed_full_raw.csv"),
        "-o",
        str(tmp_path / "r.md"),
        "--figures",
        str(tmp_path / "figs"),
    )
    assert out.returncode == 0, out.stderr
    svg = (tmp_path / "figs" / "roofline.svg").read_text()
    report = (tmp_path / "r.md").read_text()
    assert "](figs/roofline.svg)" in report.split("## Roofline", 1)[1].split("\n## ", 1)[0]
    root = ET.fromstring(svg)
    circles = root.findall("{http://www.w3.org/2000/svg}circle")
    points = kernel_points(analyze(warpscope.load(H100 / "seed_full_raw.csv")))
    assert len(circles) == len(points) == 17
    again = run_cli("report", str(H100 / "seed_full_raw.csv"), "--figures", str(tmp_path / "figs2"))
    assert again.returncode == 0 and (tmp_path / "figs2" / "roofline.svg").read_text() == svg
    hostile = [replace(points[0], kernel_short="<script>alert(1)</script>&\x1b[31m", label="1")]
    text = roofline_svg(hostile, "t")
    ET.fromstring(text)  # still well-formed
    assert "<script>" not in text and "\x1b" not in text and "&lt;script&gt;" in text


def test_svg_legend_fits_and_point_labels_do_not_overlap():
    """Issue 42: on the PyTorch step's 56 kernels the SVG's legend ran past the right edge
    (names cut at the end, so cuDNN's read alike) and point labels were drawn over each other.
    Now every legend line fits the figure (names shortened in the middle), the legend ends
    above the bottom, and no point label's box overlaps another's or another point."""
    import xml.etree.ElementTree as ET

    from tests.conftest import CNN_STEP
    from warpscope.report.roofline_points import kernel_points
    from warpscope.report.roofline_svg import CHAR, FONT_PX, HEIGHT, LEGEND_X, WIDTH, roofline_svg

    points = kernel_points(analyze(warpscope.load(CNN_STEP / "cnn_full_raw_base.csv.gz")))
    # 56 kernels with SIMT flop, and 2 cuBLAS (nvjet) bf16 GEMMs with tensor-core work only
    assert len(points) == 58 and sum(p.point is None for p in points) == 2
    root = ET.fromstring(roofline_svg(points, "cnn step"))
    ns = "{http://www.w3.org/2000/svg}"
    texts = [(float(t.get("x")), float(t.get("y")), t.text or "", t) for t in root.iter(f"{ns}text")]
    legend = [t for t in texts if t[0] == LEGEND_X]
    assert len(legend) >= 25
    for x, y, text, _ in legend:
        assert x + len(text) * CHAR <= WIDTH and y <= HEIGHT - 4, text
    # cut in the middle: the tail, where the template arguments differ, stays
    assert any(" " in n and "…" in n.split(" ", 1)[1] and ">" in n.split("…", 1)[1] for _, _, n, _ in legend)
    assert any("more" in t[2] for t in legend) and any("left out" in t[2] for t in legend)
    labels = {p.label for p in points}
    boxes = [
        (x - 2, y - FONT_PX, x + len(text) * CHAR + 2, y + 2)
        for x, y, text, t in texts
        if text in labels and t.get("font-family") == "monospace" and x < LEGEND_X
    ]
    assert len(boxes) >= 25
    circles = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{ns}circle")]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
        assert sum(a[0] < cx < a[2] and a[1] < cy < a[3] for cx, cy in circles) == 0
