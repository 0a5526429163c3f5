"""A kernel's source as the compiler needs it: AST, file and line numbers, names it sees."""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from collections import ChainMap
from collections.abc import Callable, Iterator
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
    found = _from_module(fn)
    if found is not None:
        file, tree, lines = found
        offset = 0
    else:
        file, tree, lines, offset = _from_inspect(fn, name)
    code = fn.__code__
    closure = {n: c.cell_contents for n, c in zip(code.co_freevars, fn.__closure__ or ()) if _filled(c)}
    return FunctionSource(name, file, tree, offset, lines, ChainMap(closure, fn.__globals__))


def _from_inspect(fn: Callable[..., Any], name: str) -> tuple[str, ast.FunctionDef, dict[int, str], int]:
    """The function's own lines, dedented and parsed alone (``inspect``: slow, any function)."""
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
    return file, tree, lines, first - 1


#: per source file: (its lines as read, the functions it defines by (name, first line)); the
#: trees are shared between compilations, which never change them
_MODULES: dict[str, tuple[list[str], dict[tuple[str, int], ast.FunctionDef]]] = {}


def _from_module(fn: Callable[..., Any]) -> tuple[str, ast.FunctionDef, dict[int, str]] | None:
    """The function's definition in its file parsed whole, once per file (what ``inspect``
    finds, without tokenizing the file again for every function); None where that fails."""
    code = getattr(fn, "__code__", None)
    file = getattr(code, "co_filename", "")
    if code is None or not file or file.startswith("<"):
        return None
    raw = linecache.getlines(file, getattr(fn, "__globals__", None))
    if not raw:
        return None
    known = _MODULES.get(file)
    if known is None or known[0] != raw:
        try:
            module = ast.parse("".join(raw))
        except SyntaxError:
            return None
        defs = {
            (n.name, min([n.lineno, *(d.lineno for d in n.decorator_list)])): n
            for n in _definitions(list(module.body))
        }
        known = _MODULES[file] = (raw, defs)
    tree = known[1].get((code.co_name, code.co_firstlineno))
    if tree is None or tree.end_lineno is None:
        return None
    first = code.co_firstlineno
    lines = {i: raw[i - 1].rstrip("\n") for i in range(first, tree.end_lineno + 1)}
    return inspect.getsourcefile(fn) or file, tree, lines


def _definitions(body: list[ast.AST]) -> Iterator[ast.FunctionDef]:
    """Every function defined in these statements (and except handlers, match cases), nested
    ones included (a definition is a statement: expressions are not searched)."""
    for node in body:
        if isinstance(node, ast.FunctionDef):
            yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from _definitions([n for n in inner if isinstance(n, ast.AST)])


def _filled(cell: Any) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True
