"""Command palette entries (Ctrl+P): every action of the current screen, by name."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.widget import Widget


class WarpscopeCommands(Provider):
    """Offers the current screen's and the app's key bindings as commands."""

    def _commands(self) -> list[tuple[str, str, Widget | App[Any]]]:
        seen: set[str] = set()
        out: list[tuple[str, str, Widget | App[Any]]] = []
        for node in (self.screen, self.app):
            for binding in getattr(node, "BINDINGS", []):
                if not isinstance(binding, Binding):
                    binding = Binding(*binding)
                action, description = binding.action, binding.description
                if not description or action in seen or action == "command_palette":
                    continue
                seen.add(action)
                out.append((f"{description} ({binding.key})", action, node))
        return out

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, action, node in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(text), partial(node.run_action, action), help=f"key: {action}"
                )

    async def discover(self) -> Hits:
        for text, action, node in self._commands():
            yield Hit(1.0, text, partial(node.run_action, action))
