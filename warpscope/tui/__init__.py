"""The terminal UI (Textual). The only package that imports Textual: everything it shows
is computed by the headless ``warpscope.explore`` package."""

from __future__ import annotations

from warpscope.tui.app import Job, WarpscopeApp

__all__ = ["Job", "WarpscopeApp"]
