"""The timing model compiled with numba's CPU target: ``sm.SM``'s results, ~20x faster.

``sm.SM`` (objects, dicts, lists) is the reference and the path without numba; ``jit_sm``
runs the same algorithm step for step on arrays, which numba compiles. This module
decides when to use it, packs one SM's warp streams into arrays and reads the results
back into an ``SMResult``: counters, cycles and timeline rows equal the reference's
(``tests/test_emulator_timing_compiled.py`` compares them).

numba is optional (``pip install 'warpscope[numba]'``). Importing it costs ~0.12 s and its
compiled functions come from numba's on-disk cache (``cache=True``; the first run on a
machine compiles, ~20 s), so a launch is timed with the compiled model only once it is
loaded or when the launch is large enough to repay loading it (``JIT_MIN``, and rent or buy:
``repaid``); ``WARPSCOPE_JIT=1`` always uses it where numba is installed, ``WARPSCOPE_JIT=0``
never. Where the model has been built ahead of time (``aot``: a process that loads the JIT
starts that build for the next), it loads in well under a millisecond without numba, and
every launch the model times faster (``RENT_MIN``) uses it.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from warpscope.emulator.instructions import Inst
from warpscope.emulator.timing import aot
from warpscope.emulator.timing import jit_sm as j
from warpscope.emulator.timing.memory import first_touch
from warpscope.emulator.timing.params import Timing
from warpscope.emulator.timing.sm import POLICIES, SHORT_SB, STATES, WAIT, SMResult
from warpscope.emulator.trace import Flat

JIT_MIN = 40_000  # traced warp instructions from which loading the compiled model (numba's import
# and ``LOAD_S``) beats the reference (~3.5 µs a traced instruction), at the least
LOAD_S = 0.06  # loading it once numba is imported (its runtime and the cached code: ``_loading_lightly``)
IMPORT_S = 0.12  # importing numba first (not needed where a file named numba's types: it is in)
AOT_S = 0.001  # loading the model built ahead of time (``aot``: ~0.3 ms)
_run_sm: Any = None  # the compiled entry point, once loaded
_reference_s = 0.0  # seconds this process spent in the reference model


RENT_MIN = 100  # traced warp instructions from which the compiled model times a launch in a
# fraction of the reference's time (below, both cost about the launch's fixed cost)
REFERENCE_S = 3.5e-6  # the reference's time per traced warp instruction, at least (a large
# launch's; small ones pay more for their fixed cost): what a launch will cost it, foreseen


def spent_in_reference(seconds: float, traced: int) -> None:
    """The reference model timed a launch of ``traced`` warp instructions in ``seconds``
    (counted where the compiled model would have been faster: ``RENT_MIN``)."""
    global _reference_s
    if traced >= RENT_MIN:
        _reference_s += seconds


def load_cost() -> float:
    """Seconds loading the compiled model takes now: the module built ahead of time where it
    is, else numba's JIT (its import only where nothing has imported it yet)."""
    if aot.ready():
        return AOT_S
    return LOAD_S + (0.0 if sys.modules.get("numba") is not None else IMPORT_S)


def repaid(traced: int = 0) -> bool:
    """Whether the reference model, with a launch of ``traced`` warp instructions to come, would
    have spent as long as loading the compiled model takes (the rent-or-buy rule, in its
    classic form: rent until the next rent would reach the price, then buy; small launches many
    times over pay for the load, at most twice over). The launch to come is foreseen at
    ``REFERENCE_S`` a traced instruction, so a mid-sized launch that would cross the price
    loads the model instead of paying for the reference and the load after it."""
    return _run_sm is None and _reference_s + traced * REFERENCE_S >= load_cost() and numba_available()


def use_compiled(traced: int) -> bool:
    """Whether to time a launch of ``traced`` warp instructions with the compiled model: where
    ``worth_it`` says so, or the reference has ``repaid`` the load and this launch is one the
    model times faster (``RENT_MIN``): loading it for a launch it would not speed up only moves
    the load's cost onto that launch."""
    return worth_it(traced) or (traced >= RENT_MIN and repaid(traced))


def numba_available() -> bool:
    """Whether numba is installed (and not switched off by ``WARPSCOPE_JIT=0``)."""
    if os.environ.get("WARPSCOPE_JIT", "") == "0":
        return False
    if "numba" in sys.modules:
        return sys.modules["numba"] is not None  # None: marked absent
    return aot.find_numba() is not None  # asked without importing it (~0.12 s), once


