"""Command-line options several commands share: one declaration, one help text."""

from __future__ import annotations

import click

environments_option = click.option(
    "-e",
    "--environment",
    "environments",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    metavar="ENV",
    help="An environment file; repeat to merge several, later ones win.",
)
