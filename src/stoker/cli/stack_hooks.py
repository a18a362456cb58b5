"""``stoker stack hook poll|clear``: the breakpoints an operation waits on, and clearing
them (``openstack stack hook poll|clear``; see `stoker.engine.hooks`)."""

from __future__ import annotations

import asyncio

import click

from stoker.cli.options_stack import nested_listing
from stoker.cli.output import emit_rows
from stoker.cli.stack_session import Session, find_stack
from stoker.engine import paused_hooks
from stoker.errors import OperationRefused


@click.group()
def hook() -> None:
    """Breakpoints (hooks) set in the environment's resource_registry."""


@hook.command("poll")
@nested_listing("Depth of nested stacks to look into.")
def hook_poll(
    session: Session, name: str, nested_depth: int, fmt: str, columns: tuple[str, ...]
) -> None:
    """List the resources of NAME an operation is paused at, with the hook."""
    record = find_stack(session, name)
    rows = paused_hooks(session.store, session.settings.project, record, nested_depth)
    emit_rows(rows, fmt, columns, ["resource_name", "pause_type", "stack_name"])


@hook.command("clear")
@click.argument("name")
@click.argument("resources", nargs=-1, required=True)
@click.option("--pre-create", is_flag=True, help="Clear the pre-create hooks.")
@click.option("--pre-update", is_flag=True, help="Clear the pre-update hooks.")
@click.option("--pre-delete", is_flag=True, help="Clear the pre-delete hooks.")
@click.pass_obj
def hook_clear(
    session: Session,
    name: str,
    resources: tuple[str, ...],
    pre_create: bool,
    pre_update: bool,
    pre_delete: bool,
) -> None:
    """Clear the hook RESOURCES of NAME are paused at (those of the given kinds only,
    with --pre-create, --pre-update or --pre-delete), so the operation goes on."""
    kinds = {"pre-create": pre_create, "pre-update": pre_update, "pre-delete": pre_delete}
    chosen = {kind for kind, wanted in kinds.items() if wanted}
    record = find_stack(session, name)
    waiting = {
        r["resource_name"]: r["pause_type"]
        for r in paused_hooks(session.store, session.settings.project, record, 0)
    }
    engine = session.engine()
    for resource in resources:
        kind = waiting.get(resource)
        if kind is None or (chosen and kind not in chosen):
            raise OperationRefused(f"The resource {resource} of {name} is not paused at a hook.")
        asyncio.run(engine.signal(record.id, resource, {"unset_hook": kind}))