def worth_it(traced: int) -> bool:
    """Whether to time a launch of ``traced`` warp instructions with the compiled model:
    numba installed and not off, and the model already loaded, or the launch large enough
    (``JIT_MIN``) to repay loading it, or one the model times faster (``RENT_MIN``) where it
    was built ahead of time (``aot``: its load costs next to nothing), or ``WARPSCOPE_JIT=1``."""
    switch = os.environ.get("WARPSCOPE_JIT", "")
    if _run_sm is not None:
        return switch != "0"
    if not numba_available():
        return False
    return switch == "1" or traced >= JIT_MIN or (traced >= RENT_MIN and aot.ready())


def compiled_run() -> Any:
    """``jit_sm.run_sm`` compiled: the module built ahead of time where there is one (``aot``),
    else numba's JIT (loaded from numba's on-disk cache after the first time), and a build
    ahead of time then starts in the background as the process ends, for the next run."""
    global _run_sm
    if _run_sm is None:
        _run_sm = aot.load()
    if _run_sm is None:
        import numba

        jit = numba.njit(cache=True, nogil=True)
        space = vars(j)
        for name in j.HELPERS:  # run_sm calls them by their global names
            if not hasattr(space[name], "py_func"):
                space[name] = jit(space[name])
        _run_sm = _loading_lightly(jit(j.run_sm))
        aot.build_at_exit()
    return _run_sm


def _loading_lightly(dispatcher: Any) -> Any:
    """``dispatcher`` (``run_sm``), its cached machine code loaded without numba's full target
    refresh. numba refreshes its target context before loading from its cache (~90 ms: it
    imports and installs every typing and lowering registry, which only compiling needs); the
    cached library needs only the runtime (NRT) its array arguments and allocations call.
    Measured from a process with numba imported: 0.12 s to load before, 0.06 s after.
    Anything that does not fit (a cache miss: numba compiles, refreshing as it always does;
    another numba whose cache lacks these methods) takes numba's own path."""
    cache: Any = getattr(dispatcher, "_cache", None)
    full = getattr(cache, "load_overload", None)
    if full is None or not hasattr(cache, "_load_overload"):
        return dispatcher

    def load_overload(sig: Any, target_context: Any) -> Any:
        cache.load_overload = full  # once: later signatures (none expected) load as numba does
        try:
            from numba.core.runtime import nrt

            nrt.rtsys.initialize(target_context)
            with cache._guard_against_spurious_io_errors():
                loaded = cache._load_overload(sig, target_context)
        except Exception:  # any failure here: numba's own path decides
            loaded = None
        return loaded if loaded is not None else full(sig, target_context)

    cache.load_overload = load_overload
    return dispatcher


#: traced warp instructions a simulated SM holds on average from which a launch's SMs are
#: timed two or more at a time (``run_all``): below, handing one to a thread costs about what
#: it saves (~0.5 µs a traced instruction, ~50 µs a hand-over)
PARALLEL_MIN = 1_000
_pool: tuple[ThreadPoolExecutor, int] | None = None  # and its threads
_pool_lock = threading.Lock()


def run_all(jobs: Sequence[Callable[[], SMResult]], traced: int) -> list[SMResult]:
    """Each job's ``run`` (one simulated SM each, independent of the others), in order: on
    this thread and, where the machine has cores to spare and the SMs are big enough
    (``PARALLEL_MIN``), the others at once on a pool's threads, the compiled model releasing
    the GIL while it runs (numba's ``nogil``; the built module's wrapper likewise). The same
    results either way: nothing passes between the SMs."""
    if len(jobs) < 2 or traced < PARALLEL_MIN * len(jobs):  # asked first: cpu_count costs 5 µs
        return [job() for job in jobs]
    cores = os.cpu_count() or 1
    if cores < 2:
        return [job() for job in jobs]
    compiled_run()  # loaded once, before any thread asks
    pool = _threads(min(cores, len(jobs)) - 1)
    later = [pool.submit(job) for job in jobs[1:]]
    return [jobs[0](), *(f.result() for f in later)]


