"""The ``stoker`` command. Thin: parse arguments, call the library, format the result.

Exit codes: 0 success; 1 the template, environment or parameters were rejected (or the
operation failed); 2 command-line usage errors (Click's own convention).

Each command group lives in its own module and is imported only when it runs: ``stoker
--version`` or ``--help`` must not pay for SQLAlchemy, yaql or the linter (a test checks
this). The one-line help of each group is therefore written here too; a test checks it
still matches the group's docstring.
"""

from __future__ import annotations

import importlib

import click

from stoker import __version__

# name -> (module, attribute, first line of the group's docstring)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "lint": (
        "stoker.cli.lint",
        "lint",
        "Lint templates, environments, directories (recursively) and VNF packages (.zip).",
    ),
    "resource-type": (
        "stoker.cli.resource_types",
        "resource_type",
        "List the resource types stoker can run and show their schemas.",
    ),
    "stack": ("stoker.cli.stack", "stack", "Create, inspect and delete stacks."),
    "template": (
        "stoker.cli.template",
        "template",
        "Check and inspect templates without running anything.",
    ),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported when invoked, not when the CLI starts."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module, attribute, _ = COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's layout, from the help written above instead of importing every group."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None:
                rows.append((name, click.utils.make_default_short_help(COMMANDS[name][2], limit)))
            elif not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


def main() -> None:
    cli()
