"""What a finding is worth to the program, how sure it is, and what the user can act on.

Applied by ``analyze`` after the rules: each finding gets the grade of every evidence value
and a confidence; findings of one launch share its time (overlapping fixes do not add:
the launch's combined gain is 1 − Π(1 − gᵢ), split in proportion to the gᵢ), giving
``est_saved_ns`` and ``program_share_pct``; severity is then capped by confidence and by the
kernel's share of the profile's kernel time; advice on a library kernel becomes advice
about the call (its launch, stalls and latency are the library's: info). docs/checklist.md states the rules.
"""

from __future__ import annotations

from warpscope.analysis.evidence import confidence, grade
from warpscope.analysis.finding import SEVERITIES, Finding, stamped
from warpscope.analysis.views import LaunchView

#: a kernel under this share of the profile's kernel time never gets ``high``
MIN_SHARE_FOR_HIGH_PCT = 0.5
#: categories whose advice is about the launch configuration the caller of a kernel chooses
LAUNCH_CATEGORIES = frozenset({"launch_config", "occupancy", "tail_effect"})
#: on a library kernel these say only how the library's code runs: nothing the caller can change
#: (a library's tree reductions, registers, dependency chains and place against the roofs are
#: its own design)
LIBRARY_INFO_CATEGORIES = LAUNCH_CATEGORIES | {
    "stalls",
    "ilp",
    "local_memory",
    "latency_bound",
    "memory_bound",
    "compute_bound",
    "reduction",
}
#: a finding with an estimated gain needs this much (% of the launch's time) for each severity
MIN_GAIN_FOR = {"high": 20.0, "medium": 5.0}

_CALL_ADVICE = {
    "cuBLAS": "its grid, block and tiles are cuBLAS's choice for the call's shape. What you control: "
    "the GEMM shape (M, N, K multiples of 16, or of the tile, avoid partial tiles), the data type "
    "(bf16/fp16/tf32 run on tensor cores), batching many small GEMMs into one batched or grouped "
    "call, and cuBLASLt's algorithm selection.",
    "cuDNN": "its launch is cuDNN's choice for the call. What you control: the memory layout "
    "(channels_last/NHWC avoids the NCHW↔NHWC transposes), the data type, the batch size, and "
    "algorithm selection (torch.backends.cudnn.benchmark = True tries them and keeps the fastest).",
    "PyTorch": "PyTorch chooses its launch. What you control: fewer, larger calls — fuse chains of "
    "small elementwise ops (torch.compile), drop needless copies and dtype casts, larger batches.",
    "CUB/Thrust": "its launch is CUB's choice for the algorithm and the input size (Thrust calls "
    "CUB). What you control: fewer passes (one sort of key-value pairs instead of sorting and "
    "gathering; transforms fused into the algorithm through transform_iterator/zip_iterator), the "
    "key bits sorted (begin_bit/end_bit: only the bits that vary), temporary storage allocated once "
    "and reused, and independent calls on their own streams.",
    "cuFFT": "cuFFT chose this kernel for the plan's size, precision and batch. What you control: "
    "sizes that factor into 2, 3, 5 and 7 (pad others), many transforms batched into one plan, "
    "R2C/C2R for real data (half the work), plans made once and reused, and callbacks that fuse "
    "the pre- and post-processing into the transform.",
    "Triton": "torch.compile (Inductor) generated it and chose its launch. What you control: "
    'torch.compile(mode="max-autotune") autotunes its block sizes and fusion, mode="reduce-overhead" '
    "captures the step in CUDA Graphs (short kernels then cost no launch), and larger batches.",
}
#: on a library kernel, launch findings (too few blocks, a tail) hold time the user wins back
#: only through the call: they stay opportunities, with the call-level fix, their estimate the
#: SMs' idle time, and low confidence (the layout, batch or mode that the library then runs
#: with decides how much comes back)
CALL_LEVEL_CATEGORIES = frozenset({"launch_config", "tail_effect"})
_UNDERFILL_ADVICE = {
    "cuDNN": "cuDNN chose this launch for the call's layout and shape; it leaves SMs idle. What you "
    "control: channels_last (model.to(memory_format=torch.channels_last) and the same for the input) so "
    "cuDNN picks its NHWC kernels, a larger batch (more blocks), torch.backends.cudnn.benchmark = True, "
    "or fusing the op with its neighbours (torch.compile); in inference, fold batch norm into the "
    "convolution.",
    "PyTorch": "PyTorch sized this launch to a small tensor: the GPU is mostly idle and the launch is "
    "most of the time. What you control: fuse the chain of small ops (torch.compile), capture the step "
    'in CUDA Graphs (torch.compile(mode="reduce-overhead") or torch.cuda.graphs), larger batches.',
}
#: a launch of at most this many threads in all is bookkeeping (a counter, a seed, a scalar):
#: its time is the launch itself, whatever its configuration
ONE_WARP = 32
_GENERIC_ADVICE = (
    "its launch configuration comes from the library's own choice for the call's shapes. What you "
    "control: problem shapes that fit its tiles, the data type and layout, and batching small calls."
)