def _threads(workers: int) -> ThreadPoolExecutor:
    """The pool ``run_all`` hands SMs to (no thread until asked; a fork's child makes its own)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[1] < workers:
            if _pool is not None:
                _pool[0].shutdown(wait=False)  # idle: a launch waits for its own SMs
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="warpscope-sm"), workers
        return _pool[0]


def _forget_pool() -> None:
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # a forked child has none of the parent's threads
    os.register_at_fork(after_in_child=_forget_pool)


def run(
    t: Timing,
    table: list[Inst],
    part: Part,
    max_blocks: int,
    max_warps: int,
    l1_sectors: int,
    load_fraction: float,
    store_fraction: float,
    policy: str = "gty",
    dispatch_interval: float = 0.0,
    first_dispatch: int = 0,
    timeline_limit: int = 200_000,
) -> SMResult:
    """One SM, as ``sm.SM(...).run()`` measures it (same arguments, but the SM's streams as
    ``part`` and the memory system's as its three numbers), through the compiled model."""
    if policy not in POLICIES:
        raise ValueError(f"scheduler policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    base, q, latency, reason = _model(t)
    p = _launch_parameters(
        base,
        max_blocks,
        max_warps,
        POLICIES.index(policy),
        max(1, round(dispatch_interval)),
        timeline_limit,
        l1_sectors,
    ).copy()
    p[j.P_FIRST_DISPATCH] = first_dispatch
    packed = _pack(table, part)
    sectors = packed["sectors"]
    ft_load = part.sectors.first_touch(load_fraction)
    ft_store = part.sectors.first_touch(store_fraction)
    tl = np.empty((timeline_limit, 7), np.int64)
    s = np.zeros(j.N_S, np.int64)
    f = np.zeros(4)
    state_cycles = np.zeros(len(STATES), np.int64)
    cycles = compiled_run()(
        p,
        q,
        latency,
        reason,
        packed["warps"],
        packed["block_w0"],
        packed["block_nw"],
        packed["block_index"],
        packed["ops"],
        packed["ns"],
        packed["dsts"],
        packed["src_off"],
        packed["src_list"],
        packed["units"],
        packed["sec_off"],
        sectors,
        ft_load,
        ft_store,
        packed["values"],
        s,
        f,
        state_cycles,
        tl,
    )
    got = s.tolist()  # Python ints at once (indexing the array makes a numpy scalar each)
    if got[j.S_ERROR]:
        raise RuntimeError("timing model: no warp can ever issue again (a barrier no warp reaches?)")
    return SMResult(
        cycles=int(cycles),
        issued=got[j.S_ISSUED],
        state_cycles=state_cycles.tolist(),
        resident_warp_cycles=got[j.S_RWC],
        smsp_active_cycles=got[j.S_SAC],
        eligible_warp_cycles=got[j.S_EWC],
        blocks=got[j.S_BLOCKS],
        l1_lookups=got[j.S_L1_LOOKUPS],
        l1_hits=got[j.S_L1_HITS],
        l2_lookups=got[j.S_L2_LOOKUPS],
        l2_hits=got[j.S_L2_HITS],
        dram_sectors=got[j.S_DRAM],
        timeline=tl[: got[j.S_TL_N]].copy(),
        timeline_complete=got[j.S_TL_COMPLETE] == 0,
    )


def _launch_parameters(
    base: np.ndarray,
    max_blocks: int,
    max_warps: int,
    policy: int,
    dispatch_step: int,
    timeline_limit: int,
    l1_sectors: int,
) -> np.ndarray:
    """``run_sm``'s parameters for one launch configuration (``base``: ``_model``'s): a launch's
    SMs differ only in their first dispatch, set on a copy of this one (never changed)."""
    key = (id(base), max_blocks, max_warps, policy, dispatch_step, timeline_limit, l1_sectors)
    hit = _PARAMETERS.get(key)
    if hit is not None and hit[0] is base:
        return hit[1]
    p = base.copy()
    p[j.P_MAX_BLOCKS], p[j.P_MAX_WARPS], p[j.P_POLICY] = max_blocks, max_warps, policy
    p[j.P_DISPATCH_STEP], p[j.P_TL_LIMIT], p[j.P_L1_CAP] = dispatch_step, timeline_limit, max(1, l1_sectors)
    with _models_lock:  # SMs of one launch may ask at once (``run_all``)
        _PARAMETERS[key] = (base, p)
        while len(_PARAMETERS) > _PARAMETERS_KEPT:
            del _PARAMETERS[next(iter(_PARAMETERS))]  # the oldest
    return p


_PARAMETERS_KEPT = 64
#: ``_launch_parameters``' arrays by ``base``'s identity and the configuration
_PARAMETERS: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}


def _model(t: Timing) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``t``'s part of ``run_sm``'s inputs (read-only there): the parameters that do not depend
    on the launch, the queues' cycles per unit, and per op the result latency and the stall
    reason of a warp waiting on it (``sm.SM.result_latency``); once per ``Timing``."""
    hit = _MODELS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    with _models_lock:  # SMs of one launch may ask at once (``run_all``)
        return _new_model(t)


def _new_model(t: Timing) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    p = np.zeros(j.N_P, np.int64)
    p[j.P_XU_REF], p[j.P_MUFU_LAT], p[j.P_FMA_LAT] = t.xu_refinement, t.mufu_latency, t.fma_latency
    p[j.P_SHARED_LAT], p[j.P_SHUFFLE_LAT], p[j.P_L1_LAT] = t.shared_latency, t.shuffle_latency, t.l1_latency
    p[j.P_L2_LAT], p[j.P_DRAM_LAT] = t.cycles(t.l2_latency_ns), t.cycles(t.dram_latency_ns)
    p[j.P_STORE_ACK], p[j.P_BRANCH], p[j.P_MIO_Q], p[j.P_LG_Q] = (
        t.store_ack_cycles,
        t.branch_cycles,
        t.mio_queue,
        t.lg_queue,
    )
    p[j.P_WARP_START], p[j.P_COLD_START], p[j.P_EXIT] = (
        t.warp_start_cycles,
        t.cold_start_cycles,
        t.exit_cycles,
    )
    p[j.P_INTERVAL : j.P_INTERVAL + 5] = [
        128 // t.alu_lanes,
        max(1, 128 // t.fma_lanes),
        max(1, 128 // t.fp64_lanes),
        max(1, 128 // t.xu_lanes),
        max(1, 128 // t.cvt_lanes),
    ]
    q = np.array(
        [
            1.0 / t.shared_wavefronts_per_cycle,
            1.0 / t.shuffle_per_cycle,
            1.0 / t.l1_lines_per_cycle,
            1.0 / t.l2_sectors_per_cycle,
            1.0 / t.dram_sectors_per_cycle,
        ]
    )
    latency = np.zeros(j.N_OPS, np.int64)
    reason = np.full(j.N_OPS, WAIT, np.int64)
    refined = t.xu_refinement > 0
    for op, lat, why in (
        (j.FMA, t.fma_latency, WAIT),
        (j.ALU, t.alu_latency, WAIT),
        (j.FP64, t.fp64_latency, WAIT),
        (j.CVT, t.conversion_latency, SHORT_SB),
        (j.XU, t.fma_latency if refined else t.xu_latency, WAIT if refined else SHORT_SB),
        (j.FDIV, t.fma_latency if refined else t.fdiv_latency, WAIT if refined else SHORT_SB),
    ):
        latency[op], reason[op] = lat, why
    arrays = (p, q, latency, reason)
    _MODELS[id(t)] = (t, arrays)
    while len(_MODELS) > _MODELS_KEPT:
        del _MODELS[next(iter(_MODELS))]  # the oldest (an architecture without its own
        # parameters gets a new ``Timing`` each launch)
    return arrays


_MODELS_KEPT = 8
_models_lock = threading.Lock()
#: ``_model``'s arrays by the ``Timing``'s identity (hashing its fields costs more)
_MODELS: dict[int, tuple[Timing, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = {}


class Sectors:
    """A launch's traced sector ids renumbered densely (0, 1, ...), once for all its SMs."""

    def __init__(self, sectors: np.ndarray) -> None:
        # np.unique(sectors, return_inverse=True) without its first call's import of numpy.ma
        order = np.argsort(sectors, kind="stable")
        ordered = sectors[order]
        new = np.ones(ordered.size, dtype=bool)
        new[1:] = ordered[1:] != ordered[:-1]
        self.ids = ordered[new]
        self.dense = np.empty(ordered.size, dtype=np.int64)
        self.dense[order] = np.cumsum(new) - 1
        self._first_touch: dict[float, np.ndarray] = {}

    def first_touch(self, fraction: float) -> np.ndarray:
        """``memory.first_touch`` of these ids, once per fraction: a small grid's SMs (up to
        eight, each timed by its own call) mostly share theirs. Read-only in ``run_sm``."""
        hit = self._first_touch.get(fraction)
        if hit is None:
            hit = self._first_touch[fraction] = first_touch(self.ids, fraction)
        return hit


class Gathered:
    """Per position of a launch's flat trace, its instruction's count, destination and
    sources' offsets (``_table``'s arrays indexed by the positions' instructions), gathered
    once for all its SMs: each SM's are slices (views) of these."""

    def __init__(self, table: list[Inst], flat: Flat) -> None:
        inst_n, inst_dst, inst_src, self.src_list, self.values = _table(table)
        insts = flat.insts
        self.ns = inst_n[insts]
        self.dsts = inst_dst[insts]
        self.src_off = np.stack([inst_src[insts], inst_src[insts + 1]], axis=1)
        self.start = flat.start
        self._warps: tuple[int, np.ndarray] | None = None

    def warps(self, warps_per_block: int) -> np.ndarray:
        """Per stream of the launch: its first position, its length and its warp in its block
        (``_pack`` takes an SM's rows, less its first position; an SM's streams are whole blocks)."""
        if self._warps is None or self._warps[0] != warps_per_block:
            start = self.start
            n = start.size - 1
            w = np.empty((n, 3), np.int64)
            w[:, 0], w[:, 1], w[:, 2] = start[:-1], np.diff(start), np.arange(n) % warps_per_block
            self._warps = (warps_per_block, w)
        return self._warps[1]


@dataclass
class Part:
    """One simulated SM's share of a trace: streams ``streams`` of ``flat``, blocks ``blocks``
    of ``warps_per_block`` streams each, in dispatch order."""

    flat: Flat
    sectors: Sectors
    streams: range
    blocks: list[int]
    warps_per_block: int
    gathered: Gathered | None = None  # the launch's, where its SMs share it (else ``_pack`` gathers)


def _pack(table: list[Inst], part: Part) -> dict[str, Any]:
    """The SM's warp streams as ``jit_sm.run_sm`` takes them: positions (one per issued
    instruction) of its warps end to end, the instruction table's sources as CSR."""
    f = part.flat
    streams = part.streams
    g = part.gathered if part.gathered is not None else Gathered(table, f)
    warps = g.warps(part.warps_per_block)[streams.start : streams.stop].copy()  # first position,
    first = int(f.start[streams.start])  # length, warp in block
    if first:
        warps[:, 0] -= first
    block_w0, block_nw = _blocks(len(part.blocks), part.warps_per_block)
    at = slice(first, int(f.start[streams.stop]))
    return {
        "warps": warps,
        "block_w0": block_w0,
        "block_nw": block_nw,
        "block_index": np.array(part.blocks, np.int64),
        "ops": f.ops[at],
        "ns": g.ns[at],
        "dsts": g.dsts[at],
        "src_off": g.src_off[at],
        "src_list": g.src_list,
        "units": f.units[at],
        "sec_off": f.sec_off[at],
        "sectors": part.sectors.dense,
        "values": g.values,
    }


@functools.lru_cache(maxsize=64)
def _blocks(n_blocks: int, warps_per_block: int) -> tuple[np.ndarray, np.ndarray]:
    """Per block of an SM's ``n_blocks``, its first warp and its warps (``run_sm`` only reads
    them: shared by every SM and launch of that shape)."""
    w0 = np.arange(n_blocks, dtype=np.int64) * warps_per_block
    return w0, np.full(n_blocks, warps_per_block, np.int64)


def _table(table: list[Inst]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The instruction table as arrays (per instruction its count, destination and sources'
    offsets into the sources' list; the values' count), once per table and length: a
    kernel's table is its own and complete once it is compiled."""
    key = (id(table), len(table))
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is table:
        return hit[1]
    inst_n = np.array([i.n for i in table], np.int64)
    inst_dst = np.array([i.dst for i in table], np.int64)
    src_counts = np.array([len(i.srcs) for i in table], np.int64)
    inst_src = np.zeros(len(table) + 1, np.int64)
    np.cumsum(src_counts, out=inst_src[1:])
    src_list = np.fromiter(itertools.chain.from_iterable(i.srcs for i in table), np.int64, int(inst_src[-1]))
    values = 1 + max(int(inst_dst.max(initial=0)), int(src_list.max(initial=0)))
    arrays = (inst_n, inst_dst, inst_src, src_list, values)
    _TABLES[key] = (table, arrays)
    while len(_TABLES) > _TABLES_KEPT:
        del _TABLES[next(iter(_TABLES))]  # the oldest
    return arrays


#: ``_table``'s arrays by the table's identity and length, the newest ``_TABLES_KEPT``
_TABLES: dict[
    tuple[int, int], tuple[list[Inst], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]]
] = {}
_TABLES_KEPT = 64
