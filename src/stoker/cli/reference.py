"""The command reference (docs/cli.md), generated from the Click command tree itself.

Written by hand, a reference of options drifts from the code the day an option is added;
generated, it cannot: `render` walks every command and subcommand of `stoker` and prints
each one's ``--help`` exactly as the command prints it, at a fixed width so the page does
not depend on the terminal it was made in. ``python -m stoker.cli.reference >
docs/cli.md`` regenerates the page, and a test fails when the committed page differs.
"""

from __future__ import annotations

from collections.abc import Iterator

import click

from stoker.cli.group import cli

#: the command that regenerates the page, as the test's failure message and the page say
REGENERATE = ".venv/bin/python -m stoker.cli.reference > docs/cli.md"
#: columns of the help text (Click wraps to this, whatever the terminal)
WIDTH = 88


def _walk(command: click.Command, ctx: click.Context) -> Iterator[click.Context]:
    """Each command's context, a group before its subcommands, subcommands by name."""
    yield ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            yield from _walk(sub, _context(sub, name, ctx))


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """The context Click itself makes for the command (its ``context_settings`` applied,
    the parent's inherited: ``-h`` as well as ``--help``), at the page's width."""
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    return click.Context(command, info_name=name, parent=parent, **settings)


def _anchor(path: str) -> str:
    """The anchor GitHub makes for a ``## `stoker x y` `` heading."""
    return path.replace(" ", "-")


def render() -> str:
    """The whole page: an index, then every command's help under its own heading."""
    contexts = list(_walk(cli, _context(cli, "stoker", None)))
    lines = [
        "# Command reference",
        "",
        "Every `stoker` command's `--help`, generated from the command itself. Do not edit",
        f"it: `{REGENERATE}`",
        "makes it again, and a test fails when it is out of date.",
        "How the commands fit together: the [README](../README.md) and [usage](usage.md).",
        "",
    ]
    for ctx in contexts:
        depth = ctx.command_path.count(" ")
        path = ctx.command_path
        lines.append(f"{'  ' * depth}- [`{path}`](#{_anchor(path)})")
    for ctx in contexts:
        help_text = ctx.command.get_help(ctx).rstrip()
        lines += ["", f"## `{ctx.command_path}`", "", "```text", help_text, "```"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    click.echo(render(), nl=False)
