"""Untrusted text and numbers as the UI shows them.

Everything from a file (kernel names, paths, ncu rule messages) goes through ``literal``:
a ``rich.text.Text`` is never parsed as markup, and ``visible`` turns control and bidi
characters into escapes, so nothing in a profile can style, move or talk to the terminal.
"""

from __future__ import annotations

from rich.text import Text

from warpscope.analysis.text import num, pct, us
from warpscope.report.escape import visible

DASH = "–"


def literal(text: object, style: str = "") -> Text:
    """``text`` shown exactly as written (escapes for control characters), never as markup."""
    return Text(visible("" if text is None else str(text)), style=style, no_wrap=False)


def one_line(text: object, limit: int = 200) -> str:
    """Untrusted text on one line, cut to ``limit`` characters."""
    flat = visible(" ".join(str(text or "").split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def n(value: float | None, digits: int = 2) -> str:
    return DASH if value is None else num(value, digits)


def p(value: float | None, digits: int = 1) -> str:
    return DASH if value is None else pct(value, digits)


def t(ns: float | None) -> str:
    return DASH if ns is None else us(ns)


def dims(values: tuple[int | None, ...]) -> str:
    return DASH if any(v is None for v in values) else "×".join(str(v) for v in values)
