"""The launch rules over many launches at once: the findings of a long profile without a view,
a rule call or a finding object per launch.

``analyze`` sends here the launches whose candidate rules all have a columnar form
(``rules.COLUMNAR``) and whose values the arrays read exactly as a view does (``routable``);
the rest go through the views and the rules one launch at a time, as before. The findings,
their grading (``impact.assess``) and their table are the per-launch engine's, launch for
launch: ``tests/test_columnar.py`` compares the two on every shipped export.
"""

from __future__ import annotations

from warpscope.analysis.columnar.engine import evaluate, evaluate_forked, routable
from warpscope.analysis.columnar.launches import Launches, from_rows
from warpscope.analysis.columnar.listed import PerLaunch
from warpscope.analysis.columnar.rules import COLUMNAR, READS

__all__ = [
    "COLUMNAR",
    "READS",
    "Launches",
    "PerLaunch",
    "evaluate",
    "evaluate_forked",
    "from_rows",
    "routable",
]
