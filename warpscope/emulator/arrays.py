"""Arrays an emulated kernel reads and writes, and the memory instructions on them.

Every access is one warp-wide instruction: indices are per-lane arrays (or one value
for every lane), only active lanes touch memory, and each access is counted at its source
line the way Nsight Compute counts the SASS instruction (``memory``).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from warpscope.emulator import affine, gather, memory
from warpscope.emulator.errors import KernelMistake, NotEmulated
from warpscope.emulator.simt import WARP, Counters, Mask, SiteCounts

ALIGN = 256  # cudaMalloc returns 256-byte aligned pointers


class ArrayRef:
    """An array as kernel code sees it: ``kind`` global, shared, local or const."""

    kind = "global"

    def __init__(self, data: np.ndarray, name: str) -> None:
        self.data, self.name = data, name
        self.shape: tuple[int, ...] = data.shape if self.kind in ("global", "const") else data.shape[1:]
        self.ndim = len(self.shape)
        self.size = math.prod(self.shape)
        self.dtype = data.dtype
        self.itemsize = data.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes between neighbours along each axis (a view's, not only C order's)."""
        return self.data.strides if self.kind in ("global", "const") else self.data.strides[1:]

    def lead(self, lanes: Any) -> tuple[Any, ...]:
        """Index prefix that picks this lane's copy (shared: its block's, local: its own)."""
        return ()

    _lead_flat: np.ndarray | None = None

    def lead_flat(self, lanes: Any) -> np.ndarray:
        """Where each lane's copy starts in ``data`` flattened (C order): ``lead`` times the
        elements of one copy, computed once per array."""
        if self._lead_flat is None:
            self._lead_flat = self.lead(None)[0] * int(np.prod(self.data.shape[1:]))
            self._lead_flat.flags.writeable = False
        return self._lead_flat if lanes is None else self._lead_flat[lanes]

    _aligned: bool | None = None

    @property
    def naturally_aligned(self) -> bool:
        """Every element starts at a multiple of its size (numpy lays arrays out so; a record
        field or a view at a byte offset may not)."""
        if self._aligned is None:
            start = getattr(self, "base", getattr(self, "offset", 0))
            self._aligned = start % self.itemsize == 0 and all(s % self.itemsize == 0 for s in self.strides)
        return self._aligned

    def byte_offsets(self, index: tuple[Any, ...]) -> Any:
        """Byte offset of each lane's element from the array's start (64-bit: an int32 index
        times a stride must not wrap)."""
        off: Any = None
        for i, stride in zip(index, self.strides):
            term = _int64(i) * stride
            off = term if off is None else off + term
        return 0 if off is None else off

    def derive(self, data: np.ndarray, name: str) -> ArrayRef:
        """A view of this array (a slice, a record field) as an array of the same memory."""
        return type(self)(data, name)

    def shifted(self, data: np.ndarray) -> int:
        """Bytes from this array's first element to ``data``'s, a view into it."""
        return int(data.ctypes.data - self.data.ctypes.data)


@dataclass(frozen=True)
class Allocation:
    """The device allocation a global array (or a view of one) lives in."""

    key: int
    base: int
    nbytes: int


class GlobalArray(ArrayRef):
    kind = "global"

    def __init__(self, data: np.ndarray, name: str, base: int, alloc: Allocation | None = None) -> None:
        super().__init__(data, name)
        self.base = base
        self.alloc = alloc or Allocation(id(data), base, data.nbytes)

    def derive(self, data: np.ndarray, name: str) -> ArrayRef:
        return GlobalArray(data, name, self.base + self.shifted(data), self.alloc)


_CAPTURED: dict[int, GlobalArray] = {}
_CAPTURED_BASE = 1 << 44  # past the launches' own arrays (kernel._arguments: from 2**40)


