"""Showing untrusted text (kernel names, file content) inertly.

Control characters (C0, C1, DEL) and Unicode bidirectional controls are written as
visible escapes (``\\x1b``, ``\\u202e``), so an ANSI/OSC sequence or a reversed name
in a profile can never act on a terminal or mislead a reader.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` with control and bidi characters replaced by their escapes."""
    return _UNSAFE.sub(lambda m: _escape(m.group()), text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def md_cell(text: str | None) -> str:
    """Text for one GitHub markdown table cell: escaped, one line, no HTML."""
    if text is None:
        return ""
    text = visible(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    return _MD_SPECIAL.sub(r"\\\1", text).replace("&", "&amp;")


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
    return "".join(md_cell(p) if i % 2 == 0 else f"`{visible(p).replace(chr(10), ' ')}`"
                   for i, p in enumerate(parts))
