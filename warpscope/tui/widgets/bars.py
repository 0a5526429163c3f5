"""Horizontal bar charts as Rich text: a bar, its value and its label on one line.

The bar's length carries the value and the number is printed beside it, so the chart
reads the same in monochrome (``NO_COLOR``) as in colour.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text

FULL, PARTS = "█", " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int) -> str:
    """A bar of ``fraction`` (0..1) of ``width`` cells, in eighths."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    whole, part = divmod(eighths, 8)
    return (FULL * whole + (PARTS[part] if part else "")).ljust(width)


def bar_chart(
    rows: Iterable[tuple[str, float, str]],
    scale: float,
    width: int = 30,
    style: str = "bold",
    label_style: str = "",
) -> Table:
    """One line per (label, value, value text): label, bar of value/scale, value text."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, justify="right")
    for label, value, text in rows:
        table.add_row(
            Text(label, style=label_style),
            Text(bar(value / scale if scale else 0.0, width), style=style),
            Text(text),
        )
    return table
