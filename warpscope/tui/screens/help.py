"""`?`: what each screen's keys do, and where to start: one key table per screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from warpscope.tui.widgets.footer import FittingFooter

#: (screen, its keys: (key, what it does)), in the order the help lists them
KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Kernel table",
        [
            ("`Enter`", "open the kernel"),
            ("`s`", "sort by the column under the cursor (again: reverse; clicking a header sorts too)"),
            ("`/`", "find by name"),
            (
                "`f`",
                "filter by expression, e.g. `achieved_occupancy_pct < 50 and kernel ~ reduce` (names: any "
                "canonical metric or ncu metric name, `duration_ns`, `registers_per_thread`, `block_size`, "
                "`grid_size`, `kernel`, `top_stall`...; `and`, `or`, `not`, parentheses; a misspelt "
                "metric gets the closest id)",
            ),
            ("`Escape`", "close or clear the filters"),
            ("`Space`", "show or hide a kernel's launches"),
            ("`l`", "kernels or every launch"),
            ("`%`", "Time% of each file (and device) or of all files open"),
            ("`x`", "fix first: every (kernel, problem) pair ranked by the time its fix saves"),
            (
                "`w`",
                "whole run: the repeated step, time by family of work, host-device copies and the advice "
                "about the whole program",
            ),
            ("`r`", "roofline: every kernel as a point under the DRAM and compute roofs"),
            ("`c`", "compare two files (or `--baseline`)"),
            ("`t`", "emulator timeline"),
            ("`T`", "trend: every kernel over a dataset's runs (`warpscope open DATASET`)"),
            ("`g`", "glossary of the column"),
            ("`e`", "export the markdown report (a notification says where, before it is written)"),
            ("`y`", "copy the row (tab-separated: header line, then the row)"),
        ],
    ),
    (
        "Kernel view",
        [
            ("`1`–`7`", "tabs (Overview, Divergence, Occupancy, Stalls, Memory, Source, Findings)"),
            (
                "`Tab`/`Shift+Tab`, `←`/`→`",
                "next/previous tab (in a table the arrows stay in it)",
            ),
            ("`v`", "next occupancy graph (block size, registers, shared memory)"),
            ("`o`", "on Source: source order or the hottest lines first"),
            ("`j`", "on Findings: jump to the highlighted finding's line"),
            ("`t`", "timeline"),
            ("`g`", "glossary for the tab"),
            ("`y`", "copy the tab or the highlighted finding"),
            ("`e`", "export the markdown report"),
            ("`Escape`", "back"),
        ],
    ),
    (
        "Roofline",
        [
            ("arrows", "move in the table under the plot"),
            ("`Enter`", "open the kernel"),
            ("`Escape`", "back"),
        ],
    ),
    (
        "Fix first",
        [
            ("`Enter`", "open the kernel on its Findings tab"),
            ("`y`", "copy the entry and its fix"),
            ("`Escape`", "back"),
        ],
    ),
    (
        "Whole run",
        [
            (
                "arrows",
                "scroll: the step the launches repeat and its time by family of work, host-device "
                "copies, the findings about the whole program",
            ),
            ("`Escape`", "back"),
        ],
    ),
    (
        "Compare",
        [
            (
                "arrows",
                "one row per launch matched by kernel name and order (a changed grid or block is a "
                'change, not a new kernel), slower first; a time change under 5% is noise and reads "same"',
            ),
            ("`s`", "sort by the column under the cursor (again: reversed)"),
            ("`/`", "find by name"),
            ("`f`", "show every row, slower, faster, one side only, changed findings"),
            (
                "`Enter`",
                "the kernel on both sides: launch, every metric before and after, findings that "
                "appeared, went or stayed",
            ),
            ("`y`", "copy the rows shown as TSV"),
            ("`Escape`", "clear the find, then back"),
        ],
    ),
    (
        "Glossary",
        [
            ("typing", "search (the text goes to the search box)"),
            (
                "arrows",
                "move in the list; the highlighted entry is explained on the right: definition, "
                "formula, the Nsight Compute and nvprof names, what to do",
            ),
            ("`Escape`", "back"),
        ],
    ),
    (
        "Timeline",
        [
            ("arrows", "move between warp slots and cycles (`Shift` jumps)"),
            ("`+`/`-`", "zoom"),
            ("`f`", "fit the launch"),
            ("`Home`/`End`", "first and last cycle"),
            ("click", "a cell"),
            ("`g`", "explain the state under the cursor"),
        ],
    ),
    (
        "Everywhere",
        [
            ("`Ctrl+P`", "command palette"),
            ("`?`", "this help"),
            ("`q`, `ctrl+c`", "quit"),
            ("`Escape`", "back"),
        ],
    ),
]

NOTE = (
    "Kernel names and file text are shown literally: control characters appear as `\\x1b`-style "
    "escapes. Copying uses OSC 52, which works over SSH and in tmux with `set-clipboard on`."
)


def _markdown() -> str:
    out = ["# warpscope keys", ""]
    for screen, keys in KEYS:
        out += [f"## {screen}", "", "| key | what it does |", "|---|---|"]
        out += [f"| {key} | {what.replace('|', chr(92) + '|')} |" for key, what in keys]
        out.append("")
    return "\n".join([*out, NOTE, ""])


HELP = _markdown()


class HelpScreen(ModalScreen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("question_mark", "app.pop_screen", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)
        yield FittingFooter()
