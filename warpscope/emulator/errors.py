"""Errors an emulated kernel stops with: where (file, line, kernel, block, thread) and what."""

from __future__ import annotations


class EmulatorError(Exception):
    """A kernel that cannot be emulated or that failed while running; ``str()`` is one line."""


class UnsupportedError(EmulatorError):
    """Source outside the kernel language, found when the kernel is first launched."""

    def __init__(self, file: str, line: int, what: str) -> None:
        super().__init__(f"{file}:{line}: {what}")
        self.file, self.line, self.what = file, line, what


class KernelFault(EmulatorError):
    """A running kernel stopped: out-of-bounds access, instruction budget, bad barrier, exception."""

    def __init__(
        self,
        kernel: str,
        file: str,
        line: int,
        what: str,
        block: tuple[int, int, int] | None = None,
        thread: tuple[int, int, int] | None = None,
    ) -> None:
        where = ""
        if block is not None and thread is not None:
            where = (
                f", block ({block[0]}, {block[1]}, {block[2]}) thread ({thread[0]}, {thread[1]}, {thread[2]})"
            )
        super().__init__(f"{file}:{line}: kernel {kernel}{where}: {what}")
        self.kernel, self.file, self.line, self.what = kernel, file, line, what
        self.block, self.thread = block, thread


class InternalError(EmulatorError):
    """A Python exception inside the emulator itself: warpscope's bug, never the kernel's."""

    def __init__(self, file: str, line: int, construct: str, error: BaseException) -> None:
        cause = f"{type(error).__name__}: {error}".splitlines()[0][:200]
        super().__init__(
            f"{file}:{line}: internal error in warpscope while emulating `{construct}` ({cause}); "
            "this is warpscope's fault, not the kernel's: please report it"
        )
        self.file, self.line, self.construct = file, line, construct


class KernelMistake(Exception):
    """The kernel's own error found as it runs (numba would refuse the code, or the GPU would
    fault): ``ir.at_line`` reports it as a fault at the kernel's line, named as ``kind``."""

    kind = "TypeError"


class UsedBeforeAssigned(KernelMistake):
    """A variable read on a path where the kernel never assigned it."""

    kind = "NameError"


class NotEmulated(Exception):
    """A construct the emulator finds it cannot run only once it sees the values: ``ir.at_line``
    reports it as unsupported at the kernel's line."""


def users(error: BaseException) -> BaseException:
    """``error`` marked as the user's own (host code misusing the API, or naming what is not
    emulated): ``runner`` reports it at the user's line, never as warpscope's internal error."""
    error.warpscope_user = True  # type: ignore[attr-defined]
    return error
