"""Command-line options several commands share: one declaration, one help text."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import click

from stoker.limits import LIMITS, Limits, applied

environments_option = click.option(
    "-e",
    "--environment",
    "environments",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    metavar="ENV",
    help="An environment file; repeat to merge several, later ones win.",
)


#: the limits every command that evaluates templates takes; lint adds the zip ones
EVALUATION_LIMITS = (
    "template_size",
    "nodes",
    "expanded_size",
    "depth",
    "value_size",
    "total_value_size",
    "resources",
)
ZIP_LIMITS = ("zip_members", "zip_size", "zip_ratio")


def limit_options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Options (and environment variables) for the budget limits ``names``
    (`stoker.limits.LIMITS`), and the command run under the limits they give.

    The command itself never sees the options: it reads them as
    `stoker.limits.active_limits()`, in force while it runs.
    """
    defaults = Limits()

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in names}
            with applied(replace(defaults, **given)):
                return command(*args, **kwargs)

        for name in reversed(names):
            limit = LIMITS[name]
            run = click.option(
                limit.option,
                name,
                type=click.IntRange(min=1),
                default=getattr(defaults, name),
                show_default=True,
                envvar=limit.envvar,
                metavar=limit.unit.upper(),
                help=f"{limit.help} Also ${limit.envvar}.",
            )(run)
        return run

    return decorate
