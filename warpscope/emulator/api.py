"""``from warpscope.emulator import cuda``: the numba.cuda names a kernel file uses.

The names used inside kernels come from ``device_api`` (the compiler recognises them by
identity); the host functions here do what numba does on the host (``to_device``,
``device_array``, ``synchronize``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from warpscope.emulator import device_api
from warpscope.emulator.device_api import CudaNamespace
from warpscope.emulator.errors import users
from warpscope.emulator.kernel import jit
from warpscope.emulator.timing import overlap


class DeviceArray(np.ndarray):
    """What ``cuda.to_device`` returns: a numpy array (the emulator's global memory)."""

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        host = np.asarray(self).copy()
        if ary is not None:
            ary[...] = host
            return ary
        return host

    def copy_to_device(self, ary: np.ndarray, stream: Any = 0) -> None:
        self[...] = ary

    def is_c_contiguous(self) -> bool:
        return bool(self.flags.c_contiguous)

    def is_f_contiguous(self) -> bool:
        return bool(self.flags.f_contiguous)

    def split(self, section: int, stream: Any = 0) -> list[DeviceArray]:
        """numba's ``DeviceNDArray.split``: 1D views of ``section`` elements (the last shorter)."""
        return [self[i : i + section].view(DeviceArray) for i in range(0, self.shape[0], section)]

    def get_ipc_handle(self) -> Any:
        raise users(NotImplementedError("the emulator has one process: CUDA IPC is not emulated"))


def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: Any = None) -> DeviceArray:
    if to is not None:
        to[...] = obj
        return to
    return np.array(obj, copy=True).view(DeviceArray)


def device_array(
    shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C", stream: Any = 0
) -> DeviceArray:
    return np.zeros(shape, dtype=dtype, order=order).view(DeviceArray)  # type: ignore[call-overload]


def device_array_like(ary: np.ndarray, stream: Any = 0) -> DeviceArray:
    return np.zeros_like(ary).view(DeviceArray)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C") -> np.ndarray:
    return np.zeros(shape, dtype=dtype, order=order)  # type: ignore[call-overload]


def pinned_array_like(ary: np.ndarray) -> np.ndarray:
    return np.zeros_like(ary)


def mapped_array_like(ary: np.ndarray, **_: Any) -> DeviceArray:
    return np.zeros_like(ary).view(DeviceArray)


def synchronize() -> None:
    """Launches run to completion when called; waits for the timing of big ones, which may
    still be running on the timing thread (``timing.overlap``): a script that times its
    launches up to here counts their timing too."""
    overlap.wait()


class Stream:
    """``cuda.stream()``: launches run in order when called, so a stream only has to exist."""

    def synchronize(self) -> None:
        """Nothing is in flight but timings (``synchronize``)."""
        overlap.wait()

    @contextlib.contextmanager
    def auto_synchronize(self) -> Iterator[Stream]:
        yield self


def stream() -> Stream:
    return Stream()


def is_available() -> bool:
    """The emulator is always there to launch on."""
    return True


class Device:
    """``cuda.get_current_device()``: the emulated GPU (``--arch``), with the attributes
    numba's device object has (``MAX_THREADS_PER_BLOCK``, ``WARP_SIZE``, ...)."""

    def __init__(self, arch: str) -> None:
        from warpscope.emulator.timing.params import SM_COUNT
        from warpscope.occupancy.arch import get_arch

        a = get_arch(arch)
        self.id = 0
        self.name = f"warpscope emulator ({a.family} {a.name})".encode()
        self.compute_capability = (a.major, a.minor)
        self.MAX_THREADS_PER_BLOCK = a.max_threads_per_block
        self.MAX_BLOCK_DIM_X = self.MAX_BLOCK_DIM_Y = 1024
        self.MAX_BLOCK_DIM_Z = 64
        self.MAX_GRID_DIM_X = 2**31 - 1
        self.MAX_GRID_DIM_Y = self.MAX_GRID_DIM_Z = 65535
        self.MAX_SHARED_MEMORY_PER_BLOCK = a.shared_per_block
        self.MAX_REGISTERS_PER_BLOCK = a.registers_per_block
        self.MAX_THREADS_PER_MULTIPROCESSOR = a.max_threads_per_sm
        self.MULTIPROCESSOR_COUNT = SM_COUNT.get(a.name, 132)
        self.WARP_SIZE = a.warp_size

    def __repr__(self) -> str:
        return f"<CUDA device {self.id} '{self.name.decode()}'>"


