"""Widgets and Rich renderables of the warpscope UI."""
