"""numba's ``@vectorize(..., target='cuda')`` and ``@guvectorize(..., target='cuda')`` (also as
``cuda.vectorize`` / ``cuda.guvectorize``): the scalar (or core) function becomes a device
function that a generated kernel calls once per element (or per loop index), launched with
``forall`` as numba-cuda launches it, so it is emulated and profiled like any kernel.

Arguments follow numba-cuda's ``deviceufunc`` rules: an array's dtype must equal a signature's
exactly (casting='no'); a scalar takes the type of the first signature that fits (its own type
first); inputs broadcast as numpy's; scalars alone give a one-element result; the result stays
on the device where an input was a device array, else it is copied back.
"""

from __future__ import annotations

import itertools
import linecache
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from warpscope.emulator import device_api, signatures
from warpscope.emulator.errors import EmulatorError
from warpscope.emulator.functions import DeviceFunction
from warpscope.emulator.kernel import Kernel
from warpscope.emulator.signatures import ArrayType, Signature

_COUNTER = itertools.count()


def _kernel(name: str, source: str, core: DeviceFunction) -> Kernel:
    """A kernel from generated source (kept in ``linecache``, where the compiler reads it)."""
    file = f"<warpscope {name} #{next(_COUNTER)}>"
    linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    env: dict[str, Any] = {"grid": device_api.grid, "core": core}
    exec(compile(source, file, "exec"), env)
    return Kernel(env[name])


def _signatures(spec: Any, what: str) -> list[Signature]:
    specs = spec if isinstance(spec, (list, tuple)) and not _is_type_tuple(spec) else [spec]
    try:
        return [s for s in (signatures.signature(x) for x in specs) if s is not None]
    except signatures.SignatureError as e:
        raise EmulatorError(f"{what}: {e}") from None


def _is_type_tuple(spec: Any) -> bool:
    """``(float64[:], float64, float64[:])``: one guvectorize signature, not a list of them."""
    return isinstance(spec, tuple) and bool(spec) and not isinstance(spec[0], (str, tuple, list))


def _device_type(values: Sequence[Any]) -> type | None:
    """The device-array type of the first argument that is one (None: all on the host)."""
    return next((type(v) for v in values if callable(getattr(v, "copy_to_host", None))), None)


def _as_result(out: np.ndarray, device: type | None) -> Any:
    return out.view(device) if device is not None else np.asarray(out)


def _resolve(sigs: list[Signature], args: Sequence[Any], what: str) -> Signature:
    """numba-cuda's signature choice: arrays' dtypes exactly, scalars by their own type first."""
    actual = [v.dtype if isinstance(v, np.ndarray) else None for v in args]
    exact = [
        s
        for s in sigs
        if all(
            (a if a is not None else np.asarray(v).dtype) == _dtype(f)
            for f, a, v in zip(s.args, actual, args)
        )
    ]
    loose = [s for s in sigs if all(a is None or _dtype(f) == a for f, a in zip(s.args, actual))]
    matches = exact or loose
    if not matches:
        got = ", ".join(str(a) if a is not None else type(v).__name__ for a, v in zip(actual, args))
        raise EmulatorError(
            f"{what}: no signature matches ({got}); a GPU ufunc takes arrays of the exact types"
        )
    if len(matches) > 1 and not exact:
        raise EmulatorError(f"{what}: ambiguous signature for untyped scalars (tag them with a numpy type)")
    return matches[0]


def _dtype(t: Any) -> np.dtype:
    return t.dtype if isinstance(t, ArrayType) else np.dtype(t)


