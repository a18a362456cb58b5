"""``stoker stack resource list|show|mark-unhealthy``: a stack's resources as ``openstack
stack resource ...`` shows them, and marking one unhealthy (`StackEngine.mark_unhealthy`)."""

from __future__ import annotations

import asyncio

import click

from stoker.cli.options_stack import nested_listing
from stoker.cli.output import emit_record, emit_rows, record_options
from stoker.cli.stack_document import status_line
from stoker.cli.stack_session import Session, find_stack
from stoker.engine import resource_document, resource_rows


@click.group()
def resource() -> None:
    """Stack resources."""


@resource.command("list")
@nested_listing("Depth of nested stacks to list (nested stacks come with provider templates).")
def resource_list(
    session: Session, name: str, nested_depth: int, fmt: str, columns: tuple[str, ...]
) -> None:
    """List the resources of NAME (and of its nested stacks, to --nested-depth)."""
    record = find_stack(session, name)
    rows = resource_rows(session.store, session.settings.project, record, nested_depth)
    default = [
        "resource_name",
        "physical_resource_id",
        "resource_type",
        "resource_status",
        "updated_time",
    ]
    if nested_depth:
        default.append("stack_name")
    emit_rows(rows, fmt, columns, default)


@resource.command("show")
@click.argument("name")
@click.argument("resource_name")
@record_options
@click.pass_obj
def resource_show(
    session: Session, name: str, resource_name: str, fmt: str, columns: tuple[str, ...]
) -> None:
    """Show resource RESOURCE_NAME of NAME, with its attributes."""
    from stoker.engine import StackNotFound

    record = find_stack(session, name)
    records = {r.name: r for r in session.store.resources(record.id)}
    found = records.get(resource_name)
    if found is None:
        raise StackNotFound(
            f"The Resource ({resource_name}) could not be found in Stack {record.name}."
        )
    row = resource_document(session.engine(), record, records, resource_name)
    emit_record(row, fmt, columns)


@resource.command("mark-unhealthy")
@click.argument("name")
@click.argument("resource_name")
@click.argument("reason", required=False)
@click.option("--reset", is_flag=True, help="Mark the resource healthy again.")
@click.pass_obj
def mark_unhealthy(
    session: Session, name: str, resource_name: str, reason: str | None, reset: bool
) -> None:
    """Mark RESOURCE_NAME of NAME unhealthy (CHECK_FAILED: the next update replaces it)."""
    engine = session.engine()
    record = asyncio.run(engine.mark_unhealthy(name, resource_name, not reset, reason))
    click.echo(status_line(record), err=True)
