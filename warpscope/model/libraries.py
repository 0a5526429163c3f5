"""Which vendor library a kernel belongs to, from its name.

The user does not write these kernels or choose their launch configuration: advice on
them is advice about the call (shapes, data types, batching, fusion, the library's
algorithm choice), never "launch more blocks". Recognised from the names the libraries
give their kernels (as seen in real Nsight Compute exports of PyTorch, cuBLAS, cuDNN and
CUTLASS programs); anything else is the user's own (``None``).
"""

from __future__ import annotations

import re
from functools import lru_cache

#: (library, pattern on the demangled name with its return type and parameters removed);
#: first match wins, so the more specific patterns come first
_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "cuDNN",
        r"^(cudnn|engines_precompiled|cutlass__5x_cudnn)::|^cudnn_|^sm\d+_xmma_(fprop|dgrad|wgrad)_"
        r"|^(fft2d_[rc]2[rc]_|fft3d_|flip_filter\b|wgrad_alg\d|implicit_convolve_sgemm|winograd|"
        r"precomputed_convolve|scudnn|convolve_common_engine|xmma_cudnn)",
    ),
    (
        "cuBLAS",
        r"^nvjet_|^sm\d+_xmma_gemm|^(ampere|volta|turing|hopper|maxwell)_\w*gemm|^cublas|"
        r"^gemv\d*[NT]?_?kernel|^gemvx?\w*kernel|^gemmSN_|^gemmk1_kernel|^splitKreduce_kernel|"
        r"^cutlass::Kernel2?<cutlass_\d+_",
    ),
    ("FlashAttention", r"^(flash|pytorch_flash)::|^flash_(fwd|bwd)|^fmha|fmha_cutlass"),
    ("NCCL", r"^nccl"),
    # ncu prints CCCL 2.x/3.x kernels without their cub:: (radix_sort::DeviceRadixSortOnesweepKernel,
    # for_each::static_kernel<for_each::policy_500_t, …>, transform::transform_kernel<…>)
    (
        "CUB/Thrust",
        r"^(cub|thrust)(::|_)|^(at_cuda_detail::)?cub::|^(\w+::)?Device[A-Z]\w*Kernel\b"
        r"|^for_each::static_kernel<for_each::|^transform::transform_kernel<transform::",
    ),
    (
        "cuFFT",
        r"^(vector_fft|regular_fft|fft_\w+_kernel)\b|^(sp|dp|hp)(Radix|Vector)\d+\w*"
        r"|^(sm\d+_)?(composite|bluestein)\w*_fft|^postprocess(C2R|R2C)|^preprocess(C2R|R2C)",
    ),
    ("CUTLASS", r"^cutlass(_\w+)?::|^cute::"),
    # ncu prints some of PyTorch's names without the at:: (native::…), others in the anonymous
    # namespace; philox::unpack is its RNG bookkeeping
    (
        "PyTorch",
        r"^(at|c10|torch)::|^native::|^(<unnamed>|\(anonymous namespace\))::(softmax_warp_|cunn_)"
        r"|^(at::cuda::)?philox::",
    ),
    # kernels torch.compile (Inductor) generates: pointwise, persistent and looped reductions,
    # templates, foreach
    ("Triton", r"^triton_(poi|per|red|tem|for|tma)_|^triton_\w+_fused_"),
)
_COMPILED = tuple((lib, re.compile(p)) for lib, p in _PATTERNS)


@lru_cache(maxsize=4096)
def library_of(kernel_short: str | None) -> str | None:
    """The library that ships ``kernel_short`` (a ``short_name``), or None for user code."""
    if not kernel_short:
        return None
    return next((lib for lib, pattern in _COMPILED if pattern.search(kernel_short)), None)
