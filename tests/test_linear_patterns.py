"""Patterns applied to a file's content take time linear in it: each gives the answer the
straightforward (quadratic) pattern gave, on any text, and a 100 kB hostile input is handled at
once (the quadratic forms took seconds to minutes on these)."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from warpscope.errors import InputError, one_line
from warpscope.explore.names import labels
from warpscope.importers.nvprof.sink import split_device

BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
QUADRATIC_LINE_BREAKS = re.compile(r"\s*[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+\s*")
QUADRATIC_DEVICE = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")
TEXT = st.text(alphabet=st.sampled_from([" ", "\t", "a", "(", ")", "0", "7", *BREAKS]), max_size=40)


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_one_line_equals_the_quadratic_pattern(text):
    assert one_line(text) == QUADRATIC_LINE_BREAKS.sub(" ", text).strip()


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_split_device_equal_the_quadratic_pattern(text):
    match = QUADRATIC_DEVICE.match(text)
    expected = (match[2], match[1]) if match else (None, text)
    assert split_device(text) == (expected if text else (None, None))


def _seconds(call) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_100_kb_hostile_inputs_are_handled_at_once():
    spaces = " " * 100_000
    word = "a" * 100_000
    # each of these took over a second with the quadratic patterns (100 kB: minutes for some)
    assert _seconds(lambda: InputError("f.csv", f"bad{spaces}value")) < 0.5
    assert _seconds(lambda: split_device(f"GPU{spaces}x")) < 0.5
    assert _seconds(lambda: labels([word, word + "b"], 40)) < 0.5
