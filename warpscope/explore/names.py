"""Kernel names that fit a column and still tell kernels apart.

A PyTorch or CUTLASS profile has kernels whose short names share a long head
(``at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, ...``) and differ deep in
their template arguments: cut at the end to a column's width, they read the same. So a
label drops namespace qualifiers first (the part of a C++ name that differs least), then,
where a name is still too long, keeps its head and the stretch where it first differs from
its nearest neighbour, eliding the rest with "…". Labels are distinct wherever the names
are; the full name stays in the data (and the UI shows it for the selected row).
"""

from __future__ import annotations

import os
import re
from collections import Counter

ELLIPSIS = "…"
#: ``ns::`` qualifiers (``(anonymous namespace)::`` and ncu's ``<unnamed>::`` too), inside templates too.
#: A qualifier starts a word: tried inside one, ``\w*`` would rescan the word's rest from every
#: letter, quadratic in its length (a 100 kB name took most of a minute; now milliseconds)
_QUALIFIER = re.compile(r"(?:\(anonymous namespace\)|<unnamed>|(?<!\w)[A-Za-z_]\w*)::")
_HEAD = 16  # characters of a name's start kept before an elision, at most


def labels(names: list[str], width: int) -> dict[str, str]:
    """A label of at most ``width`` characters for each distinct name, distinct from the
    other labels wherever the names differ."""
    width = max(width, 8)
    unique = list(dict.fromkeys(names))
    compact = {name: _QUALIFIER.sub("", name) for name in unique}
    # two names that differ only in their namespaces keep them
    seen = Counter(compact.values())
    forms = {name: compact[name] if seen[compact[name]] == 1 else name for name in unique}
    differs = _first_difference(list(forms.values()))
    out = {name: _fit(forms[name], differs[forms[name]], width) for name in unique}
    return _disambiguated(out, width)


def _first_difference(forms: list[str]) -> dict[str, int]:
    """Per name, where it first differs from the name most like it (its neighbours in sorted
    order share the longest prefixes)."""
    ordered = sorted(set(forms))
    out = {}
    for i, form in enumerate(ordered):
        common = 0
        for j in (i - 1, i + 1):
            if 0 <= j < len(ordered):
                # character by character is what is wanted: these are names, not paths
                common = max(common, len(os.path.commonprefix([form, ordered[j]])))  # noqa: RUF071
        out[form] = common
    return out


def _fit(name: str, differs_at: int, width: int) -> str:
    if len(name) <= width:
        return name
    if differs_at < width - 1:  # the end is the least telling part: cut it
        return name[: width - 1] + ELLIPSIS
    head = min(_HEAD, width // 3)
    room = width - head - 1  # after the head and its ellipsis
    # the stretch shown starts a little before the difference, and ends the name if it can
    start = max(head + 1, min(differs_at - room // 3, len(name) - room))
    rest = name[start:]
    if len(rest) > room:
        rest = rest[: room - 1] + ELLIPSIS
    return name[:head] + ELLIPSIS + rest


def _disambiguated(out: dict[str, str], width: int) -> dict[str, str]:
    """Labels that still collide (names differing only past what fits) get a running number."""
    by_label: dict[str, list[str]] = {}
    for name, label in out.items():
        by_label.setdefault(label, []).append(name)
    for label, names in by_label.items():
        if len(names) < 2:
            continue
        for k, name in enumerate(names, 1):
            mark = f" #{k}"
            base = label if len(label) + len(mark) <= width else label[: width - len(mark) - 1] + ELLIPSIS
            out[name] = base + mark
    return out
