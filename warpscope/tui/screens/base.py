"""The screens' common base: the app and its workspace, typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from warpscope.explore.workspace import Workspace
    from warpscope.tui.app import WarpscopeApp


class WarpscopeScreen(Screen[None]):
    """A screen of the warpscope app: ``wapp`` is the app with its type, ``workspace`` what it has open."""

    @property
    def wapp(self) -> WarpscopeApp:
        # Textual types ``self.app`` as any App; screens are only ever pushed by WarpscopeApp
        return cast("WarpscopeApp", self.app)

    @property
    def workspace(self) -> Workspace:
        return self.wapp.workspace
