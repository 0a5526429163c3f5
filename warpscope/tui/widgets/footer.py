"""A footer that shows whole keys only (``FooterKey`` is Textual's, pinned in pyproject.toml): those that do not fit the width are left out (they are
in `?` help and the command palette) rather than cut mid-word at the edge."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: the command palette's key (``^p Commands``) is always shown, at the right
_PALETTE = "-command-palette"


def key_width(key: FooterKey, compact: bool) -> int:
    """Cells a footer key takes, as Textual's footer CSS lays it out: the key and description
    with their padding (or, compact, the margin after each key); the command palette's key
    with its border takes 13 either way."""
    text = len(key.key_display) + (1 + len(key.description) if key.description else 0)
    if key.has_class(_PALETTE):
        return text + 2
    return text + (1 if compact else 2 + bool(key.description))


#: keys shown whatever the width, like the command palette's: `?` help lists all the others
PINNED = ("help",)


class FittingFooter(Footer):
    """``Footer`` that shows the screen's keys in order where whole ones fit, `?` help and the
    command palette always; the others stay in help and the palette."""

    def compose(self) -> ComposeResult:
        keys = [k for k in super().compose() if isinstance(k, FooterKey)]
        width = self.size.width or self.app.size.width
        pinned = [k for k in keys if k.has_class(_PALETTE) or k.action in PINNED]
        room = width - sum(key_width(k, self.compact) for k in pinned)
        for key in keys:
            if key not in pinned:
                if key_width(key, self.compact) > room:
                    continue  # left out: a later, shorter key may still fit
                room -= key_width(key, self.compact)
            yield key

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)
