"""What ``stoker stack graph`` and ``stoker template graph`` share: the format, the depth
of nested stacks drawn, and where the drawing goes (the library draws it: `stoker.graph`).
"""

from __future__ import annotations

import click

from stoker.cli.options import stacked
from stoker.cli.output import output_format

#: `stoker.graph.FORMATS`, written out so that the options need not import the package
GRAPH_FORMATS = ("dot", "mermaid", "json", "svg")
#: one level of nested stacks drawn by default: a group's members, a provider's resources
DEFAULT_NESTED_DEPTH = 1


#: ``-f``, ``--nested-depth`` and ``-o``
graph_options = stacked(
    output_format(GRAPH_FORMATS, "dot"),
    click.option(
        "-n",
        "--nested-depth",
        type=click.IntRange(min=0),
        default=DEFAULT_NESTED_DEPTH,
        show_default=True,
        help="How many levels of nested stacks (provider templates, groups, "
        "OS::Heat::Stack) to draw inside their resource; deeper ones are collapsed to "
        "one node that says how many resources it holds.",
    ),
    click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, writable=True),
        help="Write the drawing to this file (default: standard output).",
    ),
)


def write_graph(text: str, output: str | None) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    with open(output, "w", encoding="utf-8") as handle:
        handle.write(text)
