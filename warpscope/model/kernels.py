"""Kernel names: the stable short name used to group one kernel across runs and tools."""

from __future__ import annotations

import re

_INT_CAST = re.compile(r"\((?:unsigned |signed )?(?:int|long|short|char|bool|long long|unsigned)\)(-?\d)")
_SUFFIX_ID = re.compile(r"\s\[\d+\]$")  # nvprof's " [1166]" correlation suffix


def short_name(kernel: str | None) -> str | None:
    """'void matmulTiled<(int)16, (int)0>(const float *, ...)' -> 'matmulTiled<16, 0>'.

    Drops the return type and the parameter list, writes template integer casts as
    plain numbers and collapses white space, so ncu (any version), nvprof and the
    emulator name the same kernel the same way. The verbatim name stays in ``kernel``.
    """
    if kernel is None:
        return None
    name = _SUFFIX_ID.sub("", kernel.strip())
    name = _strip_params(name)
    name = _INT_CAST.sub(r"\1", name)
    name = _strip_return_type(name)
    name = re.sub(r"\s+", " ", name).strip()
    name = re.sub(r"\s*,\s*", ", ", name)
    return name or kernel


def _strip_params(name: str) -> str:
    """Remove the trailing '(...)' parameter list, respecting nested brackets."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        ch = name[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                head = name[:i].rstrip()
                return head if head else name
    return name


def _strip_return_type(name: str) -> str:
    """Drop what precedes the function name at template depth 0 ('void ', 'enable_if<..>::type ')."""
    depth = 0
    cut = -1
    for i, ch in enumerate(name):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == " " and depth == 0:
            cut = i
    return name[cut + 1 :] if cut >= 0 else name
