"""``@cuda.jit`` kernels and device functions, and what one launch records.

``kernel[grid, block](args)`` (optionally ``[grid, block, stream, dynamic_shared_bytes]``)
compiles the kernel on first use, runs it over the grid in chunks of blocks, writes the
results into the numpy arrays passed in (numba copies them to the device and back), and
records a ``Launch``: configuration, occupancy inputs and the per-line counters.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from warpscope.emulator import arrays, heap, signatures
from warpscope.emulator.compiler import cache as compiler_cache
from warpscope.emulator.compiler.core import Compiler
from warpscope.emulator.errors import EmulatorError, KernelFault, users
from warpscope.emulator.functions import DeviceFunction, JitFunction
from warpscope.emulator.ir import Function, exec_block, scalar
from warpscope.emulator.race import Hazard, RaceCheck, independent_threads
from warpscope.emulator.runtime import BarrierWarning, Frame, Run
from warpscope.emulator.simt import Counters, chunk_for
from warpscope.emulator.timing import TimingResult, overlap, simulate, timing_for
from warpscope.emulator.trace import Trace


def _timing_default() -> bool:
    """``WARPSCOPE_TIMING=0`` turns the timing model off for launches that do not say
    (a script launching kernels itself, as ``--no-timing`` does for ``warpscope emulate``)."""
    return os.environ.get("WARPSCOPE_TIMING", "1").strip().lower() not in ("0", "false", "no", "off")


@dataclass
class Settings:
    """How launches are emulated (``warpscope emulate`` options)."""

    arch: str = "sm_90"
    registers: int = 32  # registers per thread when the kernel does not say
    budget: int = 2_000_000_000  # warp instructions per launch before a loop is called runaway
    chunk_lanes: int = 1 << 17  # lanes executed together (memory vs per-step overhead)
    timing: bool = field(default_factory=_timing_default)  # run the timing model on each launch
    policy: str = "gty"  # warp scheduler: gty (greedy then youngest), gto, lrr
    racecheck: bool = True  # report shared (and in-block global) races between barriers


#: the process-wide defaults: what a launch uses where no ``using(...)`` block says otherwise
SETTINGS = Settings()
# Settings and recorders are per context (a thread, an asyncio task): two emulations running
# at once, as the TUI's worker beside a test or two threads, never see each other's.
_CURRENT: ContextVar[Settings | None] = ContextVar("warpscope_emulator_settings", default=None)
_RECORDERS: ContextVar[tuple[list[Launch], ...]] = ContextVar("warpscope_emulator_recorders", default=())


def current_settings() -> Settings:
    """The settings launches made here use: the innermost ``using`` block's, else ``SETTINGS``."""
    return _CURRENT.get() or SETTINGS


@contextlib.contextmanager
def using(settings: Settings) -> Iterator[Settings]:
    """Launches inside the ``with`` block (in this thread or task) use ``settings``."""
    token = _CURRENT.set(settings)
    try:
        yield settings
    finally:
        _CURRENT.reset(token)


@dataclass
class Launch:
    """One emulated launch: configuration and what its instructions counted."""

    kernel: str
    file: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    registers: int
    registers_stated: bool  # True when the kernel said (max_registers)
    static_shared: int
    dynamic_shared: int
    barriers: int
    arch: str
    counters: Counters
    lines: dict[int, str] = field(default_factory=dict)
    hazards: list[Hazard] = field(default_factory=list)  # races found (empty: none, or not checked)
    racecheck: bool = False  # races were looked for
    barrier_warnings: list[BarrierWarning] = field(default_factory=list)  # divergent barriers
    _timing: TimingResult | None = field(default=None, init=False, repr=False)
    _timing_job: Future[TimingResult] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def timing(self) -> TimingResult | None:
        """What the timing model measured (None: not timed). A big launch may still be being
        timed on the timing thread (``timing.overlap``): reading this waits for it."""
        job = self._timing_job
        if job is not None:
            self._timing, self._timing_job = job.result(), None
        return self._timing

    @timing.setter
    def timing(self, value: TimingResult | Future[TimingResult] | None) -> None:
        if isinstance(value, Future):
            self._timing, self._timing_job = None, value
        else:
            self._timing, self._timing_job = value, None


class _Recorder(list):
    """Launches made inside a ``recording`` block, with a callback after each one."""

    def __init__(self, on_launch: Callable[[Launch], None] | None) -> None:
        super().__init__()
        self.on_launch = on_launch

    def append(self, launch: Launch) -> None:
        super().append(launch)
        if self.on_launch is not None:
            self.on_launch(launch)


