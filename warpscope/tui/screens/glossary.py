"""The glossary: every canonical metric, stall reason and occupancy limit, searchable."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from warpscope.explore.glossary import Entry, entries, lookup
from warpscope.tui.widgets.footer import FittingFooter


class GlossaryScreen(ModalScreen):
    """Entries on the left (type to narrow them), the highlighted one explained on the right."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, entry: str | None = None) -> None:
        super().__init__()
        found = lookup(entry) if entry else None
        self.start = found.id if found else entries()[0].id

    def compose(self) -> ComposeResult:
        with Horizontal(id="glossary"):
            with Vertical(id="glossary-left"):
                yield Input(placeholder="type to search", id="glossary-search", select_on_focus=False)
                yield OptionList(*self._options(""), id="glossary-list")
            with VerticalScroll(id="glossary-right"):
                yield Static(id="glossary-entry")
        yield FittingFooter()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = options.get_option_index(self.start)
        options.focus()
        self._show(self.start)

    @staticmethod
    def _options(query: str) -> list[Option]:
        q = query.lower()
        return [
            Option(e.id, id=e.id)
            for e in entries()
            if not q or q in e.id.lower() or q in e.definition.lower()
        ]

    def on_key(self, event: events.Key) -> None:
        """Typing while the list has focus searches: the character goes to the search box."""
        search = self.query_one("#glossary-search", Input)
        if event.is_printable and event.character and self.focused is not search:
            search.focus()
            search.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    @on(Input.Changed, "#glossary-search")
    def _search(self, event: Input.Changed) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))
        if options.option_count:
            options.highlighted = 0

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self._show(event.option.id)

    def _show(self, entry_id: str) -> None:
        entry = lookup(entry_id)
        if entry is not None:
            self.query_one("#glossary-entry", Static).update(render_entry(entry))


def render_entry(e: Entry) -> Group:
    parts = [
        Text(e.id, style="bold underline"),
        Text(f"{e.kind} · unit: {e.unit}\n", style="italic"),
        Text(e.definition),
        Text("\nFormula", style="bold"),
        Text(e.formula),
    ]
    if e.ncu:
        parts += [Text("\nNsight Compute", style="bold"), *(Text(f"  {name}") for name in e.ncu)]
    if e.nvprof:
        parts += [Text("\nnvprof", style="bold"), *(Text(f"  {name}") for name in e.nvprof)]
    if e.fix:
        parts += [Text("\nFix" if e.kind == "stall" else "\nNote", style="bold"), Text(e.fix)]
    return Group(*parts)
