"""Markdown cut to fit a GitHub comment: the head whole, then as many sections as fit, in order,
and a closing line saying what was left out (``report`` and ``diff`` on stdout)."""

from __future__ import annotations

#: what a GitHub comment holds: the default report and diff on stdout fit
COMMENT_BUDGET = 65_536
#: characters kept for the closing line
RESERVE = 400


def size(lines: list[str]) -> int:
    """Characters of ``lines`` joined one per line."""
    return sum(len(x) + 1 for x in lines)


def fit_sections(head: list[str], sections: list[list[str]], budget: int) -> tuple[list[str], int]:
    """``head`` and then the ``sections`` that fit in ``budget`` (less the closing line's
    reserve), stopping at the first that does not; and how many were written."""
    out, written = list(head), 0
    for section in sections:
        if size(out) + size(section) > budget - RESERVE:
            break
        out += section
        written += 1
    return out, written


def cut_note(budget: int, written: int, total: int, what: str, whole: str) -> list[str]:
    """The closing lines of a cut document: ``written`` of ``total`` ``what``, and how to get it
    ``whole``."""
    return [
        "",  # ends a table the cut fell inside
        "---",
        "",
        f"Cut to fit {budget:,} characters (what a GitHub comment holds): {written} of {total} "
        f"{what}. {whole}",
    ]
