"""FP32 matrix math on the SIMT cores: the TF32 estimate against cuBLAS SGEMM timed with and without
TF32 math on the H100 (tools/gpu/tf32_pairs.cu), and the finding on a real PyTorch step."""

from __future__ import annotations

import polars as pl
import pytest

import warpscope
from tests.conftest import CNN_FILES, H100
from warpscope.analysis import analyze

TF32 = H100 / "calibration" / "tf32"
RULE = "fp32_matrix_on_simt_cores"


@pytest.fixture(scope="module")
def pairs():
    profile = analyze(warpscope.load([TF32 / "tf32_raw_base.csv.gz", TF32 / "tf32_details.csv.gz"]))
    timings = (
        pl.read_csv(TF32 / "tf32_timings.csv").group_by("pair", "variant").agg(pl.col("median_us").median())
    )
    us = {(p, v): t for p, v, t in timings.iter_rows()}
    return profile, us


def test_the_tf32_estimate_comes_true_on_cubLAS_sgemm(pairs):
    profile, us = pairs
    found = profile.findings.filter(pl.col("rule_id") == RULE).sort("launch_id")
    # launches in program order: 1024 FP32, 1024 TF32, 2048 FP32, ... (the "once" run)
    assert found["launch_id"].to_list() == [0, 2, 4]
    for (_launch, estimate), n in zip(
        found.select("launch_id", "estimated_speedup_pct").rows(), (1024, 2048, 4096)
    ):
        measured = 100 * (1 - us[(f"t{n}", "after")] / us[(f"t{n}", "before")])
        assert abs(estimate - measured) <= 5, (n, estimate, measured)
    assert set(found["severity"]) == {"medium"} and set(found["confidence"]) == {"medium"}
    assert all(
        "CUBLAS_TF32_TENSOR_OP_MATH" in fix and "set_float32_matmul_precision" in fix for fix in found["fix"]
    )


def test_no_tf32_claim_on_kernels_already_on_tensor_cores(pairs):
    profile, _ = pairs
    tensor = profile.launches.filter(pl.col("kernel_short").str.contains("tf32"))["launch_id"]
    assert tensor.len() == 3
    assert profile.findings.filter(
        pl.col("launch_id").is_in(tensor.implode()) & (pl.col("rule_id") == RULE)
    ).is_empty()


def test_the_pytorch_steps_fp32_gemms_and_convolutions_are_named():
    profile = analyze(warpscope.load(CNN_FILES))
    found = profile.findings.filter(pl.col("rule_id") == RULE).join(profile.launches, on="launch_id")
    names = found["kernel_short"].to_list()
    assert any("_ffma_" in k for k in names) and any(k.startswith("wgrad_alg0") for k in names)
    assert not any("tf32" in k or "tensorop" in k or k.startswith("nvjet") for k in names)
    cublas = found.filter(pl.col("kernel_short").str.contains("xmma_gemm_"))
    assert cublas.height and all(f.startswith("This is a cuBLAS kernel") for f in cublas["fix"])
    assert all(0 < e <= 100 for e in found["estimated_speedup_pct"])
