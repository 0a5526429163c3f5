"""``warpscope --version``: the version from the package metadata (``warpscope.__version__``)."""

from __future__ import annotations

import typer

from warpscope import __version__


def print_version(value: bool) -> None:
    """The ``--version`` option's callback: print ``warpscope VERSION`` and exit."""
    if value:
        typer.echo(f"warpscope {__version__}")
        raise typer.Exit()
