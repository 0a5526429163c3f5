"""A compiled function's statements as generated Python source: one function per block.

The compiler builds closures (``compiler``); most of them also say how to write themselves
as source (a ``gen`` attribute). ``generate`` writes each block (a body, a branch, a loop's
body) as one Python function whose lines evaluate its statements and expressions in the
closures' order, calling the same runtime helpers with the operands computed inline: no
closure call per sub-expression, no loop over statements, one ``try`` per block instead of
one per statement. A node without ``gen`` (an intrinsic's call, a ``for`` over an array,
a device function's call) is called as its closure from the generated lines: the closures
stay because intrinsics build theirs from their operands' closures.

``WARPSCOPE_CODEGEN=1`` runs the generated source (see ``enabled`` for why it is not the
default). ``WARPSCOPE_EMULATOR_SOURCE=DIR`` also turns it on and writes it to
``DIR/<file>.<function>.py`` (``warpscope emulate --show-source DIR`` sets it), to read.
Python's ``compile`` of it costs more than generating it, so its bytecode is kept on disk
(``cachedir``), under the hash of the source and the interpreter: the source says
everything the code does (the objects it names are bound when it is generated), so a later
run of the same kernel, argument types and settings loads it instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from warpscope.emulator import ir
from warpscope.emulator.cachedir import cache_dir, write_atomically
from warpscope.emulator.errors import EmulatorError, UsedBeforeAssigned

#: where ``generate`` writes each function's source (unset: nowhere)
SOURCE_ENV = "WARPSCOPE_EMULATOR_SOURCE"
#: ``WARPSCOPE_CODEGEN=1`` runs generated code; otherwise the closures run themselves
SWITCH_ENV = "WARPSCOPE_CODEGEN"


def enabled() -> bool:
    """Whether kernels compile to generated code: off unless asked for (or ``SOURCE_ENV`` is
    set), because it is not faster. Measured on the corpus (first calls): its bytecode
    compiled costs a quarter more, loaded from the disk cache it is within a few percent of
    the closures, slower; repeated launches of one kernel run 3-5% faster. A statement's time
    is spent in the helpers both call (issuing, masks, numba's typing, numpy), not in the
    calls between closures that generating source removes."""
    return os.environ.get(SWITCH_ENV, "").strip() == "1" or bool(os.environ.get(SOURCE_ENV))


class Gen:
    """The source of one compiled function under construction: the objects its lines name
    (bound in the namespace it runs in), its blocks, and the statement it is at."""

    def __init__(self, name: str, file: str) -> None:
        self.name, self.file = name, file
        self.ns: dict[str, Any] = {
            "_EmulatorError": EmulatorError,
            "_unset": _unset,
            "_fault_at": ir.fault_at,
        }
        self._names: dict[int, str] = {}
        self._keep: list[Any] = []  # what the names refer to (ids stay unique while compiling)
        self.at: list[Any] = [None]  # per guarded statement: (line, construct, file); 0: none
        self.blocks: list[str] = []  # generated functions' sources, inner ones first
        self._lines: list[str] = []
        self._depth = 0
        self._temps = 0

    # -- names and lines ----------------------------------------------------------------
    def ref(self, obj: Any, hint: str = "k") -> str:
        """A name for ``obj`` in the generated code's namespace."""
        key = id(obj)
        name = self._names.get(key)
        if name is None:
            base = re.sub(r"\W", "_", getattr(obj, "__name__", "") or hint)[:24] or hint
            name = self._names[key] = f"_{base}_{len(self._names)}"
            self.ns[name] = obj
            self._keep.append(obj)
        return name

    def call(self, fn: Callable[..., Any], *constants: Any, **operands: str) -> str:
        """``fn(run, mask, *constants, *operands)`` into a new temporary (its name): constants
        are objects known when compiling, operands source from ``expr``."""
        args = ["run", "mask"]
        args += [repr(c) if c is None or type(c) in (bool, int) else self.ref(c) for c in constants]
        args += operands.values()
        t = self.temp()
        self.line(f"{t} = {self.ref(fn)}({', '.join(args)})")
        return t

    def temp(self) -> str:
        self._temps += 1
        return f"t{self._temps}"

    def line(self, text: str) -> None:
        self._lines.append("    " * self._depth + text)

    def indent(self, by: int) -> None:
        self._depth += by

    # -- nodes --------------------------------------------------------------------------
    def expr(self, node: Any) -> str:
        """An expression's value as source without side effects (a name or a constant): what
        evaluating it does is written as lines first, so operands run in the closures' order."""
        if isinstance(node, ir.Const):
            return self.ref(node.value)
        gen = getattr(node, "gen", None)
        if gen is not None:
            return str(gen(self))
        t = self.temp()
        self.line(f"{t} = {self.ref(node, 'expr')}(run, frame, mask)")
        return t

    def guarded(self, node: Any) -> str:
        """An expression ``at_line`` guards (an ``if`` test, a ``range`` bound): its errors are
        reported at its line by the block's handler."""
        at = getattr(node, "at", None)
        if at is None:
            return self.expr(node)
        self.line(f"_at = {self.at_index(at)}")
        return self.expr(node.inner)

    def at_index(self, at: tuple[int, Any, str]) -> int:
        self.at.append(at)
        return len(self.at) - 1

    def stmt(self, stmt: Any) -> None:
        at = getattr(stmt, "at", None)
        inner = stmt.inner if at is not None else stmt
        gen = getattr(inner, "gen", None)
        if at is not None:
            self.line(f"_at = {self.at_index(at)}")
        elif gen is None:
            self.line("_at = 0")  # its own errors pass as they are, as its closure's do
        if gen is not None:  # a statement without guard (if, for) guards what it evaluates
            gen(self)
            return
        self.line(f"mask = {self.ref(inner, 'stmt')}(run, frame, mask)")
        self.line("if mask is None:")
        self.line("    return None")

    def target(self, target: Any, value: str) -> None:
        """Assign ``value`` (source) to an assignment target (``Statements.target``'s closure)."""
        gen = getattr(target, "gen", None)
        if gen is not None:
            gen(self, value)
        else:
            self.line(f"{self.ref(target, 'target')}(run, frame, mask, {value})")

    def block(self, body: list[Any], hint: str = "block") -> str:
        """A list of statements as one generated function (``Stmt``'s signature); its name."""
        saved = self._lines, self._depth
        self._lines, self._depth = [], 1
        name = f"{hint}_{len(self.blocks)}"
        self.blocks.append("")  # its place: inner blocks are written before it returns
        slot = len(self.blocks) - 1
        self.line("_at = 0")
        self.line("try:")
        self.indent(1)
        for s in body:
            self.stmt(s)
        self.line("return mask")
        self.indent(-1)
        self.line("except _EmulatorError:")
        self.line("    raise")
        self.line("except Exception as e:")
        self.line("    if not _at:")
        self.line("        raise")
        self.line("    raise _fault_at(run, mask, e, *_AT[_at])  # noqa: B904")
        self.blocks[slot] = f"def {name}(run, frame, mask):\n" + "\n".join(self._lines)
        self._lines, self._depth = saved
        return name

    def source(self) -> str:
        head = f"# {self.name} in {self.file}: generated by warpscope.emulator.compiler.codegen\n"
        return head + "\n\n\n".join(self.blocks) + "\n"


def generate(name: str, file: str, body: list[Any]) -> ir.Stmt:
    """``body`` (a function's statements) as one generated function."""
    g = Gen(name, file)
    top = g.block(body, "body")
    source = g.source()
    g.ns["_AT"] = g.at
    exec(_bytecode(source, name), g.ns)
    folder = os.environ.get(SOURCE_ENV)
    if folder:
        _write(Path(folder), name, file, source)
    fn: ir.Stmt = g.ns[top]
    fn.source = source  # type: ignore[attr-defined]
    return fn


@contextlib.contextmanager
def showing_source(folder: Path | None) -> Iterator[None]:
    """Inside the block, kernels compile to generated code written to ``folder`` (None: as
    they would anyway)."""
    before = os.environ.get(SOURCE_ENV)
    if folder is not None:
        os.environ[SOURCE_ENV] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SOURCE_ENV, None)
        else:
            os.environ[SOURCE_ENV] = before


