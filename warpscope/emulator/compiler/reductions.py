"""Whole-array reductions inside a kernel: ``a.sum()``, ``np.max(row)``, ``x[i, :].mean()``...
as numba compiles them: the thread that calls one loops over every element of its array
(each a load, counted), accumulating in order (a sum adds element by element, as numba's loop
does, not numpy's pairwise sum)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator.errors import KernelMistake


def _sequential(
    op: Callable[[Any, Any], Any], start: Callable[[np.dtype], Any]
) -> Callable[[Any, np.dtype], Any]:
    def reduce(values: Any, dtype: np.dtype) -> Any:
        kind = np.add.reduce(np.zeros(1, dtype)).dtype if dtype.kind != "b" else np.dtype(np.int64)
        acc = np.full(values.shape[0], start(kind), dtype=kind)
        with np.errstate(all="ignore"):
            for k in range(values.shape[1]):
                acc = op(acc, values[:, k].astype(kind))
        return acc

    return reduce


def _mean(values: Any, dtype: np.dtype) -> Any:
    total = _sequential(np.add, lambda k: 0)(values, dtype)
    with np.errstate(all="ignore"):
        return (total / max(values.shape[1], 1)).astype(np.mean(np.zeros(1, dtype)).dtype)


def _with_nan(f: Callable[..., Any]) -> Callable[[Any, np.dtype], Any]:
    def reduce(values: Any, dtype: np.dtype) -> Any:
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return f(values, axis=1)

    return reduce


#: name -> reduction of (lanes, elements) values of an array of the given dtype
REDUCTIONS: dict[str, Callable[[Any, np.dtype], Any]] = {
    "sum": _sequential(np.add, lambda k: 0),
    "prod": _sequential(np.multiply, lambda k: 1),
    "nansum": lambda v, d: _sequential(np.add, lambda k: 0)(
        np.where(np.isnan(v), 0, v) if v.dtype.kind in "fc" else v, d
    ),
    "nanprod": lambda v, d: _sequential(np.multiply, lambda k: 1)(
        np.where(np.isnan(v), 1, v) if v.dtype.kind in "fc" else v, d
    ),
    "mean": _mean,
    "min": _with_nan(np.min),
    "max": _with_nan(np.max),
    "amin": _with_nan(np.min),
    "amax": _with_nan(np.max),
    "nanmin": _with_nan(np.nanmin),
    "nanmax": _with_nan(np.nanmax),
    "nanmean": _with_nan(np.nanmean),
    "var": _with_nan(np.var),
    "std": _with_nan(np.std),
    "argmin": _with_nan(np.argmin),
    "argmax": _with_nan(np.argmax),
    "any": _with_nan(np.any),
    "all": _with_nan(np.all),
    "median": _with_nan(np.median),
}
#: the numpy functions a kernel may call on one array, by the reduction they are
FUNCTIONS: dict[Any, str] = {getattr(np, n): n for n in REDUCTIONS if hasattr(np, n)}
#: the array methods numba-cuda compiles
METHODS = ("sum", "prod", "mean", "min", "max", "var", "std", "argmin", "argmax", "any", "all")


def reduce(name: str, values: Any, dtype: np.dtype) -> Any:
    """``values`` (lanes, elements) of an array of ``dtype`` reduced per lane by ``name``."""
    if values.shape[1] == 0 and name in ("min", "max", "amin", "amax", "argmin", "argmax"):
        raise KernelMistake(f"{name}() of an empty array")
    return REDUCTIONS[name](values, dtype)
