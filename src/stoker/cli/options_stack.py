"""Options that several ``stoker stack`` commands share, declared once: those of the
commands that build a stack's definition and run it (``stack create``, ``stack update``),
and those of a listing of a stack's rows down its nested stacks (``stack resource list``,
``stack hook poll``).
"""

from __future__ import annotations

import click

from stoker.cli.blueprint import library_option
from stoker.cli.options import (
    EVALUATION_LIMITS,
    Decorator,
    environments_option,
    limit_options,
    parameter_options,
    restrict_files_option,
    stacked,
)
from stoker.cli.output import record_options, verbose_option


def definition_options(*own: Decorator) -> Decorator:
    """The shared options, with the command's ``own`` between its inputs (``-e``,
    ``--library``, ``--parameter``, ``--parameter-file``) and the rest
    (``--restrict-files``, ``-v``, the evaluation limits, the output format and columns).
    The command takes each as the keyword its option names."""
    return stacked(
        environments_option,
        library_option,
        *parameter_options,
        *own,
        restrict_files_option,
        verbose_option,
        limit_options(*EVALUATION_LIMITS),
        record_options,
    )


def nested_listing(depth_help: str) -> Decorator:
    """Stack NAME, ``-n/--nested-depth`` (``depth_help``: what a deeper level adds), the
    output format and columns, and the session: the command takes ``(session, name,
    nested_depth, fmt, columns)``."""
    return stacked(
        click.argument("name"),
        click.option(
            "-n",
            "--nested-depth",
            type=click.IntRange(min=0),
            default=0,
            help=depth_help,
        ),
        record_options,
        click.pass_obj,
    )
