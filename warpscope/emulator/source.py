"""A kernel's source as the compiler needs it: AST, file and line numbers, names it sees."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections import ChainMap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from warpscope.emulator.errors import UnsupportedError


@dataclass
class FunctionSource:
    name: str
    file: str
    tree: ast.FunctionDef
    line_offset: int  # add to the AST's line numbers to get the file's
    lines: dict[int, str]  # file line -> its text
    environment: ChainMap[str, Any]  # closure variables, then module globals


def function_source(fn: Callable[..., Any]) -> FunctionSource:
    given = getattr(fn, "__warpscope_source__", None)
    if isinstance(given, FunctionSource):  # an inner function: its source is its parent's
        return given
    name = getattr(fn, "__name__", "kernel")
    try:
        file = inspect.getsourcefile(fn) or "<unknown>"
        raw, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise UnsupportedError("<unknown>", 0, f"cannot read the source of {name}: {e}") from None
    text = textwrap.dedent("".join(raw))
    try:
        module = ast.parse(text)
    except SyntaxError as e:
        raise UnsupportedError(file, first + (e.lineno or 1) - 1, f"cannot parse {name}: {e.msg}") from None
    tree = next((n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if not isinstance(tree, ast.FunctionDef):
        raise UnsupportedError(file, first, f"{name} is not a plain function")
    lines = {first + i: line.rstrip("\n") for i, line in enumerate(raw)}
    code = fn.__code__
    closure = {n: c.cell_contents for n, c in zip(code.co_freevars, fn.__closure__ or ()) if _filled(c)}
    return FunctionSource(name, file, tree, first - 1, lines, ChainMap(closure, fn.__globals__))


def _filled(cell: Any) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True
