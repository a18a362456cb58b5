"""``stoker schema ...``: print the JSON Schemas of templates and environment files."""

from __future__ import annotations

import click

from stoker.schema import environment_schema, render, template_schema
from stoker.template.versions import HOT_VERSIONS, LATEST_HOT, lookup


@click.group()
def schema() -> None:
    """Print JSON Schemas (draft 2020-12) of templates and environments for editors."""


_VERSIONS = [value for version in HOT_VERSIONS for value in (version.value, version.alias) if value]


@schema.command("template")
@click.option(
    "--version",
    "version_name",
    type=click.Choice(_VERSIONS),
    default=LATEST_HOT.value,
    show_default=True,
    help="The heat_template_version (a date or its release name) the schema describes.",
)
def template_command(version_name: str) -> None:
    """Print the schema of a HOT template of one version."""
    version = lookup("heat_template_version", version_name)
    assert version is not None  # the choice allows only known versions
    click.echo(render(template_schema(version)), nl=False)


@schema.command("environment")
def environment_command() -> None:
    """Print the schema of an environment file (stack create -e)."""
    click.echo(render(environment_schema()), nl=False)
