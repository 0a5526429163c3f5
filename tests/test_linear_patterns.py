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


def _module_patterns() -> list[tuple[str, re.Pattern]]:  # type: ignore[type-arg]
    """Every compiled pattern at the top level of the modules that read files or show their text
    (importers, model, report, explore, analysis), in a module constant or a tuple of them."""
    import importlib
    import pkgutil

    import warpscope
    import warpscope.importers

    found = []
    for package in (warpscope, warpscope.importers):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if any(part in info.name for part in (".emulator", ".tui", "__main__", ".cli")):
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                items = value if isinstance(value, tuple) else (value,)
                for item in items:
                    for p in item if isinstance(item, tuple) else (item,):
                        if isinstance(p, re.Pattern):
                            found.append((f"{info.name}.{name}", p))
    return found


#: user input, not file content, and used anchored (match at a position, fullmatch): linear there
USER_INPUT = {"warpscope.explore.query._TOKEN", "warpscope.report.diff._THRESHOLD"}


def test_every_pattern_applied_to_file_content_handles_100_kb_of_hostile_text_at_once():
    """search, match, findall and sub of each pattern on 100 kB of runs that make backtracking
    patterns quadratic (spaces, one letter, brackets, qualifiers, quotes, line breaks, numbers)."""
    n = 100_000
    hostile = [" " * n, "a" * n, "(" * n, "a::" * (n // 3), "<" * n, '"' * n, "=" + " " * n, "0" * n,
               "a " * (n // 2), "[1]" * (n // 3), "(int)" * (n // 5), "\n" * n, " \n" * (n // 2),
               "@section:" * (n // 9), " -" * (n // 2), "1." * (n // 2), "x" * n + "\n"]  # fmt: skip
    patterns = _module_patterns()
    assert len(patterns) > 60  # the importers', the catalog's, the libraries' and families' names...
    slow = []
    for name, p in patterns:
        for text in hostile:
            data: str | bytes = text.encode() if isinstance(p.pattern, bytes) else text
            if name in USER_INPUT:
                spent = _seconds(lambda: (p.match(data), p.fullmatch(data)))  # noqa: B023
            else:
                empty = b"" if isinstance(data, bytes) else ""
                spent = _seconds(lambda: (p.search(data), p.findall(data), p.sub(empty, data)))  # noqa: B023
            if spent > 0.25:
                slow.append((name, text[:8], round(spent, 2)))
    assert slow == []
