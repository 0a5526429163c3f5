"""The package's docstrings and comments point only at files in the repository: the design
notes they rely on live in docs/, so a reader of a clone can follow every reference."""

from __future__ import annotations

import re

from tests.conftest import ROOT

#: paths outside the repository (the shared folder beside a checkout)
OUTSIDE = re.compile(
    r"DESIGN\.md|\.\./shared|\bshared/(samples|reference|seeds|public_samples)|\breference/\w+\.md"
)
#: repository paths as the source writes them
INSIDE = re.compile(r"\b((?:docs|tools|sample_traces|benchmarks|tests)/[\w./-]*\w)")


def _sources():
    for folder in ("warpscope", "importers"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".tcss") and "__pycache__" not in path.parts:
                yield path


def test_no_reference_outside_the_repository():
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in _sources()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_every_repository_path_named_exists():
    missing = [
        f"{p.relative_to(ROOT)}: {m}"
        for p in _sources()
        for m in INSIDE.findall(p.read_text())
        if not (ROOT / m).exists() and not any(ROOT.glob(m))
    ]
    assert missing == []


def test_license_matches_the_package_metadata():
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
