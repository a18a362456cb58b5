"""``stoker stack output|event|template|environment|graph ...``: what a stack recorded,
shown as ``openstack stack ...`` shows it (the views are `stoker.engine`'s `*_views`);
its resources are `stoker.cli.stack_resources`'s."""

from __future__ import annotations

import time
from typing import Any

import click

from stoker.blueprint import SOURCE_FILE
from stoker.cli.graph import graph_options, write_graph
from stoker.cli.output import (
    document_format_option,
    emit,
    emit_record,
    emit_rows,
    record_options,
)
from stoker.cli.progress import event_line
from stoker.cli.stack_document import show_secrets_option
from stoker.cli.stack_session import Session, find_stack
from stoker.engine import (
    Status,
    event_row,
    masked_environment,
    stack_events,
    table_outputs,
    template_document,
)
from stoker.errors import NotFound, OperationFailed


# ---------------------------------------------------------------------------- outputs
@click.group()
def output() -> None:
    """Stack outputs."""


@output.command("list")
@click.argument("name")
@click.option("--all", "show_all", is_flag=True, help="Show values too.")
@record_options
@show_secrets_option
@click.pass_obj
def output_list(
    session: Session,
    name: str,
    show_all: bool,
    fmt: str,
    columns: tuple[str, ...],
    show_secrets: bool,
) -> None:
    """List the outputs of NAME."""
    outputs = _outputs(session, name, fmt, show_secrets)
    if show_all:
        emit_rows(outputs, fmt, columns, ["output_key", "output_value", "description"])
    else:
        rows = [{k: o.get(k) for k in ("output_key", "description")} for o in outputs]
        emit_rows(rows, fmt, columns, ["output_key", "description"])


@output.command("show")
@click.argument("name")
@click.argument("key", required=False)
@click.option("--all", "show_all", is_flag=True, help="Show every output.")
@record_options
@show_secrets_option
@click.pass_obj
def output_show(
    session: Session,
    name: str,
    key: str | None,
    show_all: bool,
    fmt: str,
    columns: tuple[str, ...],
    show_secrets: bool,
) -> None:
    """Show output KEY of NAME (or --all)."""
    from stoker.engine import StackNotFound

    if not key and not show_all:
        raise click.UsageError("give an output KEY or --all")
    outputs = _outputs(session, name, fmt, show_secrets)
    if show_all:
        emit_rows(outputs, fmt, columns, ["output_key", "output_value", "description"])
        return
    found = [o for o in outputs if o["output_key"] == key]
    if not found:
        raise StackNotFound(f"Specified output key {key} not found.")
    emit_record(found[0], fmt, columns)
    if "output_error" in found[0]:
        raise OperationFailed(f"output {key}: {found[0]['output_error']}")


def _outputs(session: Session, name: str, fmt: str, show_secrets: bool) -> list[dict[str, Any]]:
    """The outputs of stack NAME, resolved; in a table, those derived from a hidden
    parameter shown as ``<sensitive>`` unless ``--show-secrets``."""
    record = find_stack(session, name)
    engine = session.engine()
    outputs = engine.outputs(record)
    if fmt == "table" and not show_secrets:
        outputs = table_outputs(engine, record, outputs)
    return outputs


# ---------------------------------------------------------------------------- graph
@click.command("graph")
@click.argument("name")
@graph_options
@click.pass_obj
def graph(session: Session, name: str, fmt: str, nested_depth: int, output: str | None) -> None:
    """Draw the dependency graph of NAME's resources, coloured by their state.

    Each edge says what makes it (depends_on, get_resource, get_attr, or implied by a
    Neutron type); nested stacks (provider templates, groups, OS::Heat::Stack) are
    clusters down to --nested-depth, collapsed below it.
    """
    from stoker.graph import render, stack_graph

    record = find_stack(session, name)
    write_graph(render(stack_graph(session.engine(), record, nested_depth), fmt), output)


# ---------------------------------------------------------------------------- events
@click.group()
def event() -> None:
    """Stack events."""


@event.command("list")
@click.argument("name")
@click.option(
    "--follow", is_flag=True, help="Keep printing new events until the stack operation ends."
)
@click.option(
    "--nested-depth",
    type=click.IntRange(min=0),
    default=0,
    help="Depth of nested stacks whose events to list too.",
)
@record_options
@click.pass_obj
def event_list(
    session: Session, name: str, follow: bool, nested_depth: int, fmt: str, columns: tuple[str, ...]
) -> None:
    """List the events of NAME, oldest first (with nested stacks' to --nested-depth)."""
    record = find_stack(session, name)
    events = stack_events(session.store, session.settings.project, record, nested_depth)
    if not follow:
        names = {record.id: record.name}
        if nested_depth:
            names.update(
                {
                    s.id: s.name
                    for s in session.store.list_stacks(
                        session.settings.project, include_nested=True, include_deleted=True
                    )
                }
            )
        rows = [{**event_row(e), "stack_name": names.get(e.stack_id, e.stack_id)} for e in events]
        default = ["event_time", "resource_name", "resource_status", "resource_status_reason"]
        emit_rows(rows, fmt, columns, [*default, "stack_name"] if nested_depth else default)
        return
    last = None
    while True:
        for item in events:
            click.echo(event_line(item))
            last = item.id
        current = session.store.get_stack(record.id, session.settings.project)
        if current is None or current.status is not Status.IN_PROGRESS:
            break
        time.sleep(0.5)
        events = session.store.events(record.id, after_id=last)


# ---------------------------------------------------------------------------- template/env
@click.group("template")
def template_group() -> None:
    """The template a stack was created from."""


@template_group.command("show")
@click.argument("name")
@document_format_option
@click.option(
    "--source",
    is_flag=True,
    help="Print the blueprint the stack was compiled from, as it was written.",
)
@click.pass_obj
def template_show(session: Session, name: str, fmt: str, source: bool) -> None:
    """Print the template of NAME (with --source, the blueprint it was compiled from)."""
    record = find_stack(session, name)
    if source:
        text = record.files.get(SOURCE_FILE)
        if text is None:
            raise NotFound(f"The Stack ({record.name}) was not created from a blueprint.")
        click.echo(text, nl=not text.endswith("\n"))
        return
    data = template_document(session.engine(), record)
    emit(data, fmt)


@click.group("environment")
def environment_group() -> None:
    """The environment a stack was created with."""


@environment_group.command("show")
@click.argument("name")
@document_format_option
@click.pass_obj
def environment_show(session: Session, name: str, fmt: str) -> None:
    """Print the merged environment of NAME (hidden parameter values masked)."""
    record = find_stack(session, name)
    data = masked_environment(session.engine(), record)
    emit(data, fmt)