class CudaUFunc:
    """What ``@vectorize([...], target='cuda')`` returns: call it like a numpy ufunc."""

    def __init__(self, fn: Callable[..., Any], sigs: list[Signature]) -> None:
        self.py_func, self.__name__ = fn, fn.__name__
        self.__doc__ = fn.__doc__
        self.sigs = sigs
        self.nin = fn.__code__.co_argcount
        self._kernels: dict[Signature | None, Kernel] = {}

    def _kernel_for(self, sig: Signature | None) -> Kernel:
        kernel = self._kernels.get(sig)
        if kernel is None:
            params = [f"a{i}" for i in range(self.nin)]
            name = f"__vectorized_{self.__name__}"
            source = (
                f"def {name}(out, {', '.join(params)}):\n"
                "    i = grid(1)\n"
                "    if i < out.shape[0]:\n"
                f"        out[i] = core({', '.join(p + '[i]' for p in params)})\n"
            )
            kernel = self._kernels[sig] = _kernel(name, source, DeviceFunction(self.py_func, sig))
        return kernel

    def __call__(self, *args: Any, out: Any = None, stream: Any = 0) -> Any:
        what = f"vectorize {self.__name__}"
        if len(args) != self.nin:
            raise EmulatorError(f"{what} takes {self.nin} arguments, {len(args)} given")
        sig = _resolve(self.sigs, args, what) if self.sigs else None
        arrays = [
            np.asarray(v)
            if isinstance(v, np.ndarray)
            else np.array([v], dtype=_dtype(sig.args[i]) if sig else np.asarray(v).dtype)
            for i, v in enumerate(args)
        ]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        flat = [np.ascontiguousarray(np.broadcast_to(a, shape)).ravel() for a in arrays]
        if sig is not None and sig.returns is not None:
            result_type = sig.returns
        else:  # no signature: numpy's result type of the inputs, as the host would compute
            result_type = np.result_type(*(np.asarray(v).dtype for v in args))
        result = np.zeros(int(np.prod(shape)), dtype=result_type)
        if result.size:
            self._kernel_for(sig).forall(result.size)(result, *flat)
        result = result.reshape(shape)
        if out is not None:
            out[...] = result
            return out
        return _as_result(result, _device_type(args))

    def reduce(self, arg: Any, stream: Any = 0) -> Any:
        """numba-cuda's ``ufunc.reduce`` of a 1D array: halves combined by the ufunc (the odd
        last element folded in after the rest), as its device reduction runs."""
        values = np.asarray(arg)
        if self.nin != 2 or values.ndim != 1:
            raise EmulatorError(f"{self.__name__}.reduce takes a binary ufunc and a 1D array")
        if values.size == 0:
            raise EmulatorError(f"{self.__name__}.reduce of an empty array")
        return self._reduce(values.copy())[0]

    def _reduce(self, mem: np.ndarray) -> np.ndarray:
        n = mem.shape[0]
        if n == 1:
            return mem
        if n % 2:
            head = self._reduce(mem[: n - 1])
            return np.asarray(self(head[:1], mem[n - 1 :]))
        left, right = mem[: n // 2], mem[n // 2 :]
        left[...] = self(left, right)
        return self._reduce(left) if n // 2 > 1 else left


_LAYOUT = re.compile(r"\(([^()]*)\)")


def _layout(text: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """``'(n),()->(n)'``: the core dimensions' names of each input and each output."""
    if "->" not in text:
        raise EmulatorError(f"guvectorize layout {text!r}: expected '(inputs)->(outputs)'")
    ins, outs = text.replace(" ", "").split("->")

    def dims(part: str) -> list[tuple[str, ...]]:
        return [tuple(d for d in m.group(1).split(",") if d) for m in _LAYOUT.finditer(part)]

    return dims(ins), dims(outs)


class CudaGUFunc:
    """What ``@guvectorize([...], '(n),()->(n)', target='cuda')`` returns: one thread per
    element of the loop dimensions calls the function on its core slices."""

    def __init__(self, fn: Callable[..., Any], sigs: list[Signature], layout: str) -> None:
        self.py_func, self.__name__ = fn, fn.__name__
        self.__doc__ = fn.__doc__
        self.sigs = sigs
        self.ins, self.outs = _layout(layout)
        self.nargs = fn.__code__.co_argcount
        if len(self.ins) + len(self.outs) != self.nargs:
            raise EmulatorError(
                f"guvectorize {self.__name__}: layout {layout!r} names {len(self.ins) + len(self.outs)} "
                f"arguments, the function takes {self.nargs}"
            )
        self._kernels: dict[Signature, Kernel] = {}

    def _kernel_for(self, sig: Signature) -> Kernel:
        kernel = self._kernels.get(sig)
        if kernel is None:
            params = [f"a{i}" for i in range(self.nargs)]
            name = f"__gufunc_{self.__name__}"
            source = (
                f"def {name}({', '.join(params)}):\n"
                "    t = grid(1)\n"
                "    if t < a0.shape[0]:\n"
                f"        core({', '.join(p + '[t]' for p in params)})\n"
            )
            kernel = self._kernels[sig] = _kernel(name, source, DeviceFunction(self.py_func, sig))
        return kernel

    def __call__(self, *args: Any, out: Any = None, stream: Any = 0) -> Any:
        what = f"guvectorize {self.__name__}"
        nin, nout = len(self.ins), len(self.outs)
        given_out = list(args[nin:]) if len(args) > nin else ([out] if out is not None else [])
        inputs = list(args[:nin])
        if len(inputs) != nin or (given_out and len(given_out) != nout):
            raise EmulatorError(f"{what} takes {nin} inputs (and optionally {nout} outputs)")
        sig = (
            _resolve(self.sigs, inputs + given_out, what) if given_out else self._resolve_inputs(inputs, what)
        )
        arrays = [
            np.asarray(v) if isinstance(v, np.ndarray) else np.array(v, dtype=_dtype(sig.args[i]))
            for i, v in enumerate(inputs)
        ]
        sizes: dict[str, int] = {}
        loops = []
        for a, core in zip(arrays, self.ins):
            if a.ndim < len(core):
                raise EmulatorError(f"{what}: an input has {a.ndim} dimensions, its layout {core} needs more")
            for d, n in zip(core, a.shape[a.ndim - len(core) :]):
                if sizes.setdefault(d, n) != n:
                    raise EmulatorError(f"{what}: dimension {d} is {sizes[d]} and {n}")
            loops.append(a.shape[: a.ndim - len(core)])
        loop = np.broadcast_shapes(*loops) if loops else ()
        n = int(np.prod(loop))
        flat = [
            self._per_thread(np.broadcast_to(a, loop + a.shape[a.ndim - len(core) :]), n, core, t)
            for a, core, t in zip(arrays, self.ins, sig.args)
        ]
        outputs = []
        for k, core in enumerate(self.outs):
            t = sig.args[nin + k]
            shape = loop + tuple(sizes[d] for d in core)
            outputs.append(np.asarray(given_out[k]) if given_out else np.zeros(shape, dtype=_dtype(t)))
        out_views = [
            self._per_thread(o, n, core, t) for o, core, t in zip(outputs, self.outs, sig.args[nin:])
        ]
        if n:
            self._kernel_for(sig).forall(n)(*flat, *out_views)
        for given, o in zip(given_out, outputs):
            if np.asarray(given) is not o:
                np.asarray(given)[...] = o.reshape(np.shape(given))
        device = _device_type(list(args))
        results = list(given_out) if given_out else [_as_result(o, device) for o in outputs]
        return results[0] if len(results) == 1 else tuple(results)

    def _resolve_inputs(self, inputs: list[Any], what: str) -> Signature:
        nin = len(inputs)
        candidates = [Signature(s.args[:nin], None) for s in self.sigs]
        chosen = _resolve(candidates, inputs, what)
        return self.sigs[candidates.index(chosen)]

    @staticmethod
    def _per_thread(a: np.ndarray, n: int, core: tuple[str, ...], t: Any) -> np.ndarray:
        """``a`` as (loop elements, *core): row ``t`` is one thread's argument (a scalar
        parameter given its element, an array one a one-element row where its core is empty)."""
        rows = (
            a.reshape((n,) + a.shape[a.ndim - len(core) :])
            if n
            else a.reshape((0,) + a.shape[a.ndim - len(core) :])
        )
        if not core and isinstance(t, ArrayType):
            rows = rows.reshape(n, 1)
        return rows


def vectorize(ftylist_or_function: Any = (), **kws: Any) -> Any:
    """``@vectorize([sigs], target='cuda')`` or ``@vectorize(target='cuda')``."""
    if callable(ftylist_or_function) and not signatures.is_numba_type(ftylist_or_function):
        return CudaUFunc(ftylist_or_function, [])
    sigs = _signatures(ftylist_or_function, "@vectorize") if ftylist_or_function else []
    return lambda fn: CudaUFunc(fn, sigs)


def guvectorize(*args: Any, **kws: Any) -> Any:
    """``@guvectorize([sigs], layout, target='cuda')``."""
    if len(args) == 1 and "signature" in kws:
        ftylist, layout = args[0], kws["signature"]
    elif len(args) >= 2:
        ftylist, layout = args[0], args[1]
    else:
        raise EmulatorError("@guvectorize takes its signatures and a layout such as '(n),()->(n)'")
    sigs = _signatures(ftylist, "@guvectorize")
    if not sigs:
        raise EmulatorError("@guvectorize for the GPU needs its signatures")
    return lambda fn: CudaGUFunc(fn, sigs, layout)
