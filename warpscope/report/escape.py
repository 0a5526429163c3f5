"""Showing untrusted text (kernel names, file content) inertly.

Control characters (C0, C1, DEL) and Unicode bidirectional controls are written as
visible escapes (``\\x1b``, ``\\u202e``), so an ANSI/OSC sequence or a reversed name
in a profile can never act on a terminal or mislead a reader.
"""

from __future__ import annotations

import re
from functools import lru_cache

_UNSAFE_CODES = [
    *range(0x20),
    *range(0x7F, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
# str.translate runs in C: a 3 MB name of escape sequences takes milliseconds, not seconds
_VISIBLE = {code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _UNSAFE_CODES}


def visible(text: str) -> str:
    """``text`` with control and bidi characters replaced by their escapes."""
    return text.translate(_VISIBLE)


_MD_ESCAPED = {ord(ch): "\\" + ch for ch in "\\`*_[]<>|~"} | {ord("&"): "&amp;"}


# cached: a report names a kernel in several places (fix first, the kernel table, its section,
# a run finding), and escaping a fuzzed 15 MB name takes a third of a second each time
@lru_cache(maxsize=256)
def md_cell(text: str | None) -> str:
    """Text for one GitHub markdown table cell: escaped, one line, no HTML."""
    if text is None:
        return ""
    text = visible(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    return text.translate(_MD_ESCAPED)


_PLAIN_ID = re.compile(r"[A-Za-z0-9_.]+")


def md_code(text: str | None) -> str:
    """An identifier (rule, metric, stall reason) as inline code; anything else escaped."""
    if text and _PLAIN_ID.fullmatch(text):
        return f"`{text}`"
    return md_cell(text)


def md_prose(text: str | None) -> str:
    """warpscope's own prose: `code` spans kept as code, everything between them escaped.

    Only for text warpscope writes (rule messages and fixes); text from a file goes
    through ``md_cell``.
    """
    if text is None:
        return ""
    parts = text.replace("\n", " ").split("`")
    if len(parts) % 2 == 0:  # unbalanced: show it all literally
        return md_cell(text)
    return "".join(
        md_cell(p) if i % 2 == 0 else f"`{visible(p).replace(chr(10), ' ')}`" for i, p in enumerate(parts)
    )