@contextlib.contextmanager
def recording(on_launch: Callable[[Launch], None] | None = None) -> Iterator[list[Launch]]:
    """Collect every launch made inside the ``with`` block (``on_launch`` hears of each)."""
    launches = _Recorder(on_launch)
    token = _RECORDERS.set((*_RECORDERS.get(), launches))
    try:
        yield launches
    finally:
        _RECORDERS.reset(token)


def _check_shared(kernel: str, fn: Function, dynamic: int, arch_name: str) -> None:
    """A block asking for more shared memory than the architecture gives one block fails to
    launch on a GPU; here it stops before a byte is allocated, at the array that overflows."""
    total = fn.static_shared_bytes + max(0, dynamic)
    if total <= _shared_limit(arch_name):
        return
    from warpscope.occupancy.arch import get_arch

    arch = get_arch(arch_name)
    limit = _shared_limit(arch_name)
    static = [d for d in fn.shared if not d.dynamic]
    over = next((d for d in static if d.offset + int(np.prod(d.shape)) * d.dtype.itemsize > limit), None)
    line = over.line if over is not None else next((d.line for d in fn.shared if d.dynamic), 0)
    raise KernelFault(
        kernel,
        fn.file,
        line,
        f"{total:,} B of shared memory per block; {arch.name} gives a block at most "
        f"{limit:,} B (a GPU refuses the launch: too many resources requested)",
        (0, 0, 0),
        (0, 0, 0),
    )


@functools.lru_cache(maxsize=16)
def _shared_limit(arch_name: str) -> int:
    """The shared memory one block of ``arch_name`` may have (the opt-in limit where there is one)."""
    from warpscope.occupancy.arch import get_arch

    arch = get_arch(arch_name)
    return arch.shared_per_block_optin if arch.has_carveout else arch.shared_per_block


#: the block size ``forall`` launches with: what cuOccupancyMaxPotentialBlockSize gives a
#: kernel of up to 32 registers and no shared memory (full occupancy at the largest block)
FORALL_BLOCK = 1024
#: lanes of a launch from which freed memory is kept for reuse (``heap``)
BIG_LAUNCH = 1 << 16


