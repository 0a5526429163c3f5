"""Host-device transfers (nvprof traces and summaries): pinned memory, batching, overlap."""

from __future__ import annotations

import polars as pl

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct, size, us
from warpscope.analysis.views import RunView

HOST_COPIES = ("HtoD", "DtoH")
SMALL_COPY = 64 * 1024  # below this a copy's fixed cost dominates its transfer time
MANY = 10


def _host_copies(run: RunView) -> pl.DataFrame:
    return run.transfers.filter(pl.col("kind").is_in(HOST_COPIES))


def _throughput(frame: pl.DataFrame) -> float | None:
    timed = frame.filter(pl.col("bytes").is_not_null() & (pl.col("duration_ns") > 0))
    if timed.is_empty():
        return None
    return float(timed["bytes"].sum()) / float(timed["duration_ns"].sum()) * 1e9


@rule(
    "pageable_transfers",
    "transfers",
    scope="run",
    checklist=("C10",),
    speedup="pageable copy time × (1 − pageable / pinned throughput in the same run) / GPU busy "
    "time × 100, where the run has pinned copies to compare with",
    evidence="host-device copies: memory kind, bytes, time, throughput (pinned copies of the same run)",
    threshold="any HtoD/DtoH copy with pageable host memory",
    severity="medium: ≥ 1 MiB or ≥ 1 ms of copies; else low",
)
def pageable_transfers(run: RunView) -> Finding | None:
    """Host-device copies from or to pageable host memory."""
    copies = _host_copies(run)
    pageable = copies.filter((pl.col("src_mem") == "Pageable") | (pl.col("dst_mem") == "Pageable"))
    if pageable.is_empty():
        return None
    pinned = copies.filter((pl.col("src_mem") == "Pinned") | (pl.col("dst_mem") == "Pinned"))
    slow, fast = _throughput(pageable), _throughput(pinned)
    count = int(pageable["count"].fill_null(1).sum())
    moved = float(pageable["bytes"].fill_null(0).sum())
    spent = float(pageable["duration_ns"].fill_null(0).sum())
    evidence = {"pageable_copies": float(count), "pageable_bytes": moved, "pageable_time_ns": spent}
    seen = f"{count} copies from or to pageable host memory ({size(moved)}, {us(spent)} in all)"
    if slow is not None:
        evidence["pageable_bytes_per_second"] = slow
        seen += f" at {num(slow / 1e9, 2)} GB/s"
    gain = None
    if slow is not None and fast is not None and fast > slow:
        evidence["pinned_bytes_per_second"] = fast
        seen += f" (pinned copies in this run reach {num(fast / 1e9, 2)} GB/s)"
        busy = _busy_ns(run)
        gain = 100 * spent * (1 - slow / fast) / busy if busy else None
    return Finding(
        severity="medium" if moved >= 1 << 20 or spent >= 1e6 else "low",
        title="copies through pageable host memory",
        message=seen + ".",
        why="The driver stages pageable memory through a pinned bounce buffer, so the copy runs "
        "twice and cannot overlap with kernels.",
        fix="Allocate the host buffers with cudaMallocHost / cudaHostAlloc (or pin existing ones "
        "with cudaHostRegister) and copy with cudaMemcpyAsync on a non-default stream.",
        threshold="any HtoD/DtoH copy with pageable host memory",
        evidence=evidence,
        estimated_speedup_pct=gain,
    )


