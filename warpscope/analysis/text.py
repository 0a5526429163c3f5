"""Numbers in finding messages: short, stable, locale-free."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping


def num(value: float, digits: int = 2) -> str:
    """1,048,802 for whole numbers; otherwise at most ``digits`` decimals, trailing zeros cut."""
    if float(value).is_integer():
        return f"{int(value):,}"
    text = f"{value:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def pct(value: float, digits: int = 1) -> str:
    return f"{num(value, digits)}%"


def nums(values: Iterable[float], digits: int = 2) -> list[str]:
    """``num`` of each value, in one pass: a long profile's messages format millions of numbers.
    (A whole number formatted with decimals and its zeros cut reads as ``num`` writes it.)"""
    if digits <= 0:
        spec = f",.{max(digits, 0)}f"
        return ["0" if (t := format(x, spec)) == "-0" else t for x in values]
    spec = f",.{digits}f"
    return ["0" if (t := format(x, spec).rstrip("0").rstrip(".")) == "-0" else t for x in values]


def pcts(values: Iterable[float], digits: int = 1) -> list[str]:
    """``pct`` of each value, in one pass."""
    return [f"{t}%" for t in nums(values, digits)]


def us(ns: float) -> str:
    """A duration in the unit that reads best: ns, µs, or ms from 10 ms up."""
    if ns < 1000:
        return f"{num(ns, 0)} ns"
    if ns < 1e7:
        return f"{num(ns / 1e3, 2)} µs"
    return f"{num(ns / 1e6, 2)} ms"


def size(nbytes: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{num(nbytes / scale, 1)} {unit}"
    return f"{num(nbytes, 0)} B"


DASH = "–"  # what reports and the UI print for a value the profile does not have


_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float, unit: str, digits: int = 3) -> str:
    """``value`` with an SI prefix and ``digits`` significant digits: 268 Mflop, 3.22 Tflop/s."""
    for scale, prefix in _SI:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


def decade(exponent: int) -> str:
    """10**exponent as a short axis label: 0.01, 1, 100, 10k, 1G, 100T (log-scale ticks)."""
    if exponent < 0:
        return f"{10.0**exponent:g}"
    for step, prefix in ((15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k")):
        if exponent >= step:
            return f"{10 ** (exponent - step)}{prefix}"
    return f"{10**exponent}"


def num_or_dash(value: float | None, digits: int = 2) -> str:
    return DASH if value is None else num(value, digits)


def pct_or_dash(value: float | None, digits: int = 1) -> str:
    return DASH if value is None else pct(value, digits)


def dims(values: tuple[int | None, ...]) -> str:
    """``32×32×1``, or a dash when a dimension is unknown."""
    return DASH if any(v is None for v in values) else "×".join(str(v) for v in values)


def count(n: int | float, noun: str, plural: str | None = None) -> str:
    """``1 launch``, ``2 launches``, ``1,024 launches``: a whole number (thousands separated)
    and its noun, singular for exactly one."""
    many = plural or (noun + "es" if noun.endswith(("s", "sh", "ch", "x")) else noun + "s")
    return f"{n:,.0f} {noun if n == 1 else many}"


def significant(value: float, digits: int = 2) -> str:
    """A number under 1 to ``digits`` significant digits (0.0038 -> 0.0038, 0.0303 -> 0.03);
    from 1 up, ``num``'s two decimals."""
    if value == 0 or abs(value) >= 1:
        return num(value, 2)
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    return num(round(value, decimals), decimals)


def waves(m: Mapping[str, float]) -> str:
    """Waves per SM. Nsight Compute prints two decimals, so a grid of a few blocks reads 0.00:
    there it is worked out again, grid / (SMs x resident blocks per SM, the lowest block limit)."""
    value = m.get("waves_per_sm")
    limits = [v for k, v in m.items() if k.startswith("block_limit_") and v]
    grid, sms = m.get("grid_size"), m.get("sm_count")
    if (value is None or value < 0.005) and grid and sms and limits:
        value = grid / (sms * min(limits))
    return DASH if value is None else significant(value)
