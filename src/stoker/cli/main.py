"""The ``stoker`` command. Thin: parse arguments, call the library, format the result.

Exit codes: 0 success; 1 the template, environment or parameters were rejected (or the
operation failed); 2 command-line usage errors (Click's own convention).
"""

from __future__ import annotations

import click

from stoker import __version__
from stoker.cli.lint import lint
from stoker.cli.resource_types import resource_type
from stoker.cli.stack import stack
from stoker.cli.template import template


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="stoker")
@click.option(
    "--db",
    envvar="STOKER_DB_URL",
    metavar="URL",
    help="Database URL (default: SQLite in the user's data directory; "
    "postgresql://... for a shared store). Also $STOKER_DB_URL.",
)
@click.option(
    "--project",
    envvar="STOKER_PROJECT",
    default="default",
    show_default=True,
    metavar="NAME",
    help="The project stacks belong to: OS::project_id, stack ARNs and stack-name "
    "uniqueness use it. Also $STOKER_PROJECT.",
)
@click.pass_context
def cli(ctx: click.Context, db: str | None, project: str) -> None:
    """stoker: run and check OpenStack Heat templates anywhere."""
    ctx.obj = {"db": db, "project": project}


cli.add_command(template)
cli.add_command(stack)
cli.add_command(resource_type)
cli.add_command(lint)


def main() -> None:
    cli()
