"""Kernel names are untrusted: stored verbatim, shown inert in every report."""

from __future__ import annotations

import json

import warpscope
from tests.conftest import H100, run_cli

HOSTILE = "evil[bold red]x[/]\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u202e|`<script>`"


def test_hostile_kernel_name_is_verbatim_and_inert(tmp_path):
    data = (H100 / "seed_full_details.csv").read_text()
    data = data.replace("mathKernel1(float *)", HOSTILE.replace('"', '""'))
    path = tmp_path / "hostile.csv"
    path.write_text(data)
    profile = warpscope.load(path)
    assert profile.launches["kernel"][0] == HOSTILE
    md = run_cli("report", str(path)).stdout
    js = run_cli("report", str(path), "--format", "json").stdout
    for out in (md, js):
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert json.loads(js)["launches"][0]["kernel"] == HOSTILE
    row = next(l for l in md.splitlines() if l.startswith("| ") and "evil" in l and "×" in l)
    assert row.count(" | ") == 9  # ten columns: the name's '|' cannot add one
    assert "<script>" not in md and "\\x1b" in md
