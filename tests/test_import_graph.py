"""The import graph, read statically (grimp, the graph behind import-linter): no cycles
anywhere, and no module reaching into another's private names."""

from __future__ import annotations

import ast

import grimp
import pytest

from tests.conftest import ROOT

#: the installed package; the repository keeps its importers in a top-level folder linked in as
#: ``warpscope/importers``, which grimp follows
PACKAGE = "warpscope"
FOLDERS = ("warpscope", "importers")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # function-level imports count: they run, and hiding a cycle in a function is still a cycle
    return grimp.build_graph(PACKAGE, exclude_type_checking_imports=True, cache_dir=None)


def test_no_import_cycles(graph):
    cycles = []
    for module in sorted(graph.modules):
        imported = graph.find_modules_directly_imported_by(module)
        for other in sorted(imported):
            back = graph.find_shortest_chain(importer=other, imported=module)
            if back is not None:
                cycles.append(" -> ".join((module, *back)))
    assert cycles == []


def test_no_private_names_imported_across_modules():
    offenders = []
    for package in FOLDERS:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
                    private = [
                        a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
                    ]
                    # a private *module* of a package (importers._input) is that package's own
                    private = [n for n in private if not (ROOT / package / n).with_suffix(".py").exists()]
                    if private:
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.module} {private}")
    assert offenders == []
