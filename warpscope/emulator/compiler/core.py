"""``Compiler``: a whole kernel or device function, from its source to a ``Function``."""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field

from warpscope.emulator.compiler import codegen
from warpscope.emulator.compiler.base import nodes_under, read_names
from warpscope.emulator.compiler.loops import Loops
from warpscope.emulator.ir import Function


class Compiler(Loops):
    """Compiles one Python function; device functions it calls are compiled and inlined."""

    def compile(self) -> Function:
        tree = self.src.tree
        args = tree.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise self.unsupported(
                tree,
                "kernel parameters must be positional names (no *args, **kwargs or keyword-only)",
            )
        params = [a.arg for a in args.args]
        defaults = tuple(getattr(self.fn, "__defaults__", None) or ())
        if len(defaults) != len(args.defaults):
            raise self.unsupported(tree, "parameter defaults must be values known when the module loads")
        self.assign_counts = _assignment_counts(tree)
        assigned = set(self.assign_counts)
        self.locals = set(params) | assigned
        self.register_names = register_names(tree, params)
        self.param_types = {
            p: t for p, t in zip(params, self.arg_types) if p not in assigned and t is not None
        }
        body = self.block(tree.body)
        if codegen.enabled():
            body = [codegen.generate(self.src.name, self.file, body)]
        return Function(
            self.src.name,
            self.file,
            params,
            body,
            self.src.lines,
            self.shared,
            self.table,
            [self.var(p) for p in params],
            frozenset(self.return_deps),
            self.grid_sync,
            defaults,
        )


@dataclass
class _Scan:
    """What one walk of a function's tree finds: each name it assigns and how often, each
    ``range`` loop's counter (its loops' bounds, how many loops), each name set by one plain
    assignment (its value), and the names set once (``register_names``, once asked)."""

    counts: dict[str, int] = field(default_factory=dict)
    range_bounds: dict[str, list[ast.expr]] = field(default_factory=dict)
    range_loops: dict[str, int] = field(default_factory=dict)
    single: dict[str, ast.expr] = field(default_factory=dict)
    set_once: frozenset[str] | None = None


#: per function tree (shared between its compilations: ``source``), what a walk of it finds
_SCANS: weakref.WeakKeyDictionary[ast.FunctionDef, _Scan] = weakref.WeakKeyDictionary()


def _scan(tree: ast.FunctionDef) -> _Scan:
    found = _SCANS.get(tree)
    if found is None:
        found = _SCANS[tree] = _walk(tree)
    return found


def _assignment_counts(tree: ast.FunctionDef) -> dict[str, int]:
    """Every name the function assigns (local everywhere in it, as in Python), and how often
    (a copy: the caller may change it)."""
    return dict(_scan(tree).counts)


def _walk(tree: ast.AST) -> _Scan:
    """One walk of ``tree`` (``nodes_under``), gathering what ``_Scan`` holds."""
    scan = _Scan()
    counts, single = scan.counts, scan.single
    for node in nodes_under(tree):
        if type(node) is ast.Name:
            if type(node.ctx) is ast.Store:
                counts[node.id] = counts.get(node.id, 0) + 1
        elif type(node) is ast.For and type(node.target) is ast.Name:
            it = node.iter
            if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range":
                name = node.target.id
                scan.range_bounds.setdefault(name, []).extend(it.args)
                scan.range_loops[name] = scan.range_loops.get(name, 0) + 1
        elif type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            single[node.targets[0].id] = node.value
    return scan


def register_names(tree: ast.FunctionDef, params: list[str]) -> frozenset[str]:
    """The names whose value is set once: parameters never reassigned, counters of ``range``
    loops assigned nowhere else (a counter of several such loops too: each loop sets its own),
    and names assigned once, from values that read only these (or globals); a fixed point. A
    local array indexed by these alone may be register-resident (``ops.memory_op``); a name a
    loop moves (``b -= 1``) is not: nvcc cannot unroll that into register names, and whether it
    holds one value for every lane depends on the lanes. ``params`` are the tree's own."""
    scan = _scan(tree)
    if scan.set_once is None:
        scan.set_once = _set_once(scan, params)
    return scan.set_once


def _set_once(scan: _Scan, params: list[str]) -> frozenset[str]:
    counts = scan.counts
    once = {p for p in params if p not in counts}
    local = set(counts) | set(params)
    candidates = [
        (n, {r for b in bounds for r in read_names(b) if r in local})
        for n, bounds in scan.range_bounds.items()
        if scan.range_loops[n] == counts.get(n)
    ]
    candidates += [
        (n, {r for r in read_names(v) if r in local})
        for n, v in scan.single.items()
        if counts.get(n) == 1 and n not in scan.range_bounds
    ]
    grown = True
    while grown:
        grown = False
        for name, reads in candidates:
            if name not in once and reads <= once:
                once.add(name)
                grown = True
    return frozenset(once)
