"""Errors a user can act on: each names the file, the line and what was expected."""

from __future__ import annotations

import re
import shlex

#: a line break and the white space after it. A match starts only at a break, so the pattern is
#: linear in the text (a leading ``\s*`` rescans a long run of spaces from each of its characters)
_BREAK_RUN = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]\s*")


def one_line(text: str) -> str:
    """``text`` with each run of white space that holds a line break made one space."""
    return " ".join(part.rstrip() for part in _BREAK_RUN.sub("\n", text).split("\n")).strip()


class InputError(Exception):
    """An input file that cannot be read as a profile.

    The CLI prints ``str(error)`` as one line and exits with code 2.
    """

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        # one line, whatever the cause said (a parser's message may quote the file's line breaks)
        self.message = one_line(message)
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


#: suffixes of a Python file, which ``warpscope emulate`` runs (a kernel, not a profile)
PYTHON_SUFFIXES = (".py", ".pyw")


def python_file_error(path: str) -> InputError | None:
    """The error for a Python file given where a profile is expected: it says which command
    runs its kernels. ``None`` for any other name."""
    if not path.lower().endswith(PYTHON_SUFFIXES):
        return None
    return InputError(
        path,
        f"a Python file, not a profile; to run its kernels on the emulator: warpscope emulate {shlex.quote(path)}",
    )
