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