def get_current_device() -> Device:
    """The device launches run on: the emulated architecture of the current settings."""
    from warpscope.emulator.kernel import current_settings

    return Device(current_settings().arch)


class Event:
    """``cuda.event()``: the host's clock when recorded (launches finish when called, and a
    record waits for the timing thread, so the time between two events is what the emulator
    took, timing included, not what a GPU would)."""

    def __init__(self, timing: bool = True) -> None:
        self._at: float | None = None

    def record(self, stream: Any = 0) -> None:
        overlap.wait()
        self._at = time.perf_counter()

    def synchronize(self) -> None:
        """Nothing is in flight but timings (``synchronize``)."""
        overlap.wait()

    def wait(self, stream: Any = 0) -> None:
        """Nothing is in flight."""

    def query(self) -> bool:
        return True

    def elapsed_time(self, evtend: Event) -> float:
        return event_elapsed_time(self, evtend)


def event(timing: bool = True) -> Event:
    return Event(timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    """Milliseconds between two recorded events, as numba-cuda gives them."""
    if evtstart._at is None or evtend._at is None:
        raise users(RuntimeError("cuda.event_elapsed_time: both events must be recorded first"))
    return (evtend._at - evtstart._at) * 1000.0


class Context:
    """``cuda.current_context()``: the emulated device's context."""

    def __init__(self) -> None:
        self.device = get_current_device()

    def get_memory_info(self) -> tuple[int, int]:
        """(free, total) bytes: the emulated card's, all free."""
        return (80 * 1024**3, 80 * 1024**3)

    def reset(self) -> None:
        """Nothing to free."""

    def synchronize(self) -> None:
        """Nothing is in flight but timings (``synchronize``)."""
        overlap.wait()


class _Gpus:
    """``cuda.gpus``: the one emulated device (``len``, ``[0]``, ``with cuda.gpus[0]:``)."""

    def __len__(self) -> int:
        return 1

    def __getitem__(self, i: int) -> _Gpu:
        if i not in (0, -1):
            raise users(IndexError(f"cuda.gpus[{i}]: the emulator has one device"))
        return _Gpu()

    def __iter__(self) -> Iterator[_Gpu]:
        return iter([_Gpu()])

    @property
    def current(self) -> _Gpu:
        return _Gpu()


class _Gpu:
    def __getattr__(self, name: str) -> Any:
        return getattr(get_current_device(), name)

    def __enter__(self) -> _Gpu:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def select_device(device_id: int) -> Device:
    if device_id != 0:
        raise users(ValueError(f"cuda.select_device({device_id}): the emulator has one device, 0"))
    return get_current_device()


def list_devices() -> list[Device]:
    return [get_current_device()]


def current_context() -> Context:
    return Context()


def close() -> None:
    """Nothing to release."""


def detect() -> bool:
    """Prints the device numba-cuda would list, and says that it is supported."""
    d = get_current_device()
    print("Found 1 CUDA devices")
    print(f"id 0    {d.name!r}                              [SUPPORTED]")
    print("Summary:\n\t1/1 devices are supported")
    return True


def mapped_array(
    shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C", **_: Any
) -> DeviceArray:
    return np.zeros(shape, dtype=dtype, order=order).view(DeviceArray)  # type: ignore[call-overload]


@contextlib.contextmanager
def pinned(*arylist: Any) -> Iterator[None]:
    yield None


@contextlib.contextmanager
def mapped(*arylist: Any, **_: Any) -> Iterator[Any]:
    views = [np.asarray(a).view(DeviceArray) for a in arylist]
    yield views[0] if len(views) == 1 else views


def as_cuda_array(obj: Any, sync: bool = True) -> DeviceArray:
    """A device array sharing ``obj``'s memory (the emulator's device memory is the host's)."""
    return np.asarray(obj).view(DeviceArray)


def is_cuda_array(obj: Any) -> bool:
    return isinstance(obj, DeviceArray) or hasattr(obj, "__cuda_array_interface__")


@contextlib.contextmanager
def defer_cleanup() -> Iterator[None]:
    yield None


def _no_op(*args: Any, **kwargs: Any) -> None:
    """Nothing to do on the emulator."""


def _type_names() -> dict[str, Any]:
    """numba-cuda's ``cuda.float32``, ``cuda.types``...: numba's types where numba is installed
    (``CudaNamespace`` asks at the first use of one: importing numba costs ~0.15 s)."""
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return {}
    out = {n: getattr(numba, n) for n in device_api.NUMBA_TYPE_NAMES if n != "types" and hasattr(numba, n)}
    out["types"] = numba.types
    return out


class Reduce:
    """``cuda.reduce(fn)`` / ``@cuda.reduce``: numba-cuda's full reduction of a 1D array by a
    binary function. numba runs it as kernels on the GPU, combining in a tree; the emulator
    combines on the host in a pairwise tree of the array's dtype (so float sums round as a
    tree does, within the corpus's 1e-5), then with ``init`` as numba-cuda's last step does."""

    def __init__(self, functor: Any) -> None:
        self._functor = getattr(functor, "py_func", functor)
        self.__name__ = getattr(self._functor, "__name__", "reduce")
        self.__doc__ = getattr(self._functor, "__doc__", None)

    def __call__(
        self, arr: Any, size: int | None = None, res: Any = None, init: Any = 0, stream: Any = 0
    ) -> Any:
        values = np.asarray(arr)
        if values.ndim != 1:
            raise users(TypeError(f"cuda.reduce takes a 1D array, not one of shape {values.shape}"))
        dtype = values.dtype
        values = values[: values.size if size is None else size].copy()
        if values.size == 0:
            return init
        op = self._functor
        while values.size > 1:
            pairs = values.size // 2
            left, right = values[: 2 * pairs : 2], values[1 : 2 * pairs : 2]
            try:
                with np.errstate(all="ignore"):
                    combined = np.asarray(op(left, right)).astype(dtype, copy=False)
                if combined.shape != left.shape:
                    raise ValueError
            except Exception:  # not array-safe (max(), an if): one pair at a time
                combined = np.array([op(a, b) for a, b in zip(left, right)], dtype=dtype)
            values = np.concatenate([combined, values[2 * pairs :]])
        with np.errstate(all="ignore"):
            result = np.asarray(op(values[0], dtype.type(init))).astype(dtype)[()]
        if res is not None:
            res[0] = result
            return None
        return result


def _ufunc(name: str) -> Any:
    """``cuda.vectorize`` / ``cuda.guvectorize`` (``warpscope.emulator.ufuncs``, imported at
    first use: it builds kernels, so it imports this module)."""

    def decorator(*args: Any, **kwargs: Any) -> Any:
        from warpscope.emulator import ufuncs

        kwargs.pop("target", None)
        return getattr(ufuncs, name)(*args, **kwargs)

    decorator.__name__ = name
    return decorator


def _build() -> CudaNamespace:
    return CudaNamespace(
        **device_api.NAMES,
        jit=jit,
        to_device=to_device,
        device_array=device_array,
        device_array_like=device_array_like,
        pinned_array=pinned_array,
        pinned_array_like=pinned_array_like,
        mapped_array_like=mapped_array_like,
        managed_array_like=mapped_array_like,
        synchronize=synchronize,
        stream=stream,
        default_stream=stream,
        per_thread_default_stream=stream,
        legacy_default_stream=stream,
        external_stream=lambda ptr=0: stream(),
        is_available=is_available,
        get_current_device=get_current_device,
        reduce=Reduce,
        Reduce=Reduce,
        vectorize=_ufunc("vectorize"),
        guvectorize=_ufunc("guvectorize"),
        event=event,
        event_elapsed_time=event_elapsed_time,
        select_device=select_device,
        list_devices=list_devices,
        current_context=current_context,
        close=close,
        detect=detect,
        gpus=_Gpus(),
        mapped_array=mapped_array,
        managed_array=mapped_array,
        pinned=pinned,
        mapped=mapped,
        as_cuda_array=as_cuda_array,
        is_cuda_array=is_cuda_array,
        defer_cleanup=defer_cleanup,
        profile_start=_no_op,
        profile_stop=_no_op,
        type_names=_type_names,
    )


cuda = _build()