def captured(data: np.ndarray, name: str) -> GlobalArray:
    """A device array a kernel names as a global: global memory, by reference, one address
    range per array for as long as it lives."""
    global _CAPTURED_BASE
    ref = _CAPTURED.get(id(data))
    if ref is None or ref.data is not data:
        ref = _CAPTURED[id(data)] = GlobalArray(data, name, _CAPTURED_BASE)
        _CAPTURED_BASE += -(-max(data.nbytes, 1) // ALIGN) * ALIGN + ALIGN
    return ref


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

    def derive(self, data: np.ndarray, name: str) -> ArrayRef:
        return SharedArray(data, name, self.offset + self.shifted(data), self.block_of_lane)


class LocalArray(ArrayRef):
    """One copy per lane: ``data`` is (lanes, *shape), laid out lanes innermost (``allocate``):
    an element every lane names alike (``r[k]`` in a loop) is one contiguous column."""

    kind = "local"

    def __init__(self, data: np.ndarray, name: str) -> None:
        super().__init__(data, name)
        self.lane_index = np.arange(data.shape[0])

    @staticmethod
    def allocate(lanes: int, shape: tuple[int, ...], dtype: Any, name: str) -> LocalArray:
        """Zeroed copies of ``shape`` for ``lanes`` lanes, element by element."""
        return LocalArray(np.moveaxis(np.zeros((*shape, lanes), dtype=dtype), -1, 0), name)

    @property
    def strides(self) -> tuple[int, ...]:
        """One lane's copy as the kernel sees it, in C order: the data's strides over the lanes
        (the lanes of an element lie side by side)."""
        lanes = max(1, self.data.shape[0])
        return tuple(s // lanes for s in self.data.strides[1:])

    def lead(self, lanes: Any) -> tuple[Any, ...]:
        return (self.lane_index if lanes is None else self.lane_index[lanes],)


class RecordRef:
    """``recs[i]`` of a structured array: the record's place; a field is read when named."""

    def __init__(self, array: ArrayRef, index: tuple[Any, ...]) -> None:
        self.array, self.index = array, index

    def field(self, name: str) -> tuple[ArrayRef, tuple[Any, ...]]:
        fields: dict[str, Any] = dict(self.array.dtype.fields or {})
        if name not in fields:
            raise KernelMistake(
                f"a record of {self.array.name} has no field '{name}' (it has {', '.join(fields)})"
            )
        return field_view(self.array, name), self.index


def field_view(array: ArrayRef, name: str) -> ArrayRef:
    """One field of a structured array, as an array strided by the record's size (made once
    per array and field: a record's fields are read on every access)."""
    views = array.__dict__.setdefault("_field_views", {})
    view = views.get(name)
    if view is None:
        view = views[name] = array.derive(array.data[name], f"{array.name}.{name}")
    return view


def lane_view(array: ArrayRef, key: tuple[Any, ...]) -> RowView:
    """``array[key]`` where an index or a slice bound differs between threads: a ``RowView``
    (each lane's own view; the sliced lengths must agree, as one type is named for all)."""
    if len(key) > array.ndim:
        raise KernelMistake(f"{array.name} has {array.ndim} dimensions, sliced with {len(key)}")
    index: list[Any] = []
    for k, dim in zip(key, array.shape):
        if not isinstance(k, slice):
            index.append(k)
            continue
        step = 1 if k.step is None else int(k.step)
        if np.ndim(step) or step == 0:
            raise NotEmulated("a slice's step must be a non-zero number known to every thread")
        lo, hi = _bound(k.start, dim, step, True), _bound(k.stop, dim, step, False)
        length = np.maximum((hi - lo + step - (1 if step > 0 else -1)) // step, 0)
        if np.size(length) and np.min(length) != np.max(length):  # not np.unique: it imports numpy.ma
            raise NotEmulated("a slice whose length differs between threads is not supported")
        index.append(LaneSlice(lo, step, int(np.max(length)) if np.size(length) else 0))
    return RowView(array, tuple(index))


def _bound(value: Any, dim: int, step: int, start: bool) -> Any:
    """A slice bound as Python resolves it (None, negative from the end, clipped), per lane."""
    if value is None:
        return np.int64(0 if step > 0 else dim - 1) if start else np.int64(dim if step > 0 else -1)
    v = _int64(value)
    v = np.where(v < 0, v + dim, v)
    return np.clip(v, 0, dim) if step > 0 else np.clip(v, -1, dim - 1)


def view(base: Any, key: tuple[Any, ...]) -> ArrayRef | RowView:
    """``base[key]`` where the key holds slices (the same on every lane): a view of the array."""
    if isinstance(base, RowView):
        if any(isinstance(k, LaneSlice) for k in base.index):
            raise NotEmulated("slicing a slice picked per thread is not supported (slice the array once)")
        base, key = base.array, base.index + key
        if any(np.ndim(i) for i in key if not isinstance(i, slice)):
            return lane_view(base, key)
    if not isinstance(base, ArrayRef):
        raise NotEmulated(f"cannot slice a {type(base).__name__}")
    if any(np.ndim(k) for k in key if not isinstance(k, slice)) or any(
        np.ndim(b) for k in key if isinstance(k, slice) for b in (k.start, k.stop)
    ):
        return lane_view(base, key)
    if len(key) > base.ndim:
        raise KernelMistake(f"{base.name} has {base.ndim} dimensions, sliced with {len(key)}")
    lead = (slice(None),) if base.kind in ("shared", "local") else ()
    data = base.data[lead + tuple(int(k) if not isinstance(k, slice) else k for k in key)]
    return base.derive(data, f"{base.name}[...]")


@dataclass(frozen=True)
class LaneSlice:
    """One sliced axis of a view that differs per thread (``x[i:i + 3]``): where each lane's
    view starts on that axis (a value per lane or one for all), the step and the length."""

    start: Any
    step: int
    length: int


class RowView:
    """A view picked per thread: ``a[i]`` of a multi-dimensional array (the leading indices,
    kept for ``a[i][j]``), or ``a[i, 1:3]`` / ``x[i:i + 3]``, whose covered axes are each an
    index or a ``LaneSlice``."""

    def __init__(self, array: ArrayRef, index: tuple[Any, ...]) -> None:
        self.array, self.index = array, index
        self.shape = tuple(k.length for k in index if isinstance(k, LaneSlice)) + array.shape[len(index) :]
        self.ndim = len(self.shape)
        self.size = math.prod(self.shape)
        self.dtype = array.dtype

    @property
    def strides(self) -> tuple[int, ...]:
        strides = self.array.strides
        return tuple(
            strides[a] * k.step for a, k in enumerate(self.index) if isinstance(k, LaneSlice)
        ) + tuple(strides[len(self.index) :])

    def full(self, idx: tuple[Any, ...]) -> tuple[Any, ...]:
        """The array's index for ``view[idx]`` (a sliced axis maps ``j`` to start + j * step,
        a negative ``j`` counted from the view's end as numba does)."""
        if not any(isinstance(k, LaneSlice) for k in self.index):
            return self.index + idx
        out: list[Any] = []
        rest = list(idx)
        for k in self.index:
            if not isinstance(k, LaneSlice):
                out.append(k)
            elif rest:
                j = _int64(rest.pop(0))
                j = np.where(j < 0, j + k.length, j) if np.ndim(j) else (j + k.length if j < 0 else j)
                out.append(_int64(k.start) + j * k.step)
            else:
                out.append(k)  # still sliced: the result is a view again
        return tuple(out) + tuple(rest)


class OutOfBounds(Exception):
    """An active lane indexed outside its array (the caller adds kernel, line, block, thread);
    ``faulted``: every lane of the access that was out of bounds."""

    def __init__(self, lane: int, message: str, faulted: np.ndarray | None = None) -> None:
        super().__init__(message)
        self.lane = lane
        self.faulted = faulted


#: bytes past the end of a global allocation that a read may reach without faulting: numba-cuda's
#: device allocations are 512-byte granules laid end to end (measured on the H100: arrays of
#: 8 to 500 bytes 512 apart, of 32,768 bytes 32,768 apart, ``tools/gpu/issue39_more/alloc.py``),
#: so such a read lands in the allocation's padding or in the next allocation; the GPU carries
#: on and memcheck, where it lands in another allocation, reports nothing (corpus file c75)
PAST_END = 512
#: hears (line, lanes, what) of a load whose lanes read just past their array's end
PastEndHeard = Callable[[int, np.ndarray, str], None]


class ReadPastEnd(Exception):
    """Every faulting lane of a read lies less than ``PAST_END`` bytes past its allocation."""

    def __init__(self, lanes: np.ndarray, what: str, index: tuple[Any, ...]) -> None:
        super().__init__(what)
        self.lanes, self.what, self.index = lanes, what, index


def checked_index(
    array: ArrayRef, index: tuple[Any, ...], mask: Mask, write: bool, past_end: bool = False
) -> tuple[Any, ...]:
    """The index with negative values wrapped (as numba does) and every active lane checked.
    ``past_end``: a read whose every faulting lane lies less than ``PAST_END`` bytes past the
    end of its global allocation raises ``ReadPastEnd`` (with those lanes reading element 0)
    instead of ``OutOfBounds``."""
    if len(index) != array.ndim:
        raise KernelMistake(f"{array.name} has {array.ndim} dimensions, indexed with {len(index)}")
    if all(type(i) is np.int64 and 0 <= i < dim for i, dim in zip(index, array.shape)):
        return index  # one element for every lane, inside: nothing to wrap or check (a serial loop's)
    out = []
    bad_axes: list[tuple[int, Any]] = []  # (axis, its out-of-bounds lanes)
    for axis, (i, dim) in enumerate(zip(index, array.shape)):
        kind = i.dtype.kind if isinstance(i, (np.ndarray, np.generic)) else np.asarray(i).dtype.kind
        if kind not in "iu":
            raise KernelMistake(f"index into {array.name} must be an integer, not {np.asarray(i).dtype}")
        inside = False  # every lane (active or not) in bounds: nothing to wrap or check
        if _ndim(i) and i.size and mask.sparse and i.shape == mask.arr.shape:
            active = i[mask.lanes]  # few lanes: only theirs checked (the others' are never read)
            if not active.size or (active.min() >= 0 and active.max() < dim):
                out.append(_int64(i))
                continue
        if _ndim(i) and i.size:
            i, low, high = _index_range(i)  # int64: a uint8 index plus the dimension must not wrap
            inside = low >= 0 and high < dim
        else:
            i = _int64(i)
        if inside:
            pass
        elif _ndim(i) and i.shape == mask.arr.shape and _active_inside(i, mask, dim):
            pass  # inactive lanes out of bounds (past a bounds check): never read
        elif _ndim(i):
            i = np.where(i < 0, i + dim, i)
            bad = mask.arr & ((i < 0) | (i >= dim))
            if bad.any():
                bad_axes.append((axis, bad))
        else:
            i = i + dim if i < 0 else i
            if not 0 <= i < dim:
                bad_axes.append((axis, mask.arr))
        out.append(i)
    if bad_axes:
        faulted = np.logical_or.reduce([b for _, b in bad_axes])
        out, faulted, bad_axes = _within_memory(array, out, faulted, bad_axes)
    if bad_axes and past_end and not write:
        near = _just_past_end(array, out, faulted)
        if near is not None:
            what = _oob(array, index, bad_axes[0][0], int(np.argmax(near)), False)
            raise ReadPastEnd(
                near, what, tuple(np.where(near, 0, np.broadcast_to(i, faulted.shape)) for i in out)
            )
    if bad_axes:  # the first faulting thread, at the first axis it is out of bounds on
        lane = int(np.argmax(faulted))
        axis = next(a for a, b in bad_axes if b[lane])
        raise OutOfBounds(lane, _oob(array, index, axis, lane, write), faulted)
    return tuple(out)


def _active_inside(i: np.ndarray, mask: Mask, dim: int) -> bool:
    """Every active lane's index within ``[0, dim)`` (nothing to wrap or fault)."""
    active = i[mask.lanes] if mask.sparse else i[mask.arr]
    return not active.size or (int(active.min()) >= 0 and int(active.max()) < dim)


#: per launch, the last index arrays seen (by identity, held weakly): the array, it as int64
#: where it was not (else None), its smallest and largest value (a loop indexes with the same
#: thread index every iteration)
_RANGES: dict[int, tuple[Any, np.ndarray | None, int, int]] = {}
#: per launch, the last sums of index arrays times weights (``weighted``), by the arrays'
#: identity (held weakly: a sum is used only while its arrays live)
_SUMS: dict[tuple[Any, ...], tuple[list[Any], np.ndarray]] = {}
#: per launch, what shared accesses counted, by site and the remembered offsets they moved
_SHIFTED: dict[tuple[Any, ...], tuple[Any, np.ndarray, np.ndarray, tuple[int, int]]] = {}
_KEPT_SUMS = 12  # sums, the least recently used dropped first (a tiled loop: inner and outer accesses)
_KEPT = 4  # entries of each, at most (each may hold a chunk-sized array: memory kept live
# slows every other allocation of a launch)


def _index_range(i: np.ndarray) -> tuple[np.ndarray, int, int]:
    """``i`` as int64, its smallest and largest value; remembered for large arrays."""
    hit = _RANGES.get(id(i))
    if hit is not None and hit[0]() is i:
        return i if hit[1] is None else hit[1], hit[2], hit[3]
    moved = affine.offset_of(i)  # a remembered array plus a scalar (int64): its range, moved
    if moved is not None:
        _, low, high = _index_range(moved[0])
        return i, low + moved[1], high + moved[1]
    wide = _int64(i)
    if wide.size <= _FEW_LANES:  # a warp or two: Python's min and max cost less than numpy's
        values = wide.tolist()
        low, high = min(values), max(values)
    else:
        low, high = int(wide.min()), int(wide.max())
    if i.size >= PATTERN_LANES:
        _keep(_RANGES, id(i), (weakref.ref(i), None if wide is i else wide, low, high))
    return wide, low, high


#: lanes up to which an index's range is found in Python (measured: 1.0 µs against numpy's
#: 2.2 µs on one warp's 32; the same on 64, numpy's faster beyond)
_FEW_LANES = 32


def _keep(memo: dict[Any, Any], key: Any, value: Any, kept: int = _KEPT) -> None:
    memo[key] = value
    if len(memo) > kept:
        del memo[next(iter(memo))]  # the oldest


def weighted(index: tuple[Any, ...], weights: tuple[int, ...], start: int) -> Any:
    """``start + sum(index[k] * weights[k])`` in int64 (exact in any order); see
    ``_weighted_parts``. The result may be a remembered array, read-only."""
    part, scalar, _ = _weighted_parts(index, weights, start)
    if part is None:
        return np.int64(scalar)
    return part if scalar == 0 else part + scalar


def _weighted_parts(index: tuple[Any, ...], weights: tuple[int, ...], start: int) -> tuple[Any, Any, bool]:
    """(the per-lane arrays' terms summed, or None; ``start`` plus the scalar terms; whether
    the sum is remembered): the sum is kept for large arrays, so where the same arrays come
    again (``tile[ty, i]`` in a loop over ``i``) only the scalars are added."""
    arrays = []
    scalar: Any = start
    for i, w in zip(index, weights):
        if not _ndim(i):
            scalar = scalar + _int64(i) * w
            continue
        moved = affine.offset_of(i)  # ``row * N + k``: the sum is ``row * N``'s, plus k
        if moved is not None:
            i = moved[0]
            scalar = scalar + np.int64(moved[1]) * w
        arrays.append((i, w))
    if not arrays:
        return None, scalar, False
    if len(arrays) == 1 and arrays[0][0].size < PATTERN_LANES:  # never remembered: none to find
        i, w = arrays[0]
        term = _int64(i) * w if w != 1 else _int64(i)
        if term is i and not term.flags.writeable:
            return term, scalar, True
        return term + 0 if term is i else term, scalar, False
    key = tuple((id(i), w) for i, w in arrays)
    hit = _SUMS.pop(key, None)
    if hit is not None and all(a() is i for a, (i, _) in zip(hit[0], arrays)):
        _SUMS[key] = hit  # the newest again: a loop's few sums outlive the accesses around it
        return hit[1], scalar, True
    part: Any = None
    for i, w in arrays:
        term = _int64(i) * w if w != 1 else _int64(i)
        part = term if part is None else part + term
    if part is arrays[0][0] and not part.flags.writeable:  # an array no one writes: itself
        return part, scalar, True
    if part is arrays[0][0] or part.size < PATTERN_LANES:  # the index itself, or small
        return part + 0, scalar, False
    part.flags.writeable = False
    _keep(_SUMS, key, ([weakref.ref(i) for i, _ in arrays], part), _KEPT_SUMS)
    return part, scalar, True


def _just_past_end(array: ArrayRef, index: list[Any], faulted: np.ndarray) -> np.ndarray | None:
    """The faulting lanes, where every one reads less than ``PAST_END`` bytes past the end of
    its global allocation (else None: the access faults)."""
    if not isinstance(array, GlobalArray):
        return None
    lanes = np.broadcast_to(faulted, faulted.shape)
    offset = array.base - array.alloc.base + np.broadcast_to(array.byte_offsets(tuple(index)), lanes.shape)
    past = offset + array.itemsize - array.alloc.nbytes
    near = (offset >= 0) & (past > 0) & (past <= PAST_END)
    if not (near | ~lanes).all():
        return None
    return lanes & near


def _within_memory(
    array: ArrayRef, index: list[Any], faulted: np.ndarray, bad_axes: list[tuple[int, Any]]
) -> tuple[list[Any], np.ndarray, list[tuple[int, Any]]]:
    """numba does not check bounds: an index past one axis of a C-ordered array whose element
    still lies inside the array (``A[j, m]`` is ``A[j + 1, 0]``) is read and written there, on
    the GPU as under compute-sanitizer, which sees no fault. Such lanes get that element's
    index; only lanes whose element lies outside the array still fault."""
    if array.ndim < 2 or not array.size:
        return index, faulted, bad_axes
    c_strides = tuple(int(np.prod(array.shape[k + 1 :])) for k in range(array.ndim))
    if tuple(s // array.itemsize for s in array.strides) != c_strides or any(
        s % array.itemsize for s in array.strides
    ):
        return index, faulted, bad_axes
    flat: Any = 0
    for i, c in zip(index, c_strides):
        flat = flat + i * c
    inside = faulted & (flat >= 0) & (flat < array.size)
    if not inside.any():
        return index, faulted, bad_axes
    flat = np.broadcast_to(flat, faulted.shape)
    fixed = np.unravel_index(np.where(inside, flat, 0), array.shape)
    index = [
        np.where(inside, f, np.broadcast_to(i, faulted.shape)).astype(np.int64) for i, f in zip(index, fixed)
    ]
    left = faulted & ~inside
    return index, left, [(a, b & left) for a, b in bad_axes if (b & left).any()]


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
    return array.strides


def _ndim(value: Any) -> int:
    """``np.ndim`` of an index or an address part (an array, a numpy or Python number): the
    attribute, without numpy's dispatch (0.03 µs a call, against 0.2 on an array and 0.9 on a
    Python number; an access makes ten or more)."""
    return getattr(value, "ndim", 0)


def _int64(i: Any) -> Any:
    """An index as int64 (numba indexes with intp whatever the index's own width)."""
    dtype = getattr(i, "dtype", None)
    if dtype is None:
        return np.int64(i)
    return i if dtype == np.int64 else i.astype(np.int64)


#: the kinds of memory racecheck watches (a thread's local array is its own; constants are
#: never written): accesses to others are not handed to it
RACED = ("shared", "global")


def _safe(index: tuple[Any, ...], mask: Mask) -> tuple[Any, ...]:
    """Inactive lanes may hold any index: point them at element 0."""
    if mask.threads == mask.arr.size:
        return index  # none inactive
    return tuple(np.where(mask.arr, i, 0) if _ndim(i) else i for i in index)


def load(
    array: ArrayRef,
    index: tuple[Any, ...],
    mask: Mask,
    site: SiteCounts,
    race: Any = None,
    line: int = 0,
    past_end: PastEndHeard | None = None,
) -> tuple[Any, tuple[Any, ...]]:
    """The value each active lane reads (inactive lanes: element 0's value, or 0 under a sparse
    mask), and the index it read at (negative indices wrapped: what the timing model is told);
    ``race``, a ``race.RaceCheck``, hears of the access; ``past_end`` of lanes that read just
    past their array's end (``PAST_END``: the GPU reads what lies there; they get 0)."""
    try:
        index = checked_index(array, index, mask, write=False, past_end=past_end is not None)
    except ReadPastEnd as e:
        assert past_end is not None
        past_end(line, e.lanes, e.what)
        value = _load(array, e.index, Mask(mask.arr & ~e.lanes), site, race, line)
        value = np.where(e.lanes, np.zeros((), array.dtype), np.broadcast_to(value, e.lanes.shape))
        return value, e.index
    return _load(array, index, mask, site, race, line), index


def load_one(
    array: GlobalArray, index: tuple[Any, ...], mask: Mask, counters: Counters, race: Any, line: int
) -> Any:
    """``load`` of one element of a global array that every active lane names (a thread's
    ``x[i]`` in a serial loop, every thread's ``w[0]``): counted as ``_count`` counts it (one
    sector per warp) and heard by ``race`` as ``load`` has it hear it, without ``load``'s steps
    for lanes that differ. None where ``load`` must decide: a record, an index to check, wrap
    or fault on."""
    if array.dtype.fields is not None or not _one_element_inside(array, index):
        return None
    warps = mask.warps
    _count_global(counters.site(line), warps, warps, warps * array.itemsize, store=False)  # a sector a warp
    if race is not None and array.kind in RACED:
        race.access(array, index, None, mask, line, False)
    return array.data[index]


def _one_element_inside(array: ArrayRef, index: tuple[Any, ...]) -> bool:
    """Whether ``index`` is one int64 per axis, each inside the array (``load_one``,
    ``store_one``): no lane's own, nothing to wrap or fault on."""
    shape = array.shape
    return len(index) == len(shape) and all(
        type(i) is np.int64 and 0 <= i < dim for i, dim in zip(index, shape)
    )


def _count_global(site: SiteCounts, warps: int, sectors: int, nbytes: int, store: bool) -> None:
    """A global load's or store's requests (one per warp), sectors and bytes."""
    if store:
        site.global_store_requests += warps
        site.global_store_sectors += sectors
        site.global_store_bytes += nbytes
    else:
        site.global_load_requests += warps
        site.global_load_sectors += sectors
        site.global_load_bytes += nbytes


def _load(array: ArrayRef, index: tuple[Any, ...], mask: Mask, site: SiteCounts, race: Any, line: int) -> Any:
    uniform = not any(_ndim(i) for i in index)
    addresses, extra = _count(array, index, mask, site, store=False, uniform=uniform)
    if race is not None and array.kind in RACED:
        race.access(array, index, addresses, mask, line, False, extra=extra)
    if uniform and array.kind in ("global", "const"):
        return array.data[index]
    if uniform and array.kind == "local":  # each lane its own copy's one element: a column
        return array.data[(slice(None), *index)].copy()  # (a copy: later stores must not change it)
    if mask.sparse and mask.arr.ndim == 1:
        few = _load_lanes(array, index, mask)
        if few is not None:
            return few
    safe = _safe(index, mask)
    lead = array.lead_flat(None) if array.kind in ("shared", "local") else None
    parts = _flat_parts(array.data, safe, lead)
    if parts is None:
        if lead is None:
            return array.data[safe]
        return array.data[array.lead(None) + tuple(np.broadcast_to(i, mask.arr.shape) for i in safe)]
    return _gather(array.data.reshape(-1), *parts, mask)


def load_all(
    base: ArrayRef | RowView, mask: Mask, site: SiteCounts, race: Any = None, line: int = 0
) -> tuple[GlobalArray, np.ndarray, list[Any]] | None:
    """Every element of ``base`` (a global array, or a row of one each lane picked) read by
    each lane, as ``load`` reads them one after the other (a thread's ``row.sum()``): each
    counted and heard by ``race`` in turn, but gathered, bounds-checked and counted at once.
    Gives the array, the values as (lanes, elements), and per element its byte addresses
    (per lane, or one number where every lane reads the same); None where reading them one by
    one must decide (a record, shared or local memory, an index to wrap, or one that faults
    or reads past the end: ``load`` says so at the element it happens at)."""
    array = base.array if isinstance(base, RowView) else base
    if not isinstance(array, GlobalArray) or array.dtype.fields is not None or not base.size:
        return None
    lanes = mask.arr.shape
    axes = _element_indices(base)
    # each axis's index moves one way along the elements: the first and last bound them all
    if axes is None or not all(_plainly_inside(array, _element(axes, e), mask) for e in (0, -1)):
        return None
    every = mask.threads == mask.arr.size
    uniform = all(a.shape[1] == 1 for a in axes)
    safe = tuple(a if every or a.shape[1] == 1 else np.where(mask.arr, a, 0) for a in axes)
    n = base.size
    shape = (n, lanes[0])
    values = np.broadcast_to(array.data[safe], shape).T
    at = np.broadcast_to(array.base + sum(a * s for a, s in zip(axes, array.strides)), shape)
    warps = mask.warps
    site.global_load_requests += warps * n
    addresses: list[Any]
    if uniform:  # every lane on one element (``_count``'s uniform access), each element
        site.global_load_sectors += warps * n
        site.global_load_bytes += warps * array.itemsize * n
        addresses = [np.int64(a) for a in at[:, 0].tolist()]
    else:
        rows = np.where(mask.arr, at, -1).reshape(n, -1, WARP)
        if warps != rows.shape[1]:
            rows = rows[:, mask.warp_any]
        sectors, nbytes = memory.global_access(
            rows.reshape(-1, WARP), array.itemsize, array.naturally_aligned
        )
        site.global_load_sectors += sectors
        site.global_load_bytes += nbytes
        addresses = list(at)
    _LAST_PARTS[0] = _LAST_REPEAT[0] = None  # nothing summed for the timing model to reuse
    if race is not None:
        for where in addresses:  # (racecheck needs no index where it has the addresses)
            race.access(array, (), where, mask, line, False)
    return array, values, addresses


def _element_indices(base: ArrayRef | RowView) -> list[np.ndarray] | None:
    """Per axis of ``base``'s array, the index each element of ``base`` has there, in the order
    ``np.ndindex`` walks ``base``: (elements, 1) where every lane's is the same, (1, lanes)
    where it is a row's index, the same for every element, else (elements, lanes). None where
    a row's index is not an integer."""
    shape = base.shape
    steps = np.indices(shape, dtype=np.int64).reshape(len(shape), -1) if shape else np.zeros((0, 1), np.int64)
    if isinstance(base, ArrayRef):
        return [j.reshape(-1, 1) for j in steps]
    axes: list[np.ndarray] = []
    v = 0  # the view's axis the next sliced axis of the array is
    for k in base.index:
        if isinstance(k, LaneSlice):
            start = _int64(k.start)
            j = steps[v] * k.step
            v += 1
            axes.append(j.reshape(-1, 1) + (start.reshape(1, -1) if start.ndim else start))
        elif not _integer(k):
            return None  # (``load`` says what is wrong with it)
        elif _ndim(k):
            axes.append(_int64(k).reshape(1, -1))
        else:
            axes.append(np.full((steps.shape[1], 1), int(k), np.int64))
    axes += [j.reshape(-1, 1) for j in steps[v:]]
    return axes


def _element(axes: list[np.ndarray], e: int) -> tuple[Any, ...]:
    """Element ``e``'s index from ``_element_indices``: per axis a number, or one per lane."""
    out: list[Any] = []
    for a in axes:
        row = a[e if a.shape[0] > 1 else 0]
        out.append(np.int64(row[0]) if row.size == 1 and a.shape[1] == 1 else row)
    return tuple(out)


def whole_uniform(base: Any) -> tuple[GlobalArray, tuple[np.ndarray, ...]] | None:
    """The global array and, per axis, each element's index (in the order ``np.ndindex``
    walks ``base``), where ``base`` (an array, or a row of one) names the same elements on
    every lane and every one lies inside: what ``load_whole`` reads and ``store_whole`` writes
    at once. None otherwise (a lane's own row, an index to wrap, one out of bounds, a record)."""
    if not isinstance(base, (ArrayRef, RowView)):
        return None
    array = base.array if isinstance(base, RowView) else base
    if not isinstance(array, GlobalArray) or array.kind != "global" or array.dtype.fields is not None:
        return None
    if not base.size:
        return None
    n = base.size
    positions = (
        (np.arange(n, dtype=np.int64),)
        if len(base.shape) == 1
        else tuple(np.asarray(p, np.int64) for p in np.unravel_index(np.arange(n), base.shape))
    )
    if isinstance(base, ArrayRef):
        return array, positions  # (inside: every position of the array's own shape)
    if any(_ndim(k.start if isinstance(k, LaneSlice) else k) for k in base.index):
        return None
    full = base.full(positions)
    if len(full) != array.ndim:
        return None
    index = tuple(np.broadcast_to(_int64(i), (n,)) for i in full)
    for i, dim in zip(index, array.shape):
        if i.dtype.kind not in "iu" or int(i.min()) < 0 or int(i.max()) >= dim:
            return None
    return array, index


def load_whole(array: GlobalArray, index: tuple[np.ndarray, ...], mask: Mask, site: SiteCounts) -> np.ndarray:
    """The elements at ``index`` (``whole_uniform``'s) read by every active lane, as ``load``
    reads them one after the other, counted alike, at once (a copy: written later, they stay).
    Not for racecheck: it hears of each access in turn (``load``)."""
    n, warps = index[0].size, mask.warps
    site.global_load_requests += warps * n
    site.global_load_sectors += warps * n  # one element per warp: one sector (``_count``)
    site.global_load_bytes += warps * array.itemsize * n
    _LAST_PARTS[0] = _LAST_REPEAT[0] = None  # nothing summed for the timing model to reuse
    return array.data[index]


def store_whole(
    array: GlobalArray, index: tuple[np.ndarray, ...], values: Any, mask: Mask, site: SiteCounts
) -> None:
    """``values`` (one per element, or one for all) written at ``index`` by every active lane,
    as ``store`` writes them one after the other, counted alike, at once. Not for racecheck
    (``load_whole``)."""
    with np.errstate(all="ignore"):  # a C cast: integers wrap, floats round
        array.data[index] = np.asarray(values).astype(array.dtype, copy=False)
    n, warps = index[0].size, mask.warps
    site.global_store_requests += warps * n
    site.global_store_sectors += warps * n
    site.global_store_bytes += warps * array.itemsize * n
    _LAST_PARTS[0] = _LAST_REPEAT[0] = None


def addresses_of(array: GlobalArray, index: tuple[np.ndarray, ...]) -> list[np.int64]:
    """The byte address of each element at ``index``: what the timing model is told."""
    at = array.base + sum(i * s for i, s in zip(index, array.strides))
    return [np.int64(a) for a in np.asarray(at).tolist()]


def _integer(i: Any) -> bool:
    """Whether an index (a number, or one per lane) is an integer (not a bool)."""
    dtype = getattr(i, "dtype", None)
    return dtype.kind in "iu" if dtype is not None else isinstance(i, int) and not isinstance(i, bool)


def _plainly_inside(array: ArrayRef, index: tuple[Any, ...], mask: Mask) -> bool:
    """Whether every active lane's ``index`` lies inside ``array`` as it is: integers, none
    negative (to wrap) nor past an axis (``checked_index`` has nothing to do)."""
    if len(index) != array.ndim:
        return False
    for i, dim in zip(index, array.shape):
        if not _integer(i):
            return False
        if not _ndim(i):
            if not 0 <= int(i) < dim:
                return False
            continue
        if i.shape != mask.arr.shape:
            return False
        _, low, high = _index_range(i)
        if not (low >= 0 and high < dim) and not _active_inside(i, mask, dim):
            return False
    return True


def _load_lanes(array: ArrayRef, index: tuple[Any, ...], mask: Mask) -> np.ndarray | None:
    """A load under a sparse mask, computed on its active lanes alone (the others read 0);
    None where the data is not C-ordered."""
    lanes = mask.lanes
    picked = tuple(i[lanes] if _ndim(i) else i for i in index)
    lead = array.lead_flat(lanes) if array.kind in ("shared", "local") else None
    flat = _flat(array.data, picked, lead)
    if flat is None:
        return None
    out = np.zeros(mask.arr.shape, dtype=array.dtype)
    out[lanes] = np.take(array.data.reshape(-1), flat)
    return out


def _gather(flat: np.ndarray, part: np.ndarray, scalar: int, mask: Mask) -> Any:
    """``flat[part + scalar]`` in one ``np.take``: where ``part`` is a remembered sum known
    to hold no negative value, from ``flat`` less its first ``scalar`` elements (no sum); under
    a sparse mask, on the active lanes only (the others read 0)."""
    if mask.sparse and _ndim(part) == 1 and part.shape == mask.arr.shape:
        lanes = mask.lanes
        out = np.zeros(part.shape, dtype=flat.dtype)
        out[lanes] = np.take(flat, part[lanes] + scalar)
        return out
    if _ndim(part) == 1:
        moved = affine.offset_of(part)  # ``row * N + k``: gathered by ``row * N``'s shape
        base, shift = (part, scalar) if moved is None else (moved[0], scalar + moved[1])
        shaped = gather.structured(flat, base, shift)
        if shaped is not None:
            return shaped
    if scalar == 0:
        return np.take(flat, part)
    if scalar > 0 and _lowest(part) >= 0:
        return np.take(flat[scalar:], part)
    return np.take(flat, part + scalar)


#: per launch, the smallest value of remembered sums (by identity, held weakly)
_LOWEST: dict[int, tuple[Any, int]] = {}


def _lowest(part: np.ndarray) -> int:
    """The smallest value of ``part``: remembered for read-only (remembered) sums, else -1."""
    if part.flags.writeable:
        return -1
    hit = _LOWEST.get(id(part))
    if hit is not None and hit[0]() is part:
        return hit[1]
    low = int(part.min())
    _keep(_LOWEST, id(part), (weakref.ref(part), low))
    return low


def _flat(data: np.ndarray, index: tuple[Any, ...], lead: np.ndarray | None = None) -> np.ndarray | None:
    """The element each lane's ``index`` names in ``data`` flattened, within the copy starting
    at ``lead`` (shared and local arrays: ``ArrayRef.lead_flat``); None where ``data`` is not
    C-contiguous: one gather instead of numpy's slower fancy indexing (on one axis too)."""
    parts = _flat_parts(data, index, lead)
    if parts is None:
        return None
    part, scalar = parts
    return part if scalar == 0 else part + scalar


def _flat_parts(
    data: np.ndarray, index: tuple[Any, ...], lead: np.ndarray | None = None
) -> tuple[np.ndarray, int] | None:
    """``_flat``'s elements as a per-lane part (int64; remembered and read-only where the
    same arrays come again) and a scalar to add to it."""
    if not data.flags.c_contiguous:
        return None
    if lead is None and len(index) < 2:
        return (_int64(index[0]), 0) if len(index) == 1 and _ndim(index[0]) else None
    steps = [1]
    for dim in reversed(data.shape[2 if lead is not None else 1 :]):
        steps.append(steps[-1] * dim)
    if lead is None:
        part, scalar, _ = _weighted_parts(index, tuple(reversed(steps)), 0)
    else:
        part, scalar, _ = _weighted_parts((lead, *index), (1, *reversed(steps)), 0)
    if part is None:
        return np.asarray(scalar, dtype=np.int64), 0
    return np.asarray(part, dtype=np.int64), int(scalar)


def store_one(
    array: GlobalArray,
    index: tuple[Any, ...],
    value: Any,
    mask: Mask,
    counters: Counters,
    race: Any,
    line: int,
) -> bool:
    """``store`` of one value of the array's own type to one element of a global array that
    every active lane names (a thread's ``y[i] = v`` in a serial loop, one thread's
    ``out[0] = total``): counted as ``_count`` counts it and heard by ``race`` as ``store``
    has it hear it. False (nothing done) where ``store`` must decide: a record, a value to
    cast or of each lane's own, an index to check, wrap or fault on, no lane active."""
    if (
        not isinstance(value, np.generic)
        or value.dtype is not array.dtype
        or not mask.threads
        or not _one_element_inside(array, index)
    ):
        return False
    warps = mask.warps
    _count_global(counters.site(line), warps, warps, warps * array.itemsize, store=True)  # a sector a warp
    if race is not None and array.kind in RACED:
        race.access(array, index, None, mask, line, True)
    array.data[index] = value
    return True


def store(
    array: ArrayRef,
    index: tuple[Any, ...],
    value: Any,
    mask: Mask,
    site: SiteCounts,
    race: Any = None,
    line: int = 0,
) -> tuple[Any, ...]:
    """Each active lane writes its value (several lanes on one element: the last lane wins);
    the index written at (negative indices wrapped)."""
    if array.kind == "const":
        raise KernelMistake(f"{array.name} is a module-level constant array: kernels cannot write it")
    index = checked_index(array, index, mask, write=True)
    _store(array, index, value, mask, site, race, line)
    return index


def _store(
    array: ArrayRef, index: tuple[Any, ...], value: Any, mask: Mask, site: SiteCounts, race: Any, line: int
) -> None:
    uniform = not any(_ndim(i) for i in index)
    addresses, extra = _count(array, index, mask, site, store=True, uniform=uniform)
    if race is not None and array.kind in RACED:
        race.access(array, index, addresses, mask, line, True, extra=extra)
    if isinstance(value, RecordRef):
        raise NotEmulated("assigning a whole record is not supported: assign its fields one by one")
    if uniform and array.kind == "local":  # each lane its own copy's one element: a column
        with np.errstate(all="ignore"):  # a C cast: integers wrap, floats round
            value = np.asarray(value).astype(array.dtype, copy=False)
        column = array.data[(slice(None), *index)]
        if mask.threads == mask.arr.size:
            column[...] = value
        else:
            np.copyto(column, value, where=mask.arr)
        return
    lanes: Any
    if mask.threads == mask.arr.size:  # every lane: in lane order, nothing to pick out
        lanes = None
        picked = index
    else:
        lanes = mask.lanes
        if not lanes.size:
            return
        picked = tuple(i[lanes] if _ndim(i) else i for i in index)
        if np.ndim(value):
            value = value[lanes]
    if array.kind in ("shared", "local"):
        flat = _flat(array.data, picked, array.lead_flat(lanes))
        if flat is None:
            lead = array.lead(lanes)
            picked = lead + tuple(np.broadcast_to(i, lead[0].shape) for i in picked)
    else:
        if uniform and np.ndim(value):
            value = value[-1]  # every lane names the one element: the last lane's value lands
        flat = _flat(array.data, picked)
    with np.errstate(all="ignore"):  # a C cast: integers wrap, floats round
        value = np.asarray(value).astype(array.dtype, copy=False)
        if flat is None:
            array.data[picked] = value
        else:
            array.data.reshape(-1)[flat] = value


def _count(
    array: ArrayRef, index: tuple[Any, ...], mask: Mask, site: SiteCounts, store: bool, uniform: bool
) -> Any:
    """Count the access; return the byte addresses it computed (None where it needed none) as
    two terms to add (the second a scalar: a repeated global access needs no sum to count)."""
    kind = array.kind
    addresses, extra = None, 0
    if kind == "const":
        return None, 0
    warps = mask.warps
    if kind == "local":
        if store:
            site.local_store_requests += warps
        else:
            site.local_load_requests += warps
        return None, 0
    if kind == "global":
        if uniform:
            sectors = warps  # one naturally aligned element per warp: one sector
            nbytes = warps * array.itemsize  # ... named once, however many lanes read it
        else:
            strides = array.strides
            part, scalar, _ = _weighted_parts(index, strides, array.base)  # type: ignore[attr-defined]
            _LAST_PARTS[0] = (index, strides, array.base, part, scalar)  # type: ignore[attr-defined]
            aligned = array.naturally_aligned
            key = (id(site), store, array.itemsize, aligned)
            pattern = _repeated(key, site, part, scalar, mask)
            _LAST_REPEAT[0] = None if pattern is None else (part, scalar, pattern, int(part[0]) + int(scalar))
            if pattern is None:
                addresses = part if scalar == 0 else part + scalar
                counted = memory.global_access(_rows(addresses, mask), array.itemsize, aligned)
                _remember(key, site, addresses, mask, counted, part)
                if not part.flags.writeable:  # remembered terms: racecheck keeps them, no copy
                    addresses, extra = part, scalar
            else:
                counted = pattern[3]
                addresses, extra = part, scalar
            sectors, nbytes = counted
        _count_global(site, warps, sectors, nbytes, store)
        return addresses, extra
    strides = array.strides
    part, scalar, kept = _weighted_parts(index, strides, array.offset)  # type: ignore[attr-defined]
    _LAST_PARTS[0] = (index, strides, array.offset, part, scalar)  # type: ignore[attr-defined]
    if uniform:
        # every lane on one element: one wavefront per 128 bytes, no conflict
        wavefronts = ideal = warps * max(1, -(-array.itemsize // memory.PHASE_BYTES))
    else:
        blocks = array.data.shape[0] if array.data.ndim else 1
        # the same remembered lanes' offsets under the same mask, moved by whole words: the
        # banks rotate, and no bank gets more or fewer distinct words
        moved = (id(site), store, array.itemsize, blocks, id(part), int(scalar) % memory.BANK_BYTES)
        seen = _SHIFTED.get(moved) if kept else None
        if seen is not None and seen[0] is site and seen[1] is part and seen[2] is mask.arr:
            wavefronts, ideal = seen[3]
        else:
            offsets = part if scalar == 0 else part + scalar
            wavefronts, ideal = memory.shared_wavefronts(_rows(offsets, mask), array.itemsize, blocks)
            if kept:
                _keep(_SHIFTED, moved, (site, part, mask.arr, (wavefronts, ideal)))
    if store:
        site.shared_store_requests += warps
        site.shared_store_wavefronts += wavefronts
        site.shared_store_ideal_wavefronts += ideal
    else:
        site.shared_load_requests += warps
        site.shared_load_wavefronts += wavefronts
        site.shared_load_ideal_wavefronts += ideal
    return (np.int64(scalar), 0) if part is None else (part, scalar)


#: accesses of at least this many lanes are remembered by ``_remember``, and index sums and
#: ranges of that many by ``_weighted_parts`` and ``_index_range`` (below it, counting costs
#: less than comparing; measured on the corpus: a 2,304-lane loop of ``A[i, k]`` loads ran
#: 15-20% faster at 512 than at 4,096, a 256-lane grid-stride loop 15% faster at 256 than at
#: 512, and the corpus as a whole no slower)
PATTERN_LANES = 256
#: a remembered access: site, mask, addresses less the first lane's, what it counted, (once
#: asked for) the distinct sectors its active lanes touch relative to the first lane's, and
#: (weakly) the remembered per-lane part its addresses were summed from
_Pattern = tuple[Any, np.ndarray, np.ndarray, tuple[int, int], list[np.ndarray], Callable[[], Any]]
#: per (site, load or store, element size, alignment): by the first lane's address modulo a
#: sector, the last such access's mask, addresses relative to that lane, and what it counted
_PATTERNS: dict[tuple[Any, ...], dict[int, _Pattern]] = {}
_VISITS: dict[tuple[Any, ...], tuple[Any, np.ndarray]] = {}  # per key: the last access's site and mask
#: the last global access ``_count`` found repeating a pattern: (its addresses' per-lane part,
#: their scalar, the pattern, the first lane's address), else None
_LAST_REPEAT: list[tuple[Any, Any, _Pattern, int] | None] = [None]


def _no_part() -> None:
    """A pattern's part where it had none remembered (``_remember``)."""
    return None


def _repeated(key: tuple[Any, ...], site: SiteCounts, part: Any, scalar: Any, mask: Mask) -> _Pattern | None:
    """The earlier global access at the same site (its (sectors, bytes) counted), where this
    one's active lanes are the same (the same mask object) and its addresses are that
    access's moved by whole sectors (``_period``), which changes neither count: a loop
    stepping through an array (``A[row * N + k]``) counts alike every 8th iteration, and
    comparing costs a fraction of sorting. The addresses are ``part + scalar``. None: count it."""
    if _ndim(part) != 1 or part.shape[0] < PATTERN_LANES:
        return None
    seen = _PATTERNS.get(key)
    if seen is None:
        return None
    lead = int(part[0])
    hit = seen.get((lead + scalar) % _period(key[2]))  # key: (site, store, itemsize, aligned)
    if hit is None or hit[0] is not site or hit[1] is not mask.arr:
        return None
    # the addresses less the first lane's: the same where the per-lane part is the same
    # remembered (read-only) array, else compared
    if hit[5]() is not part and not np.array_equal(part - lead, hit[2]):
        return None
    return hit


def _period(itemsize: int) -> int:
    """The moves that change neither count of a global access of ``itemsize``-byte elements:
    whole sectors, and for a size that neither divides a sector nor spans one, whole elements
    too (whether an element straddles a sector depends on where it starts within one)."""
    if memory.SECTOR_BYTES % itemsize == 0 or itemsize > memory.SECTOR_BYTES:
        return memory.SECTOR_BYTES
    return math.lcm(memory.SECTOR_BYTES, itemsize)


def _remember(
    key: tuple[Any, ...], site: SiteCounts, addresses: Any, mask: Mask, counted: tuple[int, int], part: Any
) -> None:
    if _ndim(addresses) != 1 or addresses.shape[0] < PATTERN_LANES:
        return
    last = _VISITS.get(key)
    _VISITS[key] = (site, mask.arr)
    if last is None or last[0] is not site or last[1] is not mask.arr:
        return  # kept from the site's second access under one mask on (a loop), not before
    first = int(addresses[0])
    _PATTERNS.setdefault(key, {})[first % _period(key[2])] = (
        site,
        mask.arr,
        addresses - first,
        counted,
        [],
        weakref.ref(part) if part is not None and not part.flags.writeable else _no_part,
    )


def address_parts(index: tuple[Any, ...], weights: tuple[int, ...], start: int) -> tuple[Any, Any]:
    """``weighted``'s sum in its two parts: the per-lane arrays' terms (None where there are
    none; may be remembered, read-only) and ``start`` plus the scalar terms."""
    last = _LAST_PARTS[0]
    if last is not None and last[0] is index and last[2] == start and last[1] == weights:
        return last[3], last[4]  # ``_count`` summed this access's index a moment ago
    part, scalar, _ = _weighted_parts(index, weights, start)
    return part, scalar


#: the last shared or global access ``_count`` summed: (its index tuple, weights, start, the
#: sum's per-lane part, its scalar), for the timing model's ``address_parts`` of the same
#: access (the tuple is held, so no other can take its identity)
_LAST_PARTS: list[tuple[tuple[Any, ...], tuple[int, ...], int, Any, Any] | None] = [None]


def global_parts(array: GlobalArray, index: tuple[Any, ...], mask: Mask) -> tuple[Any, Any, Any]:
    """A global access's byte addresses as ``address_parts`` gives them, and
    ``repeated_sectors``'s answer for them."""
    part, scalar = address_parts(index, array.strides, array.base)
    return part, scalar, repeated_sectors(part, scalar, mask)


def repeated_sectors(part: Any, scalar: Any, mask: Mask) -> tuple[int, np.ndarray] | None:
    """Where the addresses ``part + scalar`` under ``mask`` are those of the last global access
    ``_count`` found repeating a remembered one (the same per-lane part, read-only, and
    scalar), the sectors their active lanes touch: (the first lane's sector, the distinct
    sectors relative to it, sorted), from the pattern, computed once for it. None: unknown."""
    last = _LAST_REPEAT[0]
    if last is None or part is None or last[0] is not part or last[1] != scalar or last[2][1] is not mask.arr:
        return None
    _, _, pattern, first = last
    relative = pattern[4]
    if not relative:
        offset = first % memory.SECTOR_BYTES  # the pattern's lanes are offsets from a first lane there
        moved = pattern[2] if mask.threads == mask.arr.size else pattern[2][mask.arr]
        sectors = (moved + offset) >> memory.SECTOR_SHIFT
        low = int(sectors.min())
        hit = np.zeros(int(sectors.max()) - low + 1, dtype=bool)
        hit[sectors - low] = True
        relative.append(np.flatnonzero(hit) + low)
    return first >> memory.SECTOR_SHIFT, relative[0]


def forget_patterns() -> None:
    """Drop what accesses remembered (a launch's end: its sites, masks and indices are gone)."""
    _PATTERNS.clear()
    _VISITS.clear()
    _LAST_REPEAT[0] = None
    _LAST_PARTS[0] = None
    _RANGES.clear()
    _SUMS.clear()
    _SHIFTED.clear()
    _LOWEST.clear()
    affine.forget()
    gather.forget()


def _rows(addresses: Any, mask: Mask) -> np.ndarray:
    """(active warps, 32) addresses, -1 on inactive lanes."""
    if mask.threads == mask.arr.size and _ndim(addresses) == 1:  # every lane: nothing to blank
        return np.asarray(addresses).reshape(-1, WARP)
    full = np.where(mask.arr, addresses, -1).reshape(-1, WARP)
    return full if mask.warps == full.shape[0] else full[mask.warp_any]


def resolve(base: Any, index: tuple[Any, ...]) -> tuple[ArrayRef, tuple[Any, ...]]:
    """The array an indexed value refers to, and the full index (a row view adds its own; a
    record named by a field is that field's array at the record's index)."""
    if isinstance(base, RecordRef):
        if len(index) != 1 or not isinstance(index[0], str):
            raise KernelMistake("a record is indexed by a field name: rec['x']")
        return base.field(index[0])
    if isinstance(base, RowView):
        return base.array, base.full(index)
    if isinstance(base, ArrayRef):
        return base, index
    raise KernelMistake(f"cannot index a {type(base).__name__}")


def attribute(obj: Any, attr: str) -> Any:
    """``.shape``, ``.size``, ``.ndim``, ``.dtype`` of an array; ``.real``, ``.imag`` of a number."""
    if isinstance(obj, (np.ndarray, np.generic)) and attr in ("real", "imag"):
        return np.real(obj) if attr == "real" else np.imag(obj)
    if not isinstance(obj, (ArrayRef, RowView)):
        kind = getattr(obj, "dtype", None)
        raise KernelMistake(
            f"a {kind if kind is not None else type(obj).__name__} value has no attribute '{attr}'"
        )
    if attr == "shape":
        return tuple(np.int64(d) for d in obj.shape)
    if attr == "size":
        return np.int64(obj.size)
    if attr == "ndim":
        return np.int64(obj.ndim)
    if attr == "dtype":
        return obj.dtype
    if attr == "strides":
        return tuple(np.int64(d) for d in obj.strides)
    if attr == "itemsize":
        return np.int64(obj.dtype.itemsize)
    if attr == "nbytes":
        return np.int64(obj.size * obj.dtype.itemsize)
    raise NotEmulated(
        f"arrays have no attribute '{attr}' in kernels (.shape, .size, .ndim, .dtype, .strides, .itemsize, .nbytes)"
    )
