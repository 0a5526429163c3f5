"""The names a kernel uses inside ``@cuda.jit`` code: placeholders the compiler knows by identity.

``cuda.threadIdx``, ``cuda.shfl_sync``, ``cuda.shared.array``... are never called as Python
inside a kernel: the compiler resolves each name when it compiles the kernel and the
intrinsic registered for that object emits the warp-wide operation. Called from host code
they say that they only exist inside kernels. ``warpscope.emulator.api`` puts these objects,
the host functions and ``jit`` together as the public ``cuda`` namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from warpscope.emulator.errors import users


def _kernel_only(name: str) -> Callable[..., Any]:
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise users(RuntimeError(f"cuda.{name} can only be used inside a @cuda.jit kernel"))

    stub.__name__ = stub.__qualname__ = name
    return stub


class Dim3Index:
    """``cuda.threadIdx`` and friends; ``.x/.y/.z`` are read per lane by the compiler."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"cuda.{self.name}"


class Namespace(SimpleNamespace):
    """A module-like group of names (``cuda``, ``cuda.atomic``...); a name numba has and the
    emulator does not is said to be so, in one line."""

    def __init__(self, path: str, **names: Any) -> None:
        super().__init__(**names)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise users(
            AttributeError(
                f"{object.__getattribute__(self, '_path')}.{name} is not emulated by warpscope "
                "(docs/emulator.md lists what is)"
            )
        )

    def __repr__(self) -> str:
        return f"<warpscope.emulator {object.__getattribute__(self, '_path')}>"


#: numba's type names numba-cuda's ``cuda`` also has (``cuda.float32``, ``cuda.types``)
NUMBA_TYPE_NAMES = frozenset(
    (
        "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128", "void", "intp", "uintp", "types",
    )
)  # fmt: skip


class CudaNamespace(Namespace):
    """The type of the public ``cuda`` object; numba's type names on it come from numba at
    their first use (``type_names``: they import numba, which the emulator needs not)."""

    def __init__(self, type_names: Callable[[], dict[str, Any]], **names: Any) -> None:
        super().__init__("cuda", **names)
        object.__setattr__(self, "_type_names", type_names)

    def __getattr__(self, name: str) -> Any:
        if name in NUMBA_TYPE_NAMES:
            names = object.__getattribute__(self, "_type_names")()
            for n, value in names.items():
                if n not in vars(self):
                    object.__setattr__(self, n, value)
            if name in names:
                return names[name]
        return super().__getattr__(name)


threadIdx = Dim3Index("threadIdx")
blockIdx = Dim3Index("blockIdx")
blockDim = Dim3Index("blockDim")
gridDim = Dim3Index("gridDim")
laneid = Dim3Index("laneid")
warpsize = 32


class GridGroup:
    """What ``cuda.cg.this_grid()`` gives a kernel: ``.sync()`` waits for every thread of the grid."""

    sync = staticmethod(_kernel_only("cg.this_grid().sync"))

    def __repr__(self) -> str:
        return "cuda.cg.this_grid()"


grid_group = GridGroup()
cg = Namespace("cuda.cg", this_grid=_kernel_only("cg.this_grid"))

shared = Namespace("cuda.shared", array=_kernel_only("shared.array"))
local = Namespace("cuda.local", array=_kernel_only("local.array"))
const = Namespace("cuda.const", array_like=_kernel_only("const.array_like"))
ATOMIC_OPS = (
    "add",
    "sub",
    "max",
    "min",
    "nanmax",
    "nanmin",
    "exch",
    "cas",
    "compare_and_swap",
    "and_",
    "or_",
    "xor",
    "inc",
    "dec",
)
atomic = Namespace("cuda.atomic", **{op: _kernel_only(f"atomic.{op}") for op in ATOMIC_OPS})
#: ``cuda.libdevice``'s emulated functions (intrinsics/libdevice.py): float ones as double
#: and, with an ``f``, float32
_LIBDEVICE_FLOAT = [
    "sqrt",
    "rsqrt",
    "cbrt",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "sinpi",
    "cospi",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "pow",
    "hypot",
    "erf",
    "erfc",
    "lgamma",
    "tgamma",
    "fabs",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "nearbyint",
    "round",
    "fmin",
    "fmax",
    "fmod",
    "fdim",
    "copysign",
    "fma",
]
_LIBDEVICE_INT = (
    "popc popcll clz clzll ffs ffsll brev brevll abs llabs min max umin umax llmin llmax ullmin ullmax"
)
LIBDEVICE = tuple(_LIBDEVICE_FLOAT + [n + "f" for n in _LIBDEVICE_FLOAT] + _LIBDEVICE_INT.split())
libdevice = Namespace("cuda.libdevice", **{n: _kernel_only(f"libdevice.{n}") for n in LIBDEVICE})

#: ``cuda.fp16``'s half-precision functions (intrinsics/half.py)
_FP16 = (
    "hadd hsub hmul hdiv hneg habs hfma hmax hmin heq hne hge hgt hle hlt "
    "hsin hcos hlog hlog10 hlog2 hexp hexp10 hexp2 hsqrt hrsqrt hfloor hceil hrcp hrint htrunc"
)
FP16 = tuple(_FP16.split())
fp16 = Namespace("cuda.fp16", **{n: _kernel_only(f"fp16.{n}") for n in FP16})

grid = _kernel_only("grid")
gridsize = _kernel_only("gridsize")
syncthreads = _kernel_only("syncthreads")
syncthreads_count = _kernel_only("syncthreads_count")
syncthreads_and = _kernel_only("syncthreads_and")
syncthreads_or = _kernel_only("syncthreads_or")
syncwarp = _kernel_only("syncwarp")
shfl_sync = _kernel_only("shfl_sync")
shfl_up_sync = _kernel_only("shfl_up_sync")
shfl_down_sync = _kernel_only("shfl_down_sync")
shfl_xor_sync = _kernel_only("shfl_xor_sync")
ballot_sync = _kernel_only("ballot_sync")
all_sync = _kernel_only("all_sync")
any_sync = _kernel_only("any_sync")
eq_sync = _kernel_only("eq_sync")
match_any_sync = _kernel_only("match_any_sync")
match_all_sync = _kernel_only("match_all_sync")
activemask = _kernel_only("activemask")
lanemask_lt = _kernel_only("lanemask_lt")
threadfence = _kernel_only("threadfence")
threadfence_block = _kernel_only("threadfence_block")
threadfence_system = _kernel_only("threadfence_system")
popc = _kernel_only("popc")
clz = _kernel_only("clz")
ffs = _kernel_only("ffs")
brev = _kernel_only("brev")
fma = _kernel_only("fma")
cbrt = _kernel_only("cbrt")
selp = _kernel_only("selp")

#: the public ``cuda`` namespace carries each of these
NAMES: dict[str, Any] = {
    name: globals()[name]
    for name in (
        "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize",
        "shared", "local", "const", "atomic", "libdevice", "fp16", "grid", "gridsize", "cg",
        "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
        "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
        "ballot_sync", "all_sync", "any_sync", "eq_sync", "match_any_sync", "match_all_sync",
        "activemask", "lanemask_lt",
        "threadfence", "threadfence_block", "threadfence_system",
        "popc", "clz", "ffs", "brev", "fma", "cbrt", "selp",
    )
}  # fmt: skip
