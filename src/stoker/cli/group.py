"""The ``stoker`` command group in Click: options, lazily imported subcommands, and the
one path every error takes (see `stoker.cli.main`, whose entry point runs it).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

import click

from stoker import __version__
from stoker.cli.main import COMMANDS
from stoker.errors import StokerError, exit_status

#: `stoker.store.secrets.KEY_FILE_ENV` (a test checks they agree): the variable the store
#: reads the key file's name from; not imported, as ``stoker --help`` opens no store
KEY_FILE_ENV = "STOKER_SECRET_KEY_FILE"


class LazyGroup(click.Group):
    """A group whose subcommands named in its table (``lazy``: name -> module, attribute,
    the first paragraph of the command's help) are imported when one is invoked or its
    help is asked for, not when the group is. The group's own ``--help`` lists them from
    the table, shortened by Click as it shortens a loaded command's help (a test checks
    each table against the commands)."""

    def __init__(self, *args: Any, lazy: Mapping[str, tuple[str, str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attribute, _ = self.lazy[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's layout, from the help in the table instead of importing every command."""
        shown = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is None:
                command = click.Command(name, help=self.lazy[name][2])
            if not command.hidden:
                shown.append((name, command))
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in shown)
        with formatter.section("Commands"):
            formatter.write_dl(
                [(name, command.get_short_help_str(limit)) for name, command in shown]
            )


class StokerGroup(LazyGroup):
    """The top-level group: runs the command and turns every error into one line."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except click.exceptions.Abort:  # Ctrl-C (Click turns it into Abort) or "no"
            click.echo("error: aborted", err=True)
            sys.exit(1)
        except click.ClickException as error:
            # Click's message with the ``error:`` prefix every other error has, and the
            # usual pointer to the command's help
            click.echo(f"error: {error.format_message()}", err=True)
            ctx = getattr(error, "ctx", None)
            if isinstance(error, click.UsageError) and ctx is not None:
                name = ctx.command_path
                click.echo(f"Try '{name} {ctx.help_option_names[0]}' for help.", err=True)
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


@click.group(
    cls=StokerGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, prog_name="stoker")
@click.option(
    "--db",
    envvar="STOKER_DB_URL",
    metavar="URL",
    help="Database URL or SQLite file path (default: SQLite in the user's data directory; "
    "postgresql://USER@HOST/DB for a shared store). Also $STOKER_DB_URL.",
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
@click.option(
    "--key-file",
    envvar=KEY_FILE_ENV,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="The key file that encrypts hidden values at rest (default: secret.key in the "
    "user's data directory, made 0600 on first use). Also $STOKER_SECRET_KEY_FILE.",
)
@click.pass_context
def cli(ctx: click.Context, db: str | None, project: str, key_file: str | None) -> None:
    """stoker: run and check OpenStack Heat templates anywhere."""
    if key_file:
        # handed on as the variable the store reads, so the processes a command starts
        # (`stoker serve`'s workers) use the same key
        os.environ[KEY_FILE_ENV] = os.path.abspath(key_file)
    ctx.obj = {"db": db, "project": project}
