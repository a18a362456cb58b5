"""The ``stoker`` command. Thin: parse arguments, call the library, format the result.

Exit codes: 0 success; 1 the template, environment or parameters were rejected (or the
operation failed); 2 command-line usage errors (Click's own convention).
"""

from __future__ import annotations

import sys

import click

from stoker import __version__
from stoker.cli.db import db
from stoker.cli.lint import lint
from stoker.cli.resource_types import resource_type
from stoker.cli.stack import stack
from stoker.cli.template import template
from stoker.errors import StokerError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="stoker")
@click.option(
    "--db",
    envvar="STOKER_DB_URL",
    metavar="URL",
    help="Database URL (default: SQLite in the user's data directory; "
    "postgresql://... for a shared store). Also $STOKER_DB_URL.",
)
@click.pass_context
def cli(ctx: click.Context, db: str | None) -> None:
    """stoker: run and check OpenStack Heat templates anywhere."""
    ctx.obj = {"db": db}


cli.add_command(template)
cli.add_command(stack)
cli.add_command(resource_type)
cli.add_command(lint)
cli.add_command(db)


def main() -> None:
    try:
        cli()
    except StokerError as error:
        # Whatever no command caught (a missing secret key, a database failure): one
        # line, never a traceback.
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
