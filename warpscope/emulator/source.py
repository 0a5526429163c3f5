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
    return FunctionSource(name, file, tree, offset, lines, environment(fn))


def environment(fn: Callable[..., Any]) -> ChainMap[str, Any]:
    """The names a function's body sees: its closure variables (those assigned), then its
    module's globals."""
    code = fn.__code__
    closure = {n: c.cell_contents for n, c in zip(code.co_freevars, fn.__closure__ or ()) if _filled(c)}
    return ChainMap(closure, fn.__globals__)


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


#: per source file: (its lines as read, the functions found in it so far by (name, first
#: line), its name as ``inspect.getsourcefile`` gives it); the trees are shared between
#: compilations, which never change them
_MODULES: dict[str, tuple[list[str], dict[tuple[str, int], ast.FunctionDef | None], str]] = {}


def _from_module(fn: Callable[..., Any]) -> tuple[str, ast.FunctionDef, dict[int, str]] | None:
    """The function's definition in its file (what ``inspect`` finds, without tokenizing the
    file again for every function), parsed once per file and function; None where that fails."""
    code = getattr(fn, "__code__", None)
    file = getattr(code, "co_filename", "")
    if code is None or not file or file.startswith("<"):
        return None
    linecache.checkcache(file)  # a file edited since it was read (a module reloaded): read anew
    raw = linecache.getlines(file, getattr(fn, "__globals__", None))
    if not raw:
        return None
    known = _MODULES.get(file)
    if known is None or known[0] != raw:
        # a .py file linecache just read is its own source file (inspect's answer, without its stat)
        named = file if file.endswith(".py") else inspect.getsourcefile(fn) or file
        known = _MODULES[file] = (raw, {}, named)
    first = code.co_firstlineno
    key = (code.co_name, first)
    trees = known[1]
    if key not in trees:
        tree = _top_level_definition(raw, *key)
        if tree is None:  # defined inside another (a kernel factory): its top-level block's
            trees.update(_enclosing_definitions(raw, first) or _all_definitions(raw))
        trees.setdefault(key, tree)
    tree = trees[key]
    if tree is None or tree.end_lineno is None:
        return None
    lines = {i: raw[i - 1].rstrip("\n") for i in range(first, tree.end_lineno + 1)}
    return known[2], tree, lines


def _top_level_definition(raw: list[str], name: str, first: int) -> ast.FunctionDef | None:
    """A function defined at the file's top level, parsed alone: its lines (decorators on) up
    to the next line after its ``def`` that starts in the first column (not a comment), after as many empty lines as put it at
    its line in the file (the tree is the whole file's tree of it, line for line). A cut inside
    a bracket or string does not parse: None, and the caller parses the whole file."""
    if first > len(raw) or raw[first - 1][:1] in ("", " ", "\t"):
        return None
    end = first - 1
    while end < len(raw) and not raw[end].startswith(("def ", "async def ")):
        end += 1  # past the decorators
    end += 1
    while end < len(raw) and (not raw[end].strip() or raw[end][:1] in (" ", "\t", "#", "\n")):
        end += 1
    while end > first and not raw[end - 1].strip():
        end -= 1
    try:
        module = ast.parse("\n" * (first - 1) + "".join(raw[first - 1 : end]))
    except (SyntaxError, ValueError):
        return None
    body = module.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != name:
        return None
    return body[0]


def _enclosing_definitions(raw: list[str], line: int) -> dict[tuple[str, int], ast.FunctionDef | None]:
    """Every function defined in the top-level statement that holds ``line`` (its decorators
    on, up to the next line that starts in the first column), parsed alone as
    ``_top_level_definition`` parses one: a kernel a factory function defines costs the
    factory's parse, not the file's (a factory kernel in a 737-line module: its first launch
    4.6-4.9 ms with the whole file parsed, 1.5-1.8 with its factory alone). Empty where the
    cut does not parse (the caller parses the file)."""
    start = min(line, len(raw))
    while start > 1 and raw[start - 1][:1] in ("", " ", "\t", "#", "\n"):
        start -= 1  # up to the statement's first line, in the first column
    while start > 1 and raw[start - 2].startswith("@"):
        start -= 1  # and its decorators
    end = start - 1
    while end < len(raw) and raw[end].startswith("@"):
        end += 1  # past the decorators
    end += 1  # and the statement's first line
    while end < len(raw) and (not raw[end].strip() or raw[end][:1] in (" ", "\t", "#", "\n")):
        end += 1
    return _parsed_definitions("\n" * (start - 1) + "".join(raw[start - 1 : end]))


def _all_definitions(raw: list[str]) -> dict[tuple[str, int], ast.FunctionDef | None]:
    """Every function the file defines, nested ones included, by (name, first line): the
    whole file parsed (empty where it does not parse)."""
    return _parsed_definitions("".join(raw))


def _parsed_definitions(text: str) -> dict[tuple[str, int], ast.FunctionDef | None]:
    """Every function ``text`` defines, nested ones included, by (name, first line, its
    decorators counted); empty where it does not parse."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    return {
        (n.name, min([n.lineno, *(d.lineno for d in n.decorator_list)])): n
        for n in _definitions(list(module.body))
    }


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
