"""The ``stoker`` command. Thin: parse arguments, call the library, format the result.

Exit codes: 0 success; 1 the template, environment or parameters were rejected (or the
operation failed); 2 command-line usage errors (Click's own convention).
"""

from __future__ import annotations

import click

from stoker import __version__
from stoker.cli.template import template


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="stoker")
def cli() -> None:
    """stoker: run and check OpenStack Heat templates anywhere."""


cli.add_command(template)


def main() -> None:
    cli()