def _bytecode(source: str, name: str) -> Any:
    """``compile(source)``, from the disk cache where this interpreter compiled it before."""
    key = hashlib.blake2b(f"{sys.implementation.cache_tag}\n{source}".encode(), digest_size=16).hexdigest()
    path = cache_dir() / "codegen" / key[:2] / f"{key}.bin"
    try:
        return marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass  # not there (or damaged): compile it
    code = compile(source, f"<warpscope generated: {name}>", "exec")
    with contextlib.suppress(OSError):  # a read-only cache: compiled each time, the same code
        write_atomically(path, marshal.dumps(code))
    return code


def _unset(name: str) -> Any:
    raise UsedBeforeAssigned(f"'{name}' is used before it is assigned")


def _write(folder: Path, name: str, file: str, source: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]", "_", f"{Path(file).stem}.{name}")
    path = folder / f"{stem}.py"
    n = 1
    while path.exists() and path.read_text() != source:  # another specialisation of it
        n += 1
        path = folder / f"{stem}.{n}.py"
    path.write_text(source)


def gen_of(fn: Callable[..., Any], gen: Callable[..., Any]) -> Any:
    """``fn`` (a closure) that writes itself as source with ``gen``."""
    fn.gen = gen  # type: ignore[attr-defined]
    return fn
