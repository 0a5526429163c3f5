"""The tensor-core paths Nsight Compute draws a roofline for (its hierarchical Tensor Core
roofline chart), dense ones only: one per instruction family and source precision.

Each path's work is ``sm__ops_path_tensor_…sum`` (operations: a multiply-add counts 2, so a
GEMM of M×N×K does 2·M·N·K), its roof ``…sum.peak_sustained`` × ``sm__cycles_elapsed.avg
.per_second``. The sparse paths (``sparsity_on``) and the 1-bit ones (BMMA/BGMMA) are left out:
their roofs are twice the dense ones and no framework kernel the samples hold runs them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TensorPath:
    """One dense tensor-core path: the catalog ids of its work and roof, and ncu's name."""

    key: str  # id stem: ``tensor_<key>_ops``, ``peak_tensor_<key>_ops_per_cycle``
    precision: str  # what the operands are: fp16, bf16, tf32, fp8, int8, fp64
    instruction: str  # the SASS family: HMMA (mma.sync/wmma), HGMMA (sm_90 wgmma), …
    ncu: str  # the ops_path metric, without its .sum rollup

    @property
    def ops_id(self) -> str:
        return f"tensor_{self.key}_ops"

    @property
    def peak_per_cycle_id(self) -> str:
        return f"peak_tensor_{self.key}_ops_per_cycle"

    @property
    def peak_id(self) -> str:
        return f"peak_tensor_{self.key}_ops_per_s"

    @property
    def label(self) -> str:
        """``bf16 HGMMA``: how reports and screens name the path."""
        return f"{self.precision} {self.instruction}"


_OP = "sm__ops_path_tensor_op_"
TENSOR_PATHS: tuple[TensorPath, ...] = (
    TensorPath("hmma_fp16_fp16", "fp16", "HMMA", f"{_OP}hmma_src_fp16_dst_fp16_sparsity_off"),
    TensorPath("hmma_fp16_fp32", "fp16", "HMMA", f"{_OP}hmma_src_fp16_dst_fp32_sparsity_off"),
    TensorPath("hgmma_fp16", "fp16", "HGMMA", f"{_OP}hgmma_src_fp16_sparsity_off"),
    TensorPath("hmma_bf16", "bf16", "HMMA", f"{_OP}hmma_src_bf16_dst_fp32_sparsity_off"),
    TensorPath("hgmma_bf16", "bf16", "HGMMA", f"{_OP}hgmma_src_bf16_dst_fp32_sparsity_off"),
    TensorPath("hmma_tf32", "tf32", "HMMA", f"{_OP}hmma_src_tf32_dst_fp32_sparsity_off"),
    TensorPath("hgmma_tf32", "tf32", "HGMMA", f"{_OP}hgmma_src_tf32_dst_fp32_sparsity_off"),
    TensorPath("imma_int8", "int8", "IMMA", f"{_OP}imma_src_int8_sparsity_off"),
    TensorPath("igmma_int8", "int8", "IGMMA", f"{_OP}igmma_src_int8_sparsity_off"),
    # fp8 (QGMMA) and fp64 (DMMA) have one path each: ncu states them by source only
    TensorPath("qgmma_fp8", "fp8", "QGMMA", "sm__ops_path_tensor_src_fp8_sparsity_off"),
    TensorPath("dmma_fp64", "fp64", "DMMA", "sm__ops_path_tensor_src_fp64"),
)
