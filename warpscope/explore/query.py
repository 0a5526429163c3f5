"""Filter expressions for the kernel table: ``achieved_occupancy_pct < 50 and kernel ~ reduce``.

A tiny grammar compiled to a Polars expression, never evaluated as Python:

    expr   := term ("or" term)*
    term   := factor ("and" factor)*
    factor := "not" factor | "(" expr ")" | NAME OP VALUE | NAME "~" TEXT
    OP     := < <= > >= == = !=          (numbers; == and != also compare text)

NAME is a column of the table (``duration_ns``, ``launches``, ``registers_per_thread``,
``block_size``, ``grid_size``, ``kernel``, ``top_stall``...), any canonical metric id
(``warpscope metrics``), or a metric name as the file exported it
(``dram__bytes_read.sum``; in base units, like the canonical ones); ``~`` is a
case-insensitive substring test. A launch without the metric does not match.
Hand-written because no library parses this small a language more simply, and an
``eval`` of user text is not an option.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import polars as pl

from warpscope.model.catalog import BY_ID as CATALOG
from warpscope.model.suggest import did_you_mean

if TYPE_CHECKING:
    from warpscope.explore.table import KernelTable

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(?![\w.])
  | (?P<op><=|>=|==|!=|<|>|=|~)
  | (?P<paren>[()])
  | (?P<str>"[^"]*"|'[^']*')
  | (?P<word>[A-Za-z_][\w.:<>*&-]*)
)""",
    re.VERBOSE,
)
_TEXT_COLUMNS = (
    "kernel",
    "kernel_short",
    "source_file",
    "device",
    "grid",
    "block",
    "top_stall",
    "worst_finding",
    "compute_capability",
)
_NUMERIC_COLUMNS = (
    "launch_id",
    "duration_ns",
    "registers_per_thread",
    "static_shared_bytes",
    "dynamic_shared_bytes",
    "grid_size",
    "block_size",
    "bank_conflicts",
)
_CMP = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "=": "eq", "!=": "ne"}


def names() -> list[str]:
    """Every NAME an expression may use (for completion and help)."""
    return sorted({*_TEXT_COLUMNS, *_NUMERIC_COLUMNS, *CATALOG})


def compile_filter(text: str, table: KernelTable) -> pl.Expr:
    """The Polars expression for ``text`` over ``table.launches``; ``ValueError`` says what is wrong."""
    tokens = _tokenize(text)
    parser = _Parser(tokens, table, text)
    expr = parser.expr()
    if parser.pos < len(tokens):
        raise ValueError(f"unexpected {tokens[parser.pos][1]!r} at column {tokens[parser.pos][2] + 1}")
    return expr.fill_null(False)


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"cannot read {text[pos:].strip()[:20]!r} at column {pos + 1}")
        kind = m.lastgroup or ""
        start = m.start(kind)
        tokens.append((kind, m.group(kind), start))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str, int]], table: KernelTable, text: str) -> None:
        self.tokens, self.table, self.text, self.pos = tokens, table, text, 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, kind: str | None = None, value: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if token is None:
            raise ValueError(f"expression ends early: {self.text.strip()!r} needs more")
        if (kind and token[0] != kind) or (value and token[1].lower() != value):
            want = value or {"num": "a number", "op": "a comparison", "word": "a metric name"}.get(
                kind or "", kind
            )
            raise ValueError(f"expected {want} at column {token[2] + 1}, found {token[1]!r}")
        self.pos += 1
        return token

    def _keyword(self, word: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "word" and token[1].lower() == word:
            self.pos += 1
            return True
        return False

    def expr(self) -> pl.Expr:
        out = self.term()
        while self._keyword("or"):
            out = out.fill_null(False) | self.term().fill_null(False)
        return out

    def term(self) -> pl.Expr:
        out = self.factor()
        while self._keyword("and"):
            out = out.fill_null(False) & self.factor().fill_null(False)
        return out

    def factor(self) -> pl.Expr:
        if self._keyword("not"):
            return ~self.factor().fill_null(False)
        token = self.peek()
        if token is not None and token[1] == "(":
            self.take("paren")
            inner = self.expr()
            self.take("paren", ")")
            return inner
        return self.comparison()

    def comparison(self) -> pl.Expr:
        _, name, at = self.take("word")
        _, op, op_at = self.take("op")
        kind, raw, value_at = self.take()
        value = raw[1:-1] if kind == "str" else raw
        if name in _TEXT_COLUMNS:
            column = pl.col(name).fill_null("")
            if op == "~":
                return column.str.to_lowercase().str.contains(value.lower(), literal=True)
            if op in ("==", "=", "!="):
                return (column == value) if op != "!=" else (column != value)
            raise ValueError(f"{name} is text: use ~, == or != (column {op_at + 1})")
        if name not in _NUMERIC_COLUMNS and not self.table.has_metric(name):
            raise ValueError(
                f"unknown name {name!r} at column {at + 1}{did_you_mean(name, names())}: use a "
                "canonical metric id (press g for the glossary), a metric name the file has, or a "
                "table column such as duration_ns"
            )
        if op == "~":
            raise ValueError(
                f"{name} is a number: compare it with <, <=, >, >=, == or != (column {op_at + 1})"
            )
        if kind != "num":
            raise ValueError(f"expected a number after {name} {op} at column {value_at + 1}, found {raw!r}")
        if name in self.table.launches.columns:
            column = pl.col(name)
        else:
            column = pl.lit(self.table.metric(name))
        return getattr(column, _CMP[op])(float(value))
