"""Untrusted text and numbers as the UI shows them.

Everything from a file (kernel names, paths, ncu rule messages) goes through ``literal``:
a ``rich.text.Text`` is never parsed as markup, and ``visible`` turns control and bidi
characters into escapes, so nothing in a profile can style, move or talk to the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from warpscope.analysis.text import DASH, dims, us
from warpscope.analysis.text import num_or_dash as n
from warpscope.analysis.text import pct_or_dash as p
from warpscope.report.escape import visible
from warpscope.report.names import middle

__all__ = ["DASH", "dims", "literal", "n", "one_line", "p", "short_name", "t", "tsv"]


def literal(text: object, style: str = "") -> Text:
    """``text`` shown exactly as written (escapes for control characters), never as markup."""
    return Text(visible("" if text is None else str(text)), style=style, no_wrap=False)


def one_line(text: object, limit: int = 200) -> str:
    """Untrusted text on one line, cut to ``limit`` characters."""
    flat = visible(" ".join(str(text or "").split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def short_name(text: object, width: int) -> str:
    """A kernel name on one line in at most ``width`` characters, its middle elided (the head
    and the tail, where template arguments differ, kept: ``report/names.py``)."""
    return middle(visible(" ".join(str(text or "").split())), width)


def tsv(header: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """Rows as tab-separated values under a header line, as a spreadsheet pastes them: a tab or
    line break inside a value becomes a space, a missing value an empty cell."""

    def cell(value: object) -> str:
        return "" if value is None else " ".join(str(value).replace("\t", " ").splitlines())

    return "".join("\t".join(cell(v) for v in line) + "\n" for line in (header, *rows))


def t(ns: float | None) -> str:
    return DASH if ns is None else us(ns)
