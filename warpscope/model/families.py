"""What a kernel does, from its name: the families a training step's time is split into.

A step of a deep-learning program is hundreds of kernels with long template names; an
engineer reads it as a handful of kinds of work — matrix products and attention,
convolutions, normalisation, casts and copies, the optimizer. The patterns are the names
cuBLAS, cuDNN, CUTLASS, FlashAttention, PyTorch and Triton (torch.compile) give their
kernels, as seen in real Nsight Compute exports (the PyTorch programs
``tools/gpu/cnnstep.py`` and ``tools/gpu/trainloop.py``, ``sample_traces/h100/trainloop``). First match wins; a kernel no pattern knows is "other".
"""

from __future__ import annotations

import re
from functools import lru_cache

#: (family, pattern on the short name); the more specific patterns come first
_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "convolution",
        r"conv(?!ert)|Conv|_fprop_implicit|_dgrad_|_wgrad_|wgrad_alg|fft2d_|fft3d_|flip_filter|winograd|"
        r"implicit_convolve|precomputed_convolve",
    ),
    (
        "GEMM and attention",
        r"gemm|nvjet_|cutlass|cublas|wgmma|xmma|sdpa|flash|fmha|attention|matmul|splitKreduce|"
        r"cudnn::(compute_dot_do_o|convert_dq)|triton_(tem|mm)",
    ),
    (
        "optimizer",
        r"Adam|Optimizer|SGD|Sgd|momentum|Lamb|Adagrad|RMSprop|multi_tensor_apply|_foreach_|"
        r"lerp_|addcmul|addcdiv",
    ),
    (
        "normalisation",
        r"layer_norm|LayerNorm|batch_norm|BatchNorm|GammaBeta|rms_?norm|RMSNorm|group_norm|"
        r"instance_norm|bn_fw|bn_bw|[Ww]elford",
    ),
    ("softmax and loss", r"softmax|SoftMax|nll_loss|cross_entropy|CrossEntropy"),
    ("reductions", r"reduce_kernel|[Rr]eduction|[Rr]educe|argmax|argmin|triton_(red|per)_"),
    ("embedding and indexing", r"embedding|gather|scatter|index_select|indexSelect|index_put|indexing"),
    ("pooling", r"pool"),
    ("random and dropout", r"dropout|distribution_|philox|curand|random_|masked_scale"),
    ("casts and copies", r"copy|Copy|cast_kernel|CatArray|transpose|To(Nchw|Nhwc)Kernel|memcpy"),
    ("fills", r"FillFunctor|fill_|zero_|memset"),
    ("elementwise", r"elementwise|Functor|triton_poi_"),
)
_COMPILED = tuple((family, re.compile(p)) for family, p in _PATTERNS)
FAMILIES = tuple(family for family, _ in _PATTERNS) + ("other",)


@lru_cache(maxsize=4096)
def family_of(kernel_short: str | None) -> str:
    """The family of work ``kernel_short`` (a ``short_name``) belongs to."""
    if not kernel_short:
        return "other"
    return next((family for family, pattern in _COMPILED if pattern.search(kernel_short)), "other")
