"""The ``stoker`` command. Thin: parse arguments, call the library, format the result.

Errors take one path: a command raises a `stoker.errors.StokerError` (or Click raises a
usage error) and `StokerGroup.main` prints it as one ``error: ...`` line and exits with the
status `stoker.errors.exit_status` gives: 0 success; 1 the input was rejected, a named
thing does not exist, the database cannot be used, or the operation failed; 2 command-line
usage errors (Click's convention: bad options, a file named on the command line that does
not exist, an unusable lint config).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from stoker import __version__
from stoker.cli.db import db
from stoker.cli.lint import lint
from stoker.cli.resource_types import resource_type
from stoker.cli.stack import stack
from stoker.cli.template import template
from stoker.errors import StokerError, exit_status


class StokerGroup(click.Group):
    """The top-level group: runs the command and turns every error into one line."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except click.exceptions.Abort:  # Ctrl-C (Click turns it into Abort) or "no"
            click.echo("error: aborted", err=True)
            sys.exit(1)
        except click.ClickException as error:
            _usage_error(error)
            sys.exit(error.exit_code)
        except StokerError as error:
            click.echo(f"error: {error}", err=True)
            sys.exit(exit_status(error))
        except BrokenPipeError:  # `stoker ... | head`: the reader left; nothing to say
            sys.stderr.close()
            sys.exit(1)
        except OSError as error:  # a file the user named cannot be read or written
            where = f"{error.filename}: " if error.filename else ""
            click.echo(f"error: {where}{error.strerror or error}", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)


def _usage_error(error: click.ClickException) -> None:
    """Click's message with the ``error:`` prefix every other error has, and the usual
    pointer to the command's help."""
    click.echo(f"error: {error.format_message()}", err=True)
    ctx = getattr(error, "ctx", None)
    if isinstance(error, click.UsageError) and ctx is not None:
        name = ctx.command_path
        click.echo(f"Try '{name} {ctx.help_option_names[0]}' for help.", err=True)


@click.group(cls=StokerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="stoker")
@click.option(
    "--db",
    envvar="STOKER_DB_URL",
    metavar="URL",
    help="Database URL or SQLite file path (default: SQLite in the user's data directory; "
    "postgresql://USER@HOST/DB for a shared store). Also $STOKER_DB_URL.",
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
    cli()
