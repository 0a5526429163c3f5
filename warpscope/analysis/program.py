"""The whole program: advice about how a run launches its kernels, not about one kernel.

Read from the run's launch sequence (``steps.py``: one step of a repeating loop, or the
whole run): many short launches (CUDA Graphs, fusion), an optimizer that updates one
parameter tensor at a time (foreach / fused optimizers), and a single kernel that holds most
of the time (whatever else is fixed, the program is as fast as that kernel).

A kernel profile from Nsight Compute serializes the kernels and has no timestamps, so it
cannot show the GPU waiting between them; what it proves is how many launches a step makes
and how short they are. Where the profile has timestamps (an nvprof GPU trace), the idle time
between kernels is measured and becomes the estimate.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import count, num, pct, us
from warpscope.analysis.views import RunView
from warpscope.model.libraries import library_of

#: per step (or run): this many launches, most of them shorter than SHORT_NS
MANY_LAUNCHES = 50
SHORT_NS = 10_000.0
#: the CPU cost of one launch that the advice quotes: a bare cudaLaunchKernel takes a few µs;
#: an eager PyTorch op 10-40 µs with Python and dispatch (tools/gpu/trainloop.py on the H100
#: machine: 6.11 ms a step for 141 launches, of which 1.16 ms in kernels: 35 µs a launch between)
LAUNCH_COST_US = "a few µs of CPU time (an eager PyTorch op: 10–40 µs with Python and dispatch)"
#: Adam-family math that a per-parameter (``foreach=False``) optimizer launches once per tensor
_PER_TENSOR_MATH = r"lerp_|addcmul|addcdiv"
_MULTI_TENSOR = r"multi_tensor_apply|_foreach_|Fused"
PER_TENSOR_MIN = 8  # launches per step of that math: several parameter tensors updated one by one
DOMINANT_SHARE = 50.0
#: measured on the H100 machine (tools/gpu/trainloop.py, 50 steps each after warm-up)
_OPTIMIZER_MEASURED = "8.29 ms a step with foreach=False, 7.49 ms foreach, 6.11 ms fused"


def _step_words(run: RunView) -> tuple[str, str]:
    """("per step", how the step was found) or ("in the run", "") when the run does not repeat."""
    s = run.summary
    if s.steps is None:
        return "in the run", ""
    warm = (
        f" after {count(s.warmup_launches, 'launch')} of warm-up ({us(s.warmup_ns)})"
        if s.warmup_launches
        else ""
    )
    return "per step", (
        f"The run repeats a step of {count(s.step_launches, 'launch')} {count(s.steps.count, 'time')}{warm}; "
        "figures are per step. "
    )


def idle_share(run: RunView) -> float | None:
    """The share of the steps' span (first kernel start to last kernel end) in which the GPU
    neither ran a kernel nor copied, where every launch has a start time (GPU traces)."""
    s = run.summary
    kernels = run.kernels.sort("launch_id")
    if s.steps is not None:
        kernels = kernels.slice(s.steps.first, s.steps.count * s.steps.period)
    timed = kernels.filter(pl.col("start_ns").is_not_null() & pl.col("duration_ns").is_not_null())
    if timed.height < 2 or timed.height < kernels.height:
        return None
    starts = timed["start_ns"].cast(pl.Float64).to_numpy()
    begin, finish = (
        float(starts.min()),
        float((starts + timed["duration_ns"].cast(pl.Float64).to_numpy()).max()),
    )
    copies = run.transfers.filter(pl.col("start_ns").is_not_null() & pl.col("duration_ns").is_not_null())
    busy_rows = pl.concat([timed.select("start_ns", "duration_ns"), copies.select("start_ns", "duration_ns")])
    spans = sorted(
        (max(a, begin), min(a + d, finish)) for a, d in busy_rows.iter_rows() if a < finish and a + d > begin
    )
    busy, end = 0.0, begin
    for a, b in spans:  # the union of the intervals: streams and copy engines overlap
        if b > end:
            busy += b - max(a, end)
            end = b
    span = finish - begin
    return 100.0 * (1 - busy / span) if span > 0 else None


@rule(
    "many_short_launches",
    "launch_overhead",
    scope="run",
    checklist=("C13",),
    speedup="with start times (nvprof GPU trace): the share of the steps' span in which the GPU "
    "neither runs a kernel nor copies; without them none (a kernel profile serializes the kernels)",
    evidence="the launch sequence: launches per step, each launch's duration; start times where the profile has them",
    threshold="≥ 50 launches per step (or run), median launch under 10 µs",
    severity="medium (confidence high with start times, else medium)",
)
def many_short_launches(run: RunView) -> Finding | None:
    """Many launches a step, most of them shorter than a launch costs the CPU."""
    s = run.summary
    where, how = _step_words(run)
    short = float(np.mean(s.durations < SHORT_NS)) if len(s.durations) else 0.0
    median = float(np.median(s.durations)) if len(s.durations) else 0.0
    if s.step_launches < MANY_LAUNCHES or median >= SHORT_NS:
        return None
    idle = idle_share(run)
    evidence = {
        "launches_per_step": float(s.step_launches),
        "kernel_ns_per_step": s.step_ns,
        "median_launch_ns": median,
        "short_launch_share_pct": 100 * short,
    }
    seen = (
        f"{how}{s.step_launches} kernel launches {where}, {pct(100 * short)} of them under "
        f"{us(SHORT_NS)} (median {us(median)}), {us(s.step_ns)} of kernel time {where} in all."
    )
    if idle is not None:
        evidence["gpu_idle_pct"] = idle
        seen += f" Between them the GPU is idle (no kernel, no copy) {pct(idle)} of the time."
    else:
        seen += (
            f" If a {'step' if s.steps else 'run'} takes longer than {us(s.step_ns)} on the wall "
            "clock, the difference is the GPU waiting between kernels: this profile has no "
            "timestamps to show it (time a step with torch.cuda.Event, or profile with nsys)."
        )
    return Finding(
        severity="medium",
        title="many short kernel launches",
        message=seen,
        why=f"Each launch costs {LAUNCH_COST_US}: a kernel that runs for less than that leaves "
        "the GPU waiting for the next launch, so the step is bound by launching, not by the "
        "kernels (on the H100 machine a training loop of 141 such launches a step took 6.1 ms "
        "for 1.2 ms of kernel time).",
        fix="Launch the step as one unit: capture it in a CUDA Graph (torch.cuda.CUDAGraph, or "
        'torch.compile(mode="reduce-overhead")), or cut the number of kernels by fusing them '
        "(torch.compile; fused optimizers and layers; larger batches per launch). Check with a "
        "timeline (nsys profile) that the gaps between kernels close.",
        threshold=f"≥ {MANY_LAUNCHES} launches {where}, median launch under {us(SHORT_NS)}",
        evidence=evidence,
        estimated_speedup_pct=idle,
        confidence="high" if idle is not None else "medium",
    )


@rule(
    "per_tensor_optimizer",
    "launch_overhead",
    scope="run",
    checklist=("C13",),
    speedup="none: the launches it saves cost CPU time, which a kernel profile does not measure",
    evidence="kernel names of Adam-style per-tensor math (lerp_, addcmul_, addcdiv_) per step",
    threshold="≥ 8 such launches per step (or run) outside multi-tensor kernels",
    severity="medium",
)
def per_tensor_optimizer(run: RunView) -> Finding | None:
    """An optimizer that launches its math once per parameter tensor (PyTorch foreach=False)."""
    s = run.summary
    where, how = _step_words(run)
    launches = run.launches.sort("launch_id")
    if s.steps is not None:
        launches = launches.slice(s.steps.first, s.steps.count * s.steps.period)
    name = pl.col("kernel_short").fill_null("")
    math = launches.filter(name.str.contains(_PER_TENSOR_MATH) & ~name.str.contains(_MULTI_TENSOR))
    count = math.height / (s.steps.count if s.steps else 1)
    if count < PER_TENSOR_MIN:
        return None
    spent = float(math["duration_ns"].fill_null(0).sum()) / (s.steps.count if s.steps else 1)
    return Finding(
        severity="medium",
        title="optimizer updates one tensor at a time",
        message=f"{how}{num(count, 0)} launches {where} of per-tensor optimizer math (lerp_, "
        f"addcmul_, addcdiv_: Adam-style updates, one set per parameter tensor), {us(spent)} of "
        "kernel time; the other per-tensor updates (mul_, add_, sqrt) add more launches of "
        "generic elementwise kernels.",
        why="A per-parameter optimizer loop launches several small kernels for every parameter "
        "tensor every step; a multi-tensor optimizer updates all tensors in a few launches, a "
        f"fused one in about one. Measured on the H100 machine (tools/gpu/trainloop.py): "
        f"{_OPTIMIZER_MEASURED}.",
        fix="Use the multi-tensor or fused optimizer: torch.optim.AdamW(params, foreach=True) "
        "(PyTorch's default when every parameter is on the GPU; foreach=False or an optimizer "
        "without it turns it off) or fused=True.",
        threshold=f"≥ {PER_TENSOR_MIN} launches {where} of lerp_/addcmul_/addcdiv_ kernels outside "
        "multi-tensor kernels",
        evidence={"per_tensor_launches_per_step": count, "per_tensor_ns_per_step": spent},
        confidence="medium",
    )


def dominant_kernels(launches: pl.DataFrame) -> pl.DataFrame:
    """Kernels (by short name, over all their launches) holding at least half the kernel time of
    a run of several kernels: ``kernel_short``, ``launches``, ``time_ns``, ``share_pct``."""
    total = launches["duration_ns"].sum() or 0.0
    if not total or launches["kernel_short"].n_unique() < 2:
        return pl.DataFrame(
            schema={
                "kernel_short": pl.String,
                "launches": pl.UInt32,
                "time_ns": pl.Float64,
                "share_pct": pl.Float64,
            }
        )
    return (
        launches.group_by("kernel_short")
        .agg(pl.len().alias("launches"), pl.col("duration_ns").sum().alias("time_ns"))
        .with_columns((100 * pl.col("time_ns") / total).alias("share_pct"))
        .filter(pl.col("share_pct") >= DOMINANT_SHARE)
    )


#: a run finding names its kernel in the message; its full name is in the kernel's own section
NAME_LIMIT = 300


def _named(kernel_short: str) -> str:
    return kernel_short if len(kernel_short) <= NAME_LIMIT else kernel_short[: NAME_LIMIT - 1] + "…"


def dominant_fix(kernel_short: str, share_pct: float) -> str:
    """What to do about a kernel that holds ``share_pct`` of the time: the call, for a library's
    kernel; the kernel itself, for one's own."""
    library = library_of(kernel_short)
    if library:
        return (
            f"It is {library}'s kernel: its speed is set by the call. Use the fastest data type the "
            "accuracy allows (TF32 or BF16/FP16 tensor cores rather than FP32), shapes that are "
            "multiples of 8 (16-bit) or 4 (TF32), and batch many small calls into one; compare "
            "with the library's other algorithms (cuBLASLt heuristics, cudnn.benchmark)."
        )
    return (
        "Work on this kernel first: its findings are the program's. Fixing every other kernel "
        f"together can save at most {pct(100 - share_pct)} of the kernel time."
    )


