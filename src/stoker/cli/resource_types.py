"""``stoker resource-type ...``: the types stoker can run, and what each one declares."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from stoker.cli.output import (
    emit_record,
    emit_rows,
    record_options,
    simple_table,
)
from stoker.errors import ResourceTypeNotFound
from stoker.resources import default_registry, heat_catalog


@click.group("resource-type")
def resource_type() -> None:
    """List the resource types stoker can run and show their schemas."""


@resource_type.command("list")
@record_options
def list_types(fmt: str, columns: tuple[str, ...]) -> None:
    """List the resource types stoker can run (Heat lists the types its cloud offers)."""
    registry = default_registry()
    rows = []
    for name in registry.names():
        schema = registry.schema(name)
        assert schema is not None
        rows.append(
            {
                "resource_type": name,
                "support_status": schema.support_status.status.value,
                "description": _summary(registry.get(name)),
            }
        )
    emit_rows(rows, fmt, columns, no_wrap=["resource_type"])


@resource_type.command("show")
@click.argument("type_name", metavar="TYPE")
@record_options
def show(type_name: str, fmt: str, columns: tuple[str, ...]) -> None:
    """Show the properties and attributes TYPE declares, as Heat's resource type show does.

    Types stoker cannot run are shown from Heat's catalog, with a note saying so.
    """
    schema = default_registry().schema(type_name)
    if schema is None:
        schema = heat_catalog().get(type_name)
        if schema is None:
            raise ResourceTypeNotFound(f"The Resource Type ({type_name}) could not be found.")
        click.echo(
            f"note: stoker cannot run {type_name}; this is Heat's declaration of it "
            "(a linter can still check templates that use it).",
            err=True,
        )
    emit_record(schema.to_api_dict(), fmt, columns, table=_show_table)


def support_status_text(status: Mapping[str, Any]) -> str:
    """Heat's ``SupportStatus`` as its CLI prints it: the status, ``since`` only when a
    version is known, and the message when there is one (``SUPPORTED``, ``DEPRECATED since
    9.0.0: use X``)."""
    text = str(status.get("status") or "SUPPORTED")
    if status.get("version"):
        text += f" since {status['version']}"
    if status.get("message"):
        text += f": {status['message']}"
    return text


def _summary(plugin: object) -> str:
    """The first line of a plugin class's docstring."""
    doc = (type(plugin).__doc__ or "").strip().replace("``", "")
    return doc.splitlines()[0] if doc else ""


def _show_table(data: dict[str, Any], console: Console) -> None:
    status = data["support_status"]
    console.print(Text(f"{data['resource_type']} ({support_status_text(status)})"))
    rows = [row for name, prop in data["properties"].items() for row in _flatten(name, prop)]
    if rows:
        columns = ["name", "type", "required", "default", "constraints", "update_allowed"]
        console.print(simple_table(rows, columns, "Properties", no_wrap=["name", "type"]))
    else:
        console.print("No properties.")
    attributes = [
        {
            "name": name,
            "type": attribute.get("type", ""),
            "description": attribute.get("description"),
        }
        for name, attribute in data["attributes"].items()
    ]
    console.print(
        simple_table(attributes, ["name", "type", "description"], "Attributes", no_wrap=["name"])
    )


def _flatten(name: str, prop: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """A property and, below it, its nested keys (``parts.*.config``), one row each."""
    constraints = prop.get("constraints") or []
    yield {
        "name": name,
        "type": prop["type"],
        "required": prop["required"],
        "default": prop.get("default"),
        "constraints": "\n".join(_constraint_text(c) for c in constraints) or None,
        "update_allowed": prop["update_allowed"],
    }
    for key, nested in (prop.get("schema") or {}).items():
        yield from _flatten(f"{name}.{key}", nested)


def _constraint_text(constraint: Mapping[str, Any]) -> str:
    kind, body = next((k, v) for k, v in constraint.items() if k != "description")
    if isinstance(body, Mapping):
        body = ", ".join(f"{key}={value}" for key, value in body.items())
    elif isinstance(body, list):
        body = ", ".join(str(item) for item in body)
    return f"{kind}: {body}"
