"""Command-line options several commands share: one declaration, one help text."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import click

from stoker.engine import EngineSettings
from stoker.limits import LIMITS, Limits, applied

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

environments_option = click.option(
    "-e",
    "--environment",
    "environments",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    metavar="ENV",
    help="An environment file; repeat to merge several, later ones win.",
)

parameter_options = (
    click.option(
        "--parameter",
        "parameters",
        multiple=True,
        metavar="KEY=VALUE",
        help="A parameter value; repeatable.",
    ),
    click.option(
        "--parameter-file",
        "parameter_files",
        multiple=True,
        metavar="KEY=FILE",
        help="A parameter whose value is the content of FILE; repeatable.",
    ),
)


def template_option(help: str, *, required: bool = True, metavar: str | None = None) -> Decorator:
    """``-t/--template``: the template file the command reads (its ``template_file``)."""
    return click.option(
        "-t",
        "--template",
        "template_file",
        required=required,
        metavar=metavar,
        type=click.Path(exists=True, dir_okay=False),
        help=help,
    )


restrict_files_option = click.option(
    "--restrict-files",
    is_flag=True,
    help="Let get_file read only files below the template's directory (by default "
    "it reads what python-heatclient reads, ../ included).",
)


def stacked(*decorators: Decorator) -> Decorator:
    """One decorator for ``decorators``, applied as if written one above the other in
    this order (Click lists the options so)."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return decorate


#: the limits every command that evaluates templates takes; lint adds the zip ones
EVALUATION_LIMITS = (
    "template_size",
    "nodes",
    "expanded_size",
    "depth",
    "value_size",
    "total_value_size",
    "resources",
    "yaql_iterators",
    "yaql_memory",
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

        return stacked(*(_limit_option(name, getattr(defaults, name)) for name in names))(run)

    return decorate


def _limit_option(name: str, default: int) -> Decorator:
    limit = LIMITS[name]
    return click.option(
        limit.option,
        name,
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        envvar=limit.envvar,
        metavar=limit.unit.upper(),
        help=f"{limit.help} Also ${limit.envvar}.",
    )


@dataclass(frozen=True, slots=True)
class _EngineOption:
    flag: str
    type: click.ParamType[Any]
    help: str


#: the engine settings a command line may set, by `EngineSettings` field: `stoker stack`
#: runs the engine in its own process, `stoker serve` in its workers, and both take the
#: same option for the same setting
_ENGINE_OPTIONS = {
    "max_resources_per_stack": _EngineOption(
        "--max-resources-per-stack",
        click.INT,
        "Heat's max_resources_per_stack (-1: no limit).",
    ),
    "max_stacks_per_project": _EngineOption(
        "--max-stacks-per-project", click.IntRange(min=1), "Heat's max_stacks_per_project."
    ),
    "concurrency": _EngineOption(
        "--concurrency", click.IntRange(min=1), "How many resource actions may run at once."
    ),
    "max_nested_depth": _EngineOption(
        "--max-nested-depth",
        click.IntRange(min=0),
        "Heat's max_nested_stack_depth (TripleO-sized compositions need more).",
    ),
    "lease_seconds": _EngineOption(
        "--lease-seconds",
        click.FloatRange(min=0.1),
        "How long a process's claim on a stack's operation lives without a heartbeat "
        "(renewed every third of it); another process or server may take the operation "
        "over after it.",
    ),
}


def engine_options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Options for the engine settings ``names`` (`EngineSettings` fields), with the
    settings' own defaults; the command receives each as the keyword of its field name."""
    defaults = EngineSettings()
    return stacked(
        *(
            click.option(
                _ENGINE_OPTIONS[name].flag,
                name,
                type=_ENGINE_OPTIONS[name].type,
                default=getattr(defaults, name),
                show_default=True,
                help=_ENGINE_OPTIONS[name].help,
            )
            for name in names
        )
    )
