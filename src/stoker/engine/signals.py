"""Signals to a resource (a wait condition handle, a TestResource...): by stack and
resource name, or by the resource's own token, the way a server that only knows its
token signals. A signal is recorded as a SIGNAL_COMPLETE event on the resource."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stoker.engine import hooks, leases
from stoker.engine.state import Action, EventRecord, Status, WriteBatch
from stoker.errors import OperationRefused, StackNotFound
from stoker.resources import ResourceContext

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


async def signal_with_token(engine: StackEngine, token: str, details: Any) -> tuple[str, str]:
    """Signal the resource holding ``token`` (a wait condition handle's own secret), the
    way a server that only knows its token signals; returns (stack, resource)."""
    project = engine.settings.project
    stacks = await asyncio.to_thread(engine.store.list_stacks, project, include_nested=True)
    for stack in stacks:
        for record in await asyncio.to_thread(engine.store.resources, stack.id):
            held = record.data.get("token")
            if isinstance(held, str) and secrets.compare_digest(held, token):
                await signal(engine, stack.id, record.name, details)
                return stack.name, record.name
    raise StackNotFound("No resource holds this signal token.")


async def signal(engine: StackEngine, name_or_id: str, resource_name: str, details: Any) -> None:
    stack = await engine.find(name_or_id)
    records = {r.name: r for r in await asyncio.to_thread(engine.store.resources, stack.id)}
    record = records.get(resource_name)
    if record is None:
        raise StackNotFound(
            f"The Resource ({resource_name}) could not be found in Stack {stack.name}."
        )
    if isinstance(details, dict) and "unset_hook" in details:  # a breakpoint cleared
        await hooks.clear(engine, record, str(details["unset_hook"]))
        return
    if record.action in (Action.DELETE, Action.SUSPEND) or record.action is Action.INIT:
        raise OperationRefused(f"Signal resource during {record.action.value} is not supported.")
    plugin = engine.plugin_of(record)
    if plugin is None:
        raise OperationRefused(f"The Resource Type ({record.type}) could not be found.")
    context = ResourceContext(
        stack_name=stack.name,
        stack_id=stack.id,
        project_id=stack.project,
        resource_name=record.name,
        physical_name=record.physical_id or record.name,
        properties=record.properties,
        data=dict(record.data),
        physical_id=record.physical_id,
    )
    await plugin.signal(context, details)
    now = leases.now_utc()
    updated = replace(record, data=context.data, updated_at=now)
    reason = "Signal received"
    if isinstance(details, dict) and details.get("reason"):
        reason = f"Signal: {details['reason']}"
    event = EventRecord.of(record, Action.SIGNAL, Status.COMPLETE, reason, now)
    await asyncio.to_thread(engine.store.write, WriteBatch(resources=[updated], events=[event]))
    engine.queries.forget(stack.id)  # its attributes, and outputs above it, may have changed
    engine.notify([event])