_RANK = {s: i for i, s in enumerate(SEVERITIES)}

_LAUNCH_ROOTS = ("grid_smaller_than_sms", "grid_few_blocks_per_sm", "blocks_too_small_for_sm")
_MEMORY_ROOTS = ("uncoalesced_global_access", "shared_bank_conflicts")
#: a finding (rule, or ``stall_reason:<reason>``) and the findings that explain it when they
#: fire on the same launch: one problem, one finding (the symptom is kept, as info, saying so)
FOLLOWS_FROM: dict[str, tuple[str, ...]] = {
    "achieved_occupancy_gap": (
        *_LAUNCH_ROOTS,
        "block_size_not_warp_multiple",
        "block_size_outside_128_256",
        "tail_effect",
        "serial_reduction",
        "memory_bound",
        "global_atomics",
        "local_memory",
    ),
    "few_resident_warps": (*_LAUNCH_ROOTS, "occupancy_limited", "ilp"),
    # more warps and more independent instructions per warp hide the same dependency latency:
    # one problem, one finding (the ILP finding names both remedies)
    "occupancy_limited": ("ilp",),
    "latency_bound": (
        *_LAUNCH_ROOTS,
        *_MEMORY_ROOTS,
        "occupancy_limited",
        "achieved_occupancy_gap",
        "block_size_outside_128_256",
        "warp_divergence",
        "serial_reduction",
        "ilp",
        "global_atomics",
        "local_memory",
        "memory_bound",
    ),
    "warp_divergence": ("serial_reduction", "shared_memory_tree_reduction"),
    # a block held by the one warp that sums it: the achieved-occupancy gap a large block shows
    "block_size_outside_128_256": ("serial_reduction",),
    "memory_bound": (*_MEMORY_ROOTS, "global_atomics", "local_memory"),
    "compute_bound": ("warp_divergence",),
    "stall_reason:wait": ("ilp",),
    "stall_reason:long_scoreboard": (
        "global_atomics",
        "local_memory",
        "uncoalesced_global_access",
        "grid_smaller_than_sms",
        "serial_reduction",
        "memory_bound",
    ),
    "stall_reason:lg_throttle": ("local_memory", "uncoalesced_global_access", "memory_bound"),
    "stall_reason:drain": ("global_atomics", "uncoalesced_global_access"),
    "stall_reason:short_scoreboard": ("shared_bank_conflicts", "global_atomics"),
    "stall_reason:mio_throttle": ("shared_bank_conflicts",),
    "stall_reason:barrier": ("shared_memory_tree_reduction", "serial_reduction"),
}


def _key(f: Finding) -> str:
    if f.rule == "stall_reason":
        reason = next((m.removeprefix("stalls.") for m in f.evidence if m.startswith("stalls.")), "")
        return f"stall_reason:{reason}"
    return f.rule


#: findings that are a state with a fix of their own (memory-bound below the roof: more bytes
#: per access), folded only into a cause at least as large
OWN_FIX = frozenset({"memory_bound"})


def _explains(cause: Finding, symptom: Finding) -> bool:
    """Whether ``cause`` explains ``symptom``: always, unless the symptom has a fix of its own and
    a larger estimate (a 7% misalignment does not explain a copy streaming 27% below what
    16-byte accesses reach)."""
    if symptom.rule not in OWN_FIX or cause.estimated_speedup_pct is None:
        return True
    return (
        symptom.estimated_speedup_pct is None or cause.estimated_speedup_pct >= symptom.estimated_speedup_pct
    )


def fold_symptoms(found: list[Finding]) -> list[Finding]:
    """Findings that follow from another finding of the same launch become info that names it."""
    roots = {f.rule: f for f in found if f.severity != "info"}
    if not roots:
        return found
    out = []
    for f in found:
        causes = FOLLOWS_FROM.get(_key(f))
        cause = (
            next((roots[r] for r in causes if r in roots and _explains(roots[r], f)), None)
            if causes
            else None
        )
        if cause is None:
            out.append(f)
            continue
        out.append(
            stamped(
                f,
                severity="info",
                message=f"Follows from “{cause.title}” (fix that first). {f.message}",
                estimated_speedup_pct=None,
            )
        )
    return out


