"""'Did you mean' for a misspelt name: the closest of the names that exist (difflib)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean achieved_occupancy_pct?)"`` for the choice closest to ``word``, or ``""``
    where none is close (``difflib.get_close_matches``' ratio of 0.6)."""
    close = difflib.get_close_matches(word, sorted(set(choices)), n=1)
    return f" (did you mean {close[0]}?)" if close else ""