@rule(
    "many_small_transfers",
    "transfers",
    scope="run",
    checklist=("C10",),
    evidence="host-device copies: count, bytes",
    threshold="≥ 10 copies averaging < 64 KiB",
    severity="medium: ≥ 100 copies; else low",
)
def many_small_transfers(run: RunView) -> Finding | None:
    """Ten or more host-device copies averaging under 64 KiB each."""
    copies = _host_copies(run)
    count = int(copies["count"].fill_null(1).sum()) if not copies.is_empty() else 0
    if count < MANY:
        return None
    sized = copies.filter(pl.col("bytes").is_not_null())
    if sized.is_empty():
        return None
    moved = float(sized["bytes"].sum())
    average = moved / int(sized["count"].fill_null(1).sum())
    if average >= SMALL_COPY:
        return None
    spent = float(copies["duration_ns"].fill_null(0).sum())
    return Finding(
        severity="medium" if count >= 100 else "low",
        title="many small host-device copies",
        message=f"{count} host-device copies averaging {size(average)} ({size(moved)}, {us(spent)} in all).",
        why="Every copy pays a fixed setup cost of microseconds; for small copies that cost, not "
        "the bus, sets the time.",
        fix="Gather the pieces into one buffer and copy it once (or cudaMemcpy2D for strided "
        "pieces); keep data that kernels reuse on the device between launches.",
        threshold=f"≥ {MANY} copies averaging < 64 KiB",
        evidence={"host_copies": float(count), "host_copy_bytes": moved, "host_copy_time_ns": spent},
    )


def _busy_ns(run: RunView) -> float:
    kernels = float(run.kernels["duration_ns"].fill_null(0).sum())
    return kernels + float(_host_copies(run)["duration_ns"].fill_null(0).sum())


def _overlap_ns(copies: pl.DataFrame, kernels: pl.DataFrame) -> float:
    spans = sorted((s, s + d) for s, d in kernels.select("start_ns", "duration_ns").iter_rows())
    total = 0.0
    for start, duration in copies.select("start_ns", "duration_ns").iter_rows():
        end = start + duration
        for k0, k1 in spans:
            if k0 >= end:
                break
            total += max(0.0, min(end, k1) - max(start, k0))
    return total


@rule(
    "transfers_not_overlapped",
    "transfers",
    scope="run",
    checklist=("C10",),
    speedup="min(copy time, kernel time) / (copy time + kernel time) × 100: % of GPU busy time "
    "that overlapping copies with kernels could hide",
    evidence="copy and kernel start times and durations",
    threshold="copies ≥ 10% of GPU busy time, < 10% of it overlapped",
    severity="medium: copies ≥ 25% of GPU busy time; else low",
)
def transfers_not_overlapped(run: RunView) -> Finding | None:
    """Host-device copies that never run while a kernel runs, and take ≥ 10% of GPU time."""
    copies = _host_copies(run).filter(pl.col("start_ns").is_not_null() & pl.col("duration_ns").is_not_null())
    kernels = run.kernels.filter(pl.col("start_ns").is_not_null() & pl.col("duration_ns").is_not_null())
    if copies.is_empty() or kernels.is_empty():
        return None
    copy_ns = float(copies["duration_ns"].sum())
    kernel_ns = float(kernels["duration_ns"].sum())
    if copy_ns < 0.10 * (copy_ns + kernel_ns):
        return None
    overlap = _overlap_ns(copies, kernels)
    if overlap > 0.10 * copy_ns:
        return None
    streams = sorted(
        {s for s in (*copies["stream"].to_list(), *kernels["stream"].to_list()) if s is not None}
    )
    where = f" on stream {', '.join(streams)}" if len(streams) == 1 else ""
    return Finding(
        severity="medium" if copy_ns >= 0.25 * (copy_ns + kernel_ns) else "low",
        title="copies not overlapped with kernels",
        message=f"Host-device copies take {us(copy_ns)} and kernels {us(kernel_ns)}{where}; "
        f"they overlap for {us(overlap)} ({pct(100 * copy_ns / (copy_ns + kernel_ns), 0)} "
        "of GPU busy time is copying alone).",
        why="Copies and kernels on one stream run one after the other; the copy engines can move "
        "data while kernels compute.",
        fix="Split the data into chunks and pipeline them on several streams: cudaMemcpyAsync "
        "(pinned host memory) for chunk i+1 while the kernel works on chunk i.",
        threshold="copies ≥ 10% of GPU busy time, < 10% of it overlapped",
        evidence={"host_copy_time_ns": copy_ns, "kernel_time_ns": kernel_ns, "overlap_ns": overlap},
        estimated_speedup_pct=100 * min(copy_ns, kernel_ns) / (copy_ns + kernel_ns),
    )
