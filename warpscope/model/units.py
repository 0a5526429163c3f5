"""Units as profilers print them, and their factors to warpscope's base units.

Base units: nanoseconds for durations, bytes for sizes, hertz for frequencies,
bytes (or any count) per *second* for rates, percent for percentages, plain counts
for everything else. Nsight Compute scales by powers of 1000 (``Kbyte`` is 1000
bytes) and spells units differently across versions (``nsecond``/``ns``,
``cycle/second``/``hz``/``Ghz``); every spelling seen in real exports is here.
"""

from __future__ import annotations

from functools import lru_cache

# numerator units whose value is a time: factor to nanoseconds
_TIME_NS = {
    "second": 1e9,
    "s": 1e9,
    "sec": 1e9,
    "msecond": 1e6,
    "ms": 1e6,
    "usecond": 1e3,
    "us": 1e3,
    "nsecond": 1.0,
    "ns": 1.0,
}
# denominator units that are a time: factor to seconds (rates are per second)
_TIME_S = {
    "second": 1.0,
    "s": 1.0,
    "sec": 1.0,
    "msecond": 1e-3,
    "ms": 1e-3,
    "usecond": 1e-6,
    "us": 1e-6,
    "nsecond": 1e-9,
    "ns": 1e-9,
}
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
# count-like units a metric can be scaled in (Kbyte, Mcycle, Ginst, ...)
_SCALABLE = {
    "byte",
    "hz",
    "cycle",
    "inst",
    "sector",
    "request",
    "warp",
    "thread",
    "block",
    "transaction",
    "flop",
    "op",
    "branches",
    "wavefront",
}


def _part(unit: str, *, denominator: bool) -> tuple[float, str] | None:
    """Factor and base name of one side of a unit, or None when unknown."""
    if denominator and unit in _TIME_S:
        return _TIME_S[unit], "second"
    if not denominator and unit in _TIME_NS:
        return _TIME_NS[unit], "ns"
    low = unit.lower()
    if low == "hz":
        return 1.0, "hz"
    if len(unit) > 1 and unit[0] in _PREFIX:
        rest = unit[1:]
        if rest.lower() in _SCALABLE:
            return _PREFIX[unit[0]], rest.lower()
    if unit[0:1] in ("k",) and unit[1:].lower() in _SCALABLE:  # 'kbyte'
        return 1e3, unit[1:].lower()
    return 1.0, unit


@lru_cache(maxsize=4096)
def to_base(unit: str | None) -> tuple[float, str]:
    """Factor that turns a value printed in ``unit`` into base units, and that base unit.

    Unknown units pass through with factor 1 and their own name: warpscope never
    guesses a scale it has not seen.
    """
    if not unit:
        return 1.0, ""
    unit = unit.strip()
    if "/" not in unit:
        factor, base = _part(unit, denominator=False)  # type: ignore[misc]
        return factor, base
    num, _, den = unit.partition("/")
    nf, nb = _part(num, denominator=False)  # type: ignore[misc]
    if num == "cycle" and den in _TIME_S:  # cycle/second, cycle/nsecond: a frequency
        return 1.0 / _TIME_S[den], "hz"
    if num in _TIME_NS:  # e.g. 'us/inst' stays a time per thing
        df, db = _part(den, denominator=False)  # type: ignore[misc]
        return nf / df, f"{nb}/{db}"
    df, db = _part(den, denominator=True)  # type: ignore[misc]
    return nf / df, f"{nb}/{db}"
