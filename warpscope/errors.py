"""Errors a user can act on: each names the file, the line and what was expected."""

from __future__ import annotations

import re

_LINE_BREAKS = re.compile(r"\s*[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+\s*")


class InputError(Exception):
    """An input file that cannot be read as a profile.

    The CLI prints ``str(error)`` as one line and exits with code 2.
    """

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        # one line, whatever the cause said (a parser's message may quote the file's line breaks)
        self.message = _LINE_BREAKS.sub(" ", message).strip()
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"
