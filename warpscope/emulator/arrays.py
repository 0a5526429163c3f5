"""Arrays an emulated kernel reads and writes, and the memory instructions on them.

Every access is one warp-wide instruction: indices are per-lane arrays (or one value
for every lane), only active lanes touch memory, and each access is counted at its source
line the way Nsight Compute counts the SASS instruction (``memory``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from warpscope.emulator import memory
from warpscope.emulator.simt import WARP, Mask, SiteCounts

ALIGN = 256  # cudaMalloc returns 256-byte aligned pointers


class ArrayRef:
    """An array as kernel code sees it: ``kind`` global, shared, local or const."""

    kind = "global"

    def __init__(self, data: np.ndarray, name: str) -> None:
        self.data, self.name = data, name
        self.shape: tuple[int, ...] = data.shape if self.kind in ("global", "const") else data.shape[1:]
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.dtype = data.dtype
        self.itemsize = data.dtype.itemsize

    def lead(self, lanes: Any) -> tuple[Any, ...]:
        """Index prefix that picks this lane's copy (shared: its block's, local: its own)."""
        return ()

    def byte_offsets(self, index: tuple[Any, ...]) -> Any:
        """Byte offset of each lane's element from the array's start."""
        off: Any = 0
        stride = self.itemsize
        for i, dim in zip(reversed(index), reversed(self.shape)):
            off = off + i * stride
            stride *= dim
        return off


class GlobalArray(ArrayRef):
    kind = "global"

    def __init__(self, data: np.ndarray, name: str, base: int) -> None:
        super().__init__(data, name)
        self.base = base

    def byte_offsets(self, index: tuple[Any, ...]) -> Any:
        off: Any = 0
        for i, stride in zip(index, self.data.strides):
            off = off + i * stride
        return off


class ConstArray(ArrayRef):
    """A module-level numpy array: constant memory, read-only (as numba treats it)."""

    kind = "const"


class SharedArray(ArrayRef):
    """One copy per block of the chunk: ``data`` is (blocks, *shape)."""

    kind = "shared"

    def __init__(self, data: np.ndarray, name: str, offset: int, block_of_lane: np.ndarray) -> None:
        super().__init__(data, name)
        self.offset = offset
        self.block_of_lane = block_of_lane

    def lead(self, lanes: Any) -> tuple[Any, ...]:
        return (self.block_of_lane if lanes is None else self.block_of_lane[lanes],)


class LocalArray(ArrayRef):
    """One copy per lane: ``data`` is (lanes, *shape)."""

    kind = "local"

    def __init__(self, data: np.ndarray, name: str) -> None:
        super().__init__(data, name)
        self.lane_index = np.arange(data.shape[0])

    def lead(self, lanes: Any) -> tuple[Any, ...]:
        return (self.lane_index if lanes is None else self.lane_index[lanes],)


class RowView:
    """``a[i]`` of a multi-dimensional array: the leading indices, kept for ``a[i][j]``."""

    def __init__(self, array: ArrayRef, index: tuple[Any, ...]) -> None:
        self.array, self.index = array, index
        self.shape = array.shape[len(index) :]
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.dtype = array.dtype


class OutOfBounds(Exception):
    """An active lane indexed outside its array (the caller adds kernel, line, block, thread)."""

    def __init__(self, lane: int, message: str) -> None:
        super().__init__(message)
        self.lane = lane


def checked_index(array: ArrayRef, index: tuple[Any, ...], mask: Mask, write: bool) -> tuple[Any, ...]:
    """The index with negative values wrapped (as numba does) and every active lane checked."""
    if len(index) != array.ndim:
        raise TypeError(f"{array.name} has {array.ndim} dimensions, indexed with {len(index)}")
    out = []
    for axis, (i, dim) in enumerate(zip(index, array.shape)):
        if not np.issubdtype(np.asarray(i).dtype, np.integer):
            raise TypeError(f"index into {array.name} must be an integer, not {np.asarray(i).dtype}")
        if np.ndim(i):
            i = np.where(i < 0, i + dim, i)
            bad = mask.arr & ((i < 0) | (i >= dim))
            if bad.any():
                lane = int(np.argmax(bad))
                raise OutOfBounds(lane, _oob(array, index, axis, lane, write))
        else:
            i = i + dim if i < 0 else i
            if not 0 <= i < dim:
                raise OutOfBounds(mask.first_lane(), _oob(array, index, axis, mask.first_lane(), write))
        out.append(i)
    return tuple(out)


def _oob(array: ArrayRef, index: tuple[Any, ...], axis: int, lane: int, write: bool) -> str:
    """What compute-sanitizer's memcheck would say: the access, its address, the array's bounds."""
    at = tuple(int(i[lane]) if np.ndim(i) else int(i) for i in index)
    shape = ", ".join(map(str, array.shape))
    what = "write" if write else "read"
    where = f" (axis {axis})" if array.ndim > 1 else ""
    nbytes = array.size * array.itemsize
    start = getattr(array, "base", getattr(array, "offset", 0))
    address = start + int(sum(i * s for i, s in zip(at, _strides(array))))
    space = "" if array.kind == "global" else f" {array.kind}"
    return (
        f"out-of-bounds {array.kind} {what} of {array.name}[{', '.join(map(str, at))}]{where}: "
        f"{array.itemsize}-byte access at{space} address {address:#x}, outside {array.name} "
        f"[{start:#x}, {start + nbytes:#x}) of shape ({shape}), {nbytes} bytes"
    )


def _strides(array: ArrayRef) -> tuple[int, ...]:
    if isinstance(array, GlobalArray):
        return array.data.strides
    out, step = [], array.itemsize
    for dim in reversed(array.shape):
        out.append(step)
        step *= dim
    return tuple(reversed(out))


def _safe(index: tuple[Any, ...], mask: Mask) -> tuple[Any, ...]:
    """Inactive lanes may hold any index: point them at element 0."""
    return tuple(np.where(mask.arr, i, 0) if np.ndim(i) else i for i in index)


def load(array: ArrayRef, index: tuple[Any, ...], mask: Mask, site: SiteCounts) -> Any:
    """The value each active lane reads (inactive lanes: element 0's value)."""
    index = checked_index(array, index, mask, write=False)
    uniform = not any(np.ndim(i) for i in index)
    _count(array, index, mask, site, store=False, uniform=uniform)
    if uniform and array.kind in ("global", "const"):
        return array.data[index]
    safe = _safe(index, mask)
    if array.kind in ("shared", "local"):
        return array.data[array.lead(None) + tuple(np.broadcast_to(i, mask.arr.shape) for i in safe)]
    return array.data[safe]


def store(array: ArrayRef, index: tuple[Any, ...], value: Any, mask: Mask, site: SiteCounts) -> None:
    """Each active lane writes its value (several lanes on one element: the last lane wins)."""
    if array.kind == "const":
        raise TypeError(f"{array.name} is a module-level constant array: kernels cannot write it")
    index = checked_index(array, index, mask, write=True)
    uniform = not any(np.ndim(i) for i in index)
    _count(array, index, mask, site, store=True, uniform=uniform)
    lanes = np.flatnonzero(mask.arr)
    picked = tuple(i[lanes] if np.ndim(i) else i for i in index)
    if array.kind in ("shared", "local"):
        picked = array.lead(lanes) + tuple(np.broadcast_to(i, lanes.shape) for i in picked)
    array.data[picked] = value[lanes] if np.ndim(value) else value


def _count(
    array: ArrayRef, index: tuple[Any, ...], mask: Mask, site: SiteCounts, store: bool, uniform: bool
) -> None:
    kind = array.kind
    if kind == "const":
        return
    warps = mask.warps
    if kind == "local":
        if store:
            site.local_store_requests += warps
        else:
            site.local_load_requests += warps
        return
    if kind == "global":
        if uniform:
            sectors = warps  # one naturally aligned element per warp: one sector
            nbytes = warps * array.itemsize  # ... named once, however many lanes read it
        else:
            rows = _rows(array.byte_offsets(index) + array.base, mask)  # type: ignore[attr-defined]
            sectors = memory.global_sectors(rows, array.itemsize)
            nbytes = memory.unique_bytes(rows, array.itemsize)
        if store:
            site.global_store_requests += warps
            site.global_store_sectors += sectors
            site.global_store_bytes += nbytes
        else:
            site.global_load_requests += warps
            site.global_load_sectors += sectors
            site.global_load_bytes += nbytes
        return
    offsets = array.byte_offsets(index) + array.offset  # type: ignore[attr-defined]
    if uniform:
        # every lane on one element: one wavefront per 128 bytes, no conflict
        wavefronts = ideal = warps * max(1, -(-array.itemsize // memory.PHASE_BYTES))
    else:
        wavefronts, ideal = memory.shared_wavefronts(_rows(offsets, mask), array.itemsize)
    if store:
        site.shared_store_requests += warps
        site.shared_store_wavefronts += wavefronts
        site.shared_store_ideal_wavefronts += ideal
    else:
        site.shared_load_requests += warps
        site.shared_load_wavefronts += wavefronts
        site.shared_load_ideal_wavefronts += ideal


def _rows(addresses: Any, mask: Mask) -> np.ndarray:
    """(active warps, 32) addresses, -1 on inactive lanes."""
    full = np.where(mask.arr, addresses, -1).reshape(-1, WARP)
    return full[mask.warp_any]


def resolve(base: Any, index: tuple[Any, ...]) -> tuple[ArrayRef, tuple[Any, ...]]:
    """The array an indexed value refers to, and the full index (a row view adds its own)."""
    if isinstance(base, RowView):
        return base.array, base.index + index
    if isinstance(base, ArrayRef):
        return base, index
    raise TypeError(f"cannot index a {type(base).__name__}")


def attribute(obj: Any, attr: str) -> Any:
    """``.shape``, ``.size`` and ``.ndim`` of an array inside a kernel."""
    if not isinstance(obj, (ArrayRef, RowView)):
        raise TypeError(f"'{type(obj).__name__}' has no attribute '{attr}'")
    if attr == "shape":
        return tuple(np.int64(d) for d in obj.shape)
    if attr == "size":
        return np.int64(obj.size)
    if attr == "ndim":
        return np.int64(obj.ndim)
    raise TypeError(f"arrays have no attribute '{attr}' in kernels")