def bookkeeping_fix(library: str | None, threads: int) -> str:
    """The fix of a launch-configuration finding on a launch of at most a warp in all."""
    return (
        (f"This is a {library} kernel: " if library else "")
        + f"{threads} thread{'s' if threads > 1 else ''} in all: bookkeeping whose time is the "
        "launch itself. Fold it into a neighbouring kernel or capture the step in a CUDA Graph."
    )


def library_fix(library: str, kind: str, fix: str) -> str:
    """A finding's ``fix`` on a library's kernel, as advice about the call: ``kind`` is "tensor"
    (a tensor-core fix, the call's already), "call" (a launch that leaves SMs idle), "info" (how
    the library's code runs: only the call's advice) or "other" (what the kernel does)."""
    call = _CALL_ADVICE.get(library, _GENERIC_ADVICE)
    if kind == "tensor":
        return f"This is a {library} kernel: {fix[:1].lower()}{fix[1:]}"
    if kind == "call":
        return f"This is a {library} kernel: {_UNDERFILL_ADVICE.get(library, call)} (What the launch shows: {fix})"
    if kind == "info":
        return f"This is a {library} kernel: {call}"
    return f"This is a {library} kernel: {call} (What the kernel does: {fix})"


def cap(severity: str, ceiling: str) -> str:
    """The milder of ``severity`` and ``ceiling``."""
    return severity if _RANK[severity] >= _RANK[ceiling] else ceiling


def assess(view: LaunchView, found: list[Finding], total_ns: float, kernel_ns: float) -> list[Finding]:
    """``found`` (one launch's findings) graded, weighed against the program, and capped."""
    found = fold_symptoms(found)
    ceiling = view.floor_ceiling
    # each estimate no larger than the launch floor leaves
    estimates = [
        e if e is None or e <= 100 * ceiling else 100 * ceiling
        for e in (f.estimated_speedup_pct for f in found)
    ]
    duration = view.get("duration_ns")
    gains = [0.0 if e is None else min(1.0, max(0.0, e / 100)) for e in estimates]
    combined = 1.0
    for g in gains:
        combined *= 1.0 - g
    combined = min(1.0 - combined, ceiling)  # fixes together still leave the floor
    total_gain = sum(gains)
    scale = combined / total_gain if total_gain > 0 else 0.0
    only_medium = total_ns > 0 and 100.0 * kernel_ns / total_ns < MIN_SHARE_FOR_HIGH_PCT
    threads = (view.grid_size or 0) * (view.block_size or 0)
    library = view.library
    out = []
    for f, g, estimate in zip(found, gains, estimates, strict=True):
        grades = tuple(grade(view, m) for m in f.evidence)
        conf = f.confidence or confidence(grades)
        saved = duration * g * scale if duration is not None and estimate is not None else None
        severity: str = f.severity
        if conf == "low":
            severity = cap(severity, "low")
        elif conf == "medium" or only_medium:
            severity = cap(severity, "medium")
        if estimate is not None:
            severity = next(
                (
                    s
                    for s in ("high", "medium")
                    if _RANK[severity] <= _RANK[s] and estimate >= MIN_GAIN_FOR[s]
                ),
                cap(severity, "low"),
            )
        fix = f.fix
        if 0 < threads <= ONE_WARP and f.category in LAUNCH_CATEGORIES:
            severity = "info"
            fix = bookkeeping_fix(library, threads)
        elif library and f.category == "tensor_cores":  # its fix is the call's already
            fix = library_fix(library, "tensor", f.fix)
        elif library and f.category in CALL_LEVEL_CATEGORIES and estimate:
            severity, conf = cap(severity, "low"), "low"
            fix = library_fix(library, "call", f.fix)
        elif library:
            if f.category in LIBRARY_INFO_CATEGORIES:
                severity, fix = "info", library_fix(library, "info", f.fix)
            else:  # what the library's code does (its access pattern...) changes only with the call
                severity, fix = cap(severity, "medium"), library_fix(library, "other", f.fix)
        out.append(
            stamped(
                f,
                severity=severity,
                fix=fix,
                confidence=conf,
                grades=grades,
                estimated_speedup_pct=estimate,
                est_saved_ns=saved,
                program_share_pct=100.0 * saved / total_ns if saved is not None and total_ns > 0 else None,
            )
        )
    return out
