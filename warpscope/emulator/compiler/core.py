"""``Compiler``: a whole kernel or device function, from its source to a ``Function``."""

from __future__ import annotations

import ast
import weakref

from warpscope.emulator.compiler import codegen
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
        self.register_names = register_names(tree, self.assign_counts, params)
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


#: per function tree (shared between its compilations: ``source``), its assignment counts
_COUNTS: weakref.WeakKeyDictionary[ast.FunctionDef, dict[str, int]] = weakref.WeakKeyDictionary()


def _assignment_counts(tree: ast.FunctionDef) -> dict[str, int]:
    """Every name the function assigns (local everywhere in it, as in Python), and how often
    (a copy: the caller may change it)."""
    counts = _COUNTS.get(tree)
    if counts is None:
        counts = _COUNTS[tree] = _stored_names(tree)
    return dict(counts)


def _stored_names(tree: ast.AST) -> dict[str, int]:
    """How often each name is assigned under ``tree``: ``ast.walk``'s count by a plain stack
    (``ast.walk``'s generators were a fifth of compiling a small kernel)."""
    counts: dict[str, int] = {}
    stack = [tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is ast.Name:
            if type(node.ctx) is ast.Store:
                counts[node.id] = counts.get(node.id, 0) + 1
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push(item)
            elif isinstance(value, ast.AST):
                push(value)
    return counts


def register_names(tree: ast.FunctionDef, counts: dict[str, int], params: list[str]) -> frozenset[str]:
    """The names whose value is set once: parameters never reassigned, counters of ``range``
    loops assigned nowhere else (a counter of several such loops too: each loop sets its own),
    and names assigned once, from values that read only these (or globals); a fixed point. A
    local array indexed by these alone may be register-resident (``ops.memory_op``); a name a
    loop moves (``b -= 1``) is not: nvcc cannot unroll that into register names, and whether it
    holds one value for every lane depends on the lanes."""
    once = {p for p in params if p not in counts}
    local = set(counts) | set(params)
    loops: dict[str, list[ast.expr]] = {}  # a range loop's counter: what its bounds read
    loop_count: dict[str, int] = {}
    single: dict[str, ast.expr] = {}  # a name assigned by one plain assignment: its value
    for node in ast.walk(tree):
        if type(node) is ast.For and type(node.target) is ast.Name:
            it = node.iter
            if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range":
                name = node.target.id
                loops.setdefault(name, []).extend(it.args)
                loop_count[name] = loop_count.get(name, 0) + 1
        elif type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            single[node.targets[0].id] = node.value
    candidates = [(n, srcs) for n, srcs in loops.items() if loop_count[n] == counts.get(n)]
    candidates += [(n, [v]) for n, v in single.items() if counts.get(n) == 1 and n not in loops]
    grown = True
    while grown:
        grown = False
        for name, sources in candidates:
            if name not in once and all(
                n.id in once or n.id not in local for s in sources for n in ast.walk(s) if type(n) is ast.Name
            ):
                once.add(name)
                grown = True
    return frozenset(once)