@rule(
    "dominant_kernel",
    "program",
    scope="run",
    checklist=("C13",),
    speedup="none: it says where the time is, not what a fix saves",
    evidence="each kernel's time over all its launches",
    threshold="one kernel ≥ 50% of the run's kernel time, in a run of several kernels",
    severity="medium; first on the fix-first list whatever its estimates",
)
def dominant_kernel(run: RunView) -> Finding | None:
    """One kernel holds most of the run's kernel time: the program is as fast as that kernel."""
    top = dominant_kernels(run.launches)
    if top.is_empty():
        return None
    row = top.row(0, named=True)
    share = row["share_pct"]
    fix = dominant_fix(row["kernel_short"], share)
    return Finding(
        severity="medium",
        title="one kernel holds most of the time",
        message=f"{_named(row['kernel_short'])} holds {pct(share)} of the run's kernel time "
        f"({us(row['time_ns'])} over {row['launches']} launch{'es' if row['launches'] != 1 else ''}).",
        why="A program is as fast as the kernels it spends its time in: a kernel with most of the "
        "time bounds what any other fix can gain.",
        fix=fix,
        threshold=f"one kernel (all its launches) ≥ {pct(DOMINANT_SHARE)} of the kernel time",
        evidence={
            "kernel_share_pct": share,
            "kernel_time_ns": row["time_ns"],
            "launches": float(row["launches"]),
        },
        confidence="high",
    )