class Kernel(JitFunction):
    """``@cuda.jit``: configure with ``kernel[grid, block]`` and call to launch."""

    def __init__(
        self,
        fn: Callable[..., Any],
        max_registers: int | None = None,
        signature: signatures.Signature | None = None,
    ) -> None:
        super().__init__(fn, signature)
        self.max_registers = max_registers
        # one compilation per argument types, as numba specialises (``a.dtype`` is a constant)
        self._compiled: dict[tuple[Any, ...], Function] = {}
        self.last_launch: Launch | None = None

    def __getitem__(self, config: Any) -> Callable[..., Launch]:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise users(ValueError(f"{self.name}[...] takes (grid, block[, stream[, dynamic shared bytes]])"))
        grid, block = _dim3(config[0], "grid"), _dim3(config[1], "block")
        dynamic = int(config[3]) if len(config) == 4 else 0
        return lambda *args: self.launch(grid, block, args, dynamic)

    def __call__(self, *args: Any) -> None:
        raise users(ValueError(f"launch {self.name} with a configuration: {self.name}[grid, block](...)"))

    def specialize(self, *args: Any) -> Kernel:
        """numba's kernel specialised to these arguments' types: the emulator specialises at
        each launch already."""
        return self

    @property
    def definitions(self) -> dict[tuple[Any, ...], Function]:
        """The compilations made so far, by argument types."""
        return dict(self._compiled)

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> Callable[..., Launch]:
        """numba's ``kernel.forall(n)``: enough blocks of ``tpb`` threads (numba's occupancy
        choice when 0) for ``ntasks`` threads."""
        block = int(tpb) or FORALL_BLOCK
        grid = max(1, -(-int(ntasks) // block))
        return lambda *args: self.launch((grid, 1, 1), (block, 1, 1), args, int(sharedmem))

    def compile(self, arg_types: tuple[Any, ...] = ()) -> Function:
        fn = self._compiled.get(arg_types)
        if fn is None:
            fn = self._compiled[arg_types] = compiler_cache.compiled(
                self.py_func,
                arg_types,
                lambda: Compiler(self.py_func, kernel=True, arg_types=arg_types).compile(),
            )
        return fn

    def launch(
        self,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        args: tuple[Any, ...],
        dynamic_shared: int = 0,
    ) -> Launch:
        with _CollectorPaused(self):
            try:
                return self._launch(grid, block, args, dynamic_shared)
            finally:
                arrays.forget_patterns()

    def _launch(
        self,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        args: tuple[Any, ...],
        dynamic_shared: int = 0,
    ) -> Launch:
        args = self.typed_arguments(args)
        fn = self.compile(tuple(_arg_type(a) for a in args))
        threads = block[0] * block[1] * block[2]
        if threads > 1024:
            raise EmulatorError(
                f"{fn.file}: kernel {self.name}: block of {threads} threads (the limit is 1024)"
            )
        if len(args) != len(fn.params):
            raise EmulatorError(
                f"{fn.file}: kernel {self.name} takes {len(fn.params)} arguments "
                f"({', '.join(fn.params)}), given {len(args)}"
            )
        settings = current_settings()
        _check_shared(self.name, fn, dynamic_shared, settings.arch)
        values = _arguments(fn.params, args)
        counters = Counters()
        n_blocks = grid[0] * grid[1] * grid[2]
        slots = -(-threads // 32) * 32
        if n_blocks * slots >= BIG_LAUNCH:
            heap.keep_freed_memory()  # its statements' megabyte arrays reused, not mapped afresh
        # a grid-wide barrier needs every block in the one chunk (a cooperative launch's blocks
        # are all resident at once on a GPU too)
        per_chunk = n_blocks if fn.grid_sync else max(1, settings.chunk_lanes // slots)
        arch = settings.arch
        trace = Trace(n_blocks, slots // 32, timing_for(arch).sms) if settings.timing else None
        # a race needs two threads: a one-thread launch has none to look for
        race = RaceCheck(arch, fn.file) if settings.racecheck and threads * n_blocks > 1 else None
        independent = independent_threads(arch)
        warnings: dict[int, BarrierWarning] = {}
        with np.errstate(all="ignore"):
            for first in range(0, n_blocks, per_chunk):
                chunk = chunk_for(grid, block, first, min(per_chunk, n_blocks - first))
                run = Run(
                    self.name,
                    fn.file,
                    chunk,
                    counters,
                    settings.budget,
                    dynamic_shared,
                    trace,
                    race,
                    independent,
                )
                frame = Frame(live=chunk.entry.threads, kernel=True, vars=dict(values))
                exec_block(fn.body, run, frame, chunk.entry)
                if race is not None:
                    race.end_chunk()
                for line, w in run.barrier_warnings.items():
                    if line in warnings:
                        warnings[line].blocks += w.blocks
                    else:
                        warnings[line] = w
        uses_barrier = any(s.barriers for s in counters.sites.values())
        record = Launch(
            kernel=self.name,
            file=fn.file,
            grid=grid,
            block=block,
            registers=self.max_registers or settings.registers,
            registers_stated=self.max_registers is not None,
            static_shared=fn.static_shared_bytes,
            dynamic_shared=dynamic_shared,
            barriers=1 if uses_barrier else 0,
            arch=arch,
            counters=counters,
            lines=fn.lines,
            hazards=race.hazards() if race is not None else [],
            racecheck=settings.racecheck,
            barrier_warnings=[warnings[k] for k in sorted(warnings)] + _stale_reads(race),
        )
        if trace is not None:
            record.timing = overlap.run(
                functools.partial(
                    _timed,
                    trace,
                    fn.table.insts,
                    arch,
                    threads,
                    record.registers,
                    record.static_shared,
                    dynamic_shared,
                    record.barriers,
                    settings.policy,
                ),
                trace.traced,
            )
        self.last_launch = record
        for r in _RECORDERS.get():
            r.append(record)
        return record


def _timed(trace: Trace, table: list[Any], *args: Any) -> TimingResult:
    """``simulate``'s result with the host time it took."""
    started = time.perf_counter()
    result = simulate(trace, table, *args)
    result.wall_s = time.perf_counter() - started
    return result


class _CollectorPaused:
    """Python's cycle collector off while a launch compiles and runs: it allocates many
    short-lived objects (closures, AST walks, small arrays) and few cycles, and the collector's
    passes over everything else alive took 10-25% of the corpus's time. Back on afterwards
    (it then collects whatever cycles the launch left).

    A launch that compiled leaves the compiled kernel's closures alive for good (about 1,500
    objects a small kernel): they are moved to the oldest generation at once (``freeze`` then
    ``unfreeze``: no pass over them), instead of being walked by a young collection after
    this launch and again by the next middle one (1-4 ms, falling on whichever small launch
    crosses its threshold). Cycles made meanwhile are collected by the next full collection;
    skipped where the program froze objects itself (``unfreeze`` would release them too).
    Moved objects escape the collector's own count (its full collection waits for objects that
    middle collections promote), so once ``PROMOTED_MAX`` have been moved a full collection
    runs instead: a program compiling kernels in a loop keeps its cyclic garbage bounded."""

    #: objects moved since the last full collection, and the most before one: about the heap
    #: of a process with numba imported (the corpus moves 140,000 in all; 220,000 timed)
    promoted = 0
    PROMOTED_MAX = 250_000

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.enabled = False
        self.compiled = 0

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        self.compiled = len(self.kernel._compiled)
        if self.enabled:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if not self.enabled:
            return
        if len(self.kernel._compiled) != self.compiled and gc.get_freeze_count() == 0:
            self.promote()
        gc.enable()

    @classmethod
    def promote(cls) -> None:
        """The young objects to the oldest generation without a pass, or a full collection
        once ``PROMOTED_MAX`` have gone there so."""
        cls.promoted += gc.get_count()[0]
        if cls.promoted > cls.PROMOTED_MAX:
            cls.promoted = 0
            gc.collect()
        else:
            gc.freeze()
            gc.unfreeze()


def _stale_reads(race: RaceCheck | None) -> list[BarrierWarning]:
    """Reads racecheck found the emulator served before a barrier in divergent code let the
    writer write (see ``RaceCheck._stale``), as warnings at the read's line."""
    if race is None:
        return []
    return [
        BarrierWarning(
            read_line,
            1,
            block,
            thread,
            f"{array} read after a barrier that its writer, thread ({', '.join(map(str, writer))}), "
            f"reaches at another syncthreads after writing it at line {write_line}: the emulator ran "
            f"that write later, so the {count:,} value(s) read here differ from a GPU's",
        )
        for (read_line, write_line), (count, block, thread, writer, array) in sorted(race.stale.items())
    ]


def jit(
    func_or_sig: Any = None, device: bool = False, max_registers: int | None = None, **options: Any
) -> Any:
    """``@cuda.jit``, ``@cuda.jit(device=True)``, ``@cuda.jit("void(float32[:])")``,
    ``@cuda.jit(int32(int32), device=True)``: a signature casts scalar arguments and the return
    value to its types and checks arrays', as numba's eager compilation does; compiler options
    (``fastmath``, ``lineinfo``, ``debug``...) are accepted and ignored; ``max_registers``
    becomes the registers per thread the occupancy calculator uses."""
    if callable(func_or_sig) and not signatures.is_numba_type(func_or_sig):
        return jit(None, device, max_registers, **options)(func_or_sig)
    try:
        sig = signatures.signature(func_or_sig)
    except signatures.SignatureError as e:
        raise EmulatorError(f"@cuda.jit: {e}") from None

    def wrap(fn: Callable[..., Any]) -> Any:
        if sig is not None and len(sig.args) != fn.__code__.co_argcount:
            raise EmulatorError(
                f"@cuda.jit signature of {fn.__name__} declares {len(sig.args)} arguments, "
                f"the function takes {fn.__code__.co_argcount}"
            )
        return DeviceFunction(fn, sig) if device else Kernel(fn, max_registers, sig)

    return wrap


def _arg_type(value: Any) -> Any:
    """What a compilation is specialised on: arrays' dtype and dimensions, scalars' dtype."""
    if isinstance(value, np.ndarray):
        return (value.dtype, value.ndim)
    return np.asarray(value).dtype if isinstance(value, np.generic) else type(value)


def _dim3(value: Any, what: str) -> tuple[int, int, int]:
    dims = tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),)
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise users(ValueError(f"{what} must be 1 to 3 positive sizes, got {value!r}"))
    return (dims + (1, 1))[:3]  # type: ignore[return-value]


def _arguments(params: list[str], args: tuple[Any, ...]) -> dict[str, Any]:
    """Kernel arguments as the compiled code sees them: arrays in global memory, scalars by value."""
    out: dict[str, Any] = {}
    bases: dict[int, int] = {}
    next_base = 1 << 40
    for name, value in zip(params, args):
        if isinstance(value, np.ndarray):
            key = id(value)
            if key not in bases:
                bases[key] = next_base
                next_base += -(-max(value.nbytes, 1) // arrays.ALIGN) * arrays.ALIGN + arrays.ALIGN
            out[name] = arrays.GlobalArray(value, name, bases[key])
        elif isinstance(value, (bool, int, float, complex, np.generic)):
            out[name] = scalar(value) if not isinstance(value, np.generic) else value
        else:
            raise EmulatorError(
                f"argument {name}: {type(value).__name__} is not supported (pass numpy arrays and numbers)"
            )
    return out
