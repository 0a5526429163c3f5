"""Kernel names shortened for a table cell: the head and the tail kept, the middle elided.

C++ kernel names (PyTorch, cuDNN, CUTLASS) share long heads and differ in their last template
arguments, so a cut at the end makes them read alike; the tail stays. The full name is shown once,
in the kernel's own section (the report) or the line under the table (the UI).
"""

from __future__ import annotations

ELLIPSIS = "…"
#: characters of a kernel name in a report table
TABLE_WIDTH = 60
#: characters of a kernel name in a section heading (the full name follows it)
HEADING_WIDTH = 100


def middle(name: str, width: int = TABLE_WIDTH) -> str:
    """``name`` in at most ``width`` characters: its start and its end, ``…`` between (the end a
    character longer, where the template arguments that tell kernels apart are)."""
    width = max(width, 3)
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    tail = width - 1 - head
    return name[:head] + ELLIPSIS + name[len(name) - tail :]
