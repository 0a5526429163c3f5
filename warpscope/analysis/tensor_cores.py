"""GEMMs and convolutions in FP32 on the SIMT cores, where TF32 or bf16 tensor cores would run them
several times faster: the switch is a line of the caller's code, not the kernel's."""

from __future__ import annotations

import re

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import pct
from warpscope.analysis.views import PRACTICAL_ROOF_PCT, LaunchView

#: tensor-core TF32 dense throughput against the SIMT FP32 cores', per SM per cycle, from sm_80 on
#: (A100: 156 vs 19.5 TFLOPS; H100 SXM: 495 vs 67): 8×
TF32_OVER_FP32 = 8.0
#: a TF32 GEMM's time: (its flop + a fixed cost worth TF32_FIXED_FLOP) at TF32_EFFICIENCY of the
#: TF32 peak. Fitted to cuBLAS SGEMM with and without TF32 math at 1024, 2048 and 4096 on the H100
#: (tools/gpu/tf32_pairs.cu, sample_traces/h100/calibration/tf32: event-timed savings 56.3%,
#: 81.3%, 86.6%; the fit is within 0.5 points of each). Small GEMMs gain less: a few tiles
#: cannot fill the GPU and the fixed cost (~24 µs at the H100's base clock) remains
TF32_EFFICIENCY = 0.75
TF32_FIXED_FLOP = 7.75e9
#: below this share of their peak, no tensor instructions run (noise of a few HMMA in a library's
#: bookkeeping); at or above this share the FMA pipe is what the kernel runs on
TENSOR_IDLE_PCT = 2.0
FMA_BUSY_PCT = 15.0
#: the libraries whose FP32 GEMMs and convolutions a switch in the caller's code moves to tensor cores
LIBRARIES = ("cuBLAS", "cuDNN", "CUTLASS")
_MATRIX = re.compile(r"gemm|sgemm|conv|fprop|dgrad|wgrad|implicit|winograd|xmma|cutlass|nvjet|matmul", re.I)
_FIX = {
    "cuBLAS": 'switch the FP32 GEMMs to TF32 tensor cores: `torch.set_float32_matmul_precision("high")` '
    "(or `torch.backends.cuda.matmul.allow_tf32 = True`, off by default in PyTorch), "
    "`cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH)` in CUDA C++, or run the model in bf16 "
    '(`torch.autocast("cuda", dtype=torch.bfloat16)`); TF32 keeps FP32\'s range with a 10-bit mantissa.',
    "cuDNN": "let cuDNN pick a tensor-core algorithm: PyTorch allows TF32 in convolutions by default "
    "(`torch.backends.cudnn.allow_tf32`), so this FP32 one was chosen for the layout or shape: try "
    "`torch.backends.cudnn.benchmark = True`, channels_last, or bf16 autocast "
    '(`torch.autocast("cuda", dtype=torch.bfloat16)`).',
}
_GENERIC = (
    "run the matrix math on tensor cores: TF32 for FP32 data (cuBLAS `CUBLAS_TF32_TENSOR_OP_MATH`, PyTorch "
    '`torch.set_float32_matmul_precision("high")`), or bf16/fp16 data; CUTLASS: a TensorOp kernel.'
)


@rule(
    "fp32_matrix_on_simt_cores",
    "tensor_cores",
    speedup="1 − max((FP32 flop + 7.75 GFLOP) ÷ (75% of 8 × the FP32 peak), DRAM bytes ÷ the practical "
    "DRAM roof, launch floor) ÷ duration",
    evidence="tensor pipe and HMMA/GMMA instructions (% of peak), FMA pipe (% of active), FP32 flop, "
    "DRAM bytes, the roofs, the kernel's name",
    threshold="a cuBLAS, cuDNN or CUTLASS GEMM or convolution (by name) with tensor instructions < 2% of "
    "peak and the FMA pipe ≥ 15% busy, mostly FP32 flop",
    severity="by the estimate (≥ 20% high, ≥ 5% medium), confidence medium (calibrated on cuBLAS "
    "SGEMM, not yet on convolutions)",
)
def fp32_matrix_on_simt_cores(v: LaunchView) -> Finding | None:
    """A library's FP32 GEMM or convolution on the SIMT cores, where TF32 tensor cores run 8× faster."""
    if v.library not in LIBRARIES or not _MATRIX.search(v.kernel_short or v.kernel):
        return None  # a kernel of one's own moves to tensor cores by a rewrite (wmma, mma), not a switch
    fma = v.get("fma_pipe_active_pct")
    tensor = max(
        (x for x in (v.get("tensor_hmma_inst_pct"), v.get("tensor_gmma_inst_pct")) if x is not None),
        default=None,
    )
    fp32 = v.get("fp32_flop")
    peak = v.get("peak_fp32_flop_per_s")
    duration = v.get("duration_ns")
    if fma is None or tensor is None or not fp32 or not peak or not duration:
        return None
    others = (v.get("fp16_flop") or 0.0) + (v.get("fp64_flop") or 0.0)
    if tensor >= TENSOR_IDLE_PCT or fma < FMA_BUSY_PCT or fp32 <= others:
        return None
    compute_ns = (fp32 + TF32_FIXED_FLOP) / (TF32_EFFICIENCY * TF32_OVER_FP32 * peak) * 1e9
    dram, dram_peak = v.get("dram_bytes"), v.get("peak_dram_bytes_per_s")
    memory_ns = dram / (PRACTICAL_ROOF_PCT / 100 * dram_peak) * 1e9 if dram and dram_peak else 0.0
    after = max(compute_ns, memory_ns)
    gain = max(0.0, min(v.floor_ceiling, 1.0 - after / duration))
    fix = _FIX.get(v.library or "", _GENERIC)
    return Finding(
        severity="high" if gain >= 0.2 else "medium" if gain >= 0.05 else "low",
        title="FP32 matrix math on the SIMT cores",
        message=f"A matrix kernel in FP32 with its FMA pipe {pct(fma)} busy and tensor instructions at "
        f"{pct(tensor)} of their peak: {fp32 / 1e9:.3g} GFLOP on the SIMT cores. On TF32 tensor cores "
        f"(8× the FP32 rate per cycle; as cuBLAS's TF32 GEMMs run on the H100, with their fixed cost) "
        f"it would take ~{compute_ns / 1e3:.3g} µs"
        + (f" and its DRAM traffic ~{memory_ns / 1e3:.3g} µs" if memory_ns else "")
        + f", against {duration / 1e3:.3g} µs now.",
        why="Tensor cores multiply matrices 8× (TF32) to 16× (bf16) faster per cycle than the FP32 "
        "FMA units; a GEMM left on the SIMT cores runs at a fraction of what the GPU can do.",
        fix=fix[0].upper() + fix[1:],
        threshold="tensor instructions < 2% of peak, FMA pipe ≥ 15% busy",
        evidence=v.known(
            "tensor_hmma_inst_pct",
            "tensor_gmma_inst_pct",
            "fma_pipe_active_pct",
            "fp32_flop",
            "peak_fp32_flop_per_s",
            "dram_bytes",
            "duration_ns",
        ),
        estimated_speedup_pct=100 * gain,
        confidence="medium",
    )
