"""Local memory: register spills and arrays the compiler could not keep in registers.

Local memory is per-thread memory in DRAM, cached in L1 and L2. A thread's array indexed by a
value known only at run time (a ring buffer's head, a table looked up by data) and registers
spilled under pressure (``__launch_bounds__`` or ``-maxrregcount`` too tight) both become local
loads and stores: each is an L1 request with global memory's latency, where registers would
cost nothing.
"""

from __future__ import annotations

from warpscope.analysis.finding import Finding, rule
from warpscope.analysis.text import num, pct
from warpscope.analysis.views import PRACTICAL_ROOF_PCT, LaunchView

#: the least gain worth a finding
MIN_GAIN = 0.02


def _l1_work(v: LaunchView) -> float:
    """The L1's work in sectors and wavefronts: global and local sectors, shared wavefronts."""
    parts = ("global_load_sectors", "global_store_sectors", "local_load_sectors", "local_store_sectors")
    shared = ("shared_load_wavefronts", "shared_store_wavefronts")
    return sum(v.get(m) or 0.0 for m in (*parts, *shared))


@rule(
    "local_memory",
    "local_memory",
    checklist=("C8",),
    speedup="1 − max(the L1 time without the local sectors, the SM's without the local instructions, "
    "the DRAM's, each at 90% of peak; the DRAM bytes at 90% of the DRAM peak; the instructions without "
    "the local ones at 90% of the issue rate; the launch floor) / duration",
    evidence="local load and store instructions and sectors, spilled requests, L1 throughput, "
    "global sectors and shared wavefronts, DRAM bytes, instructions",
    threshold="local loads or stores executed, worth ≥ 2% of the launch",
    severity="high when the estimate is ≥ 20%, medium ≥ 5%, else low",
)
def local_memory(v: LaunchView) -> Finding | None:
    """Local loads and stores (spills or dynamically indexed arrays) cost L1 traffic and latency."""
    loads, stores = v.get("local_load_requests") or 0.0, v.get("local_store_requests") or 0.0
    sectors = (v.get("local_load_sectors") or 0.0) + (v.get("local_store_sectors") or 0.0)
    instructions, duration = v.get("instructions_executed"), v.get("duration_ns")
    if loads + stores <= 0 or not instructions or not duration:
        return None
    l1 = v.get("l1tex_throughput_pct")
    work = _l1_work(v)
    share = sectors / work if work > 0 else 0.0
    after = v.time_at_roofs_ns(
        dram_bytes=v.get("dram_bytes"), instructions=max(0.0, instructions - loads - stores)
    )
    if after is not None:
        # the units the fix relieves keep their other work, the rest all of theirs
        untouched = [
            (l1 or 0.0) * (1 - share),
            (v.get("sm_throughput_pct") or 0.0) * (1 - (loads + stores) / instructions),
            v.get("dram_throughput_pct") or 0.0,
        ]
        after = max(after, duration * max(untouched) / PRACTICAL_ROOF_PCT)
    gain = v.gain_to(after)
    if gain is None or gain < MIN_GAIN:
        return None
    spills = v.get("local_spill_requests")
    spilled = spills is not None and spills > 0.5 * (loads + stores)
    registers = v.get("registers_per_thread")
    if spilled:
        cause = "register spills"
        fix = (
            "Give the kernel the registers it needs: loosen `__launch_bounds__` (fewer minimum "
            "blocks per SM) or `-maxrregcount`, or cut the live values (recompute instead of "
            "keeping, split the kernel). Fewer blocks per SM with no spills is usually faster than "
            "more blocks that spill; `-Xptxas -v` prints the spill bytes."
        )
    else:
        cause = "a thread-local array indexed at run time"
        fix = (
            "Index local arrays only with values the compiler knows: fully unrolled loops "
            "(`#pragma unroll`) over constant bounds, a shifted window instead of a moving head "
            "(ring buffers), a `switch` over a few cases; or keep the array in shared memory "
            "(one slice per thread, padded against bank conflicts)."
        )
    evidence = v.known(
        "local_load_requests",
        "local_store_requests",
        "local_load_sectors",
        "local_store_sectors",
        "local_spill_requests",
        "l1tex_throughput_pct",
        "instructions_executed",
        "dram_bytes",
        "duration_ns",
    )
    regs = f" at {num(registers, 0)} registers per thread" if registers else ""
    emulated = v.source_format == "emulator"
    if emulated:  # the emulator runs the source: it cannot see which arrays the compiler keeps
        fix += (
            " (The emulator counts every access to a `cuda.local.array` as local memory; the "
            "compiler keeps an array indexed only by constants in registers. Profile it on a GPU "
            "with ncu to be sure.)"
        )
    return Finding(
        severity="high",
        title="local memory (" + ("spills" if spilled else "indexed array") + ")",
        message=f"{num(loads, 0)} local loads and {num(stores, 0)} local stores{regs}, "
        f"{pct(100 * share)} of the L1's sectors and wavefronts: {cause}. Kept in registers, the "
        f"rest of the kernel needs about {num(after / 1000, 1)} µs of its {num(duration / 1000, 1)} µs.",  # type: ignore[operator]
        why="Local memory lives in DRAM behind L1 and L2: every access is a memory instruction with "
        "global memory's latency and L1 bandwidth, where a register costs nothing.",
        fix=fix,
        threshold="local loads or stores executed, worth ≥ 2% of the launch",
        evidence=evidence,
        estimated_speedup_pct=100 * gain,
        confidence="low" if emulated else None,
    )
