"""``stack resource mark-unhealthy``: Heat's way for a user to say a resource is broken.

Marking puts the resource in CHECK_FAILED with the reason given (Heat's default reason
when none is), so the next update replaces it (a FAILED resource is replaced, as in
Heat). ``--reset`` (``mark_unhealthy: false``) turns CHECK_FAILED back into
CHECK_COMPLETE and changes nothing in any other state; a resource being deleted is never
marked. Both take the stack's claim for their one write, as Heat takes the stack lock.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from stoker.engine import leases
from stoker.engine.operation import Operation
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.errors import StackNotFound

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine

DEFAULT_REASON = "state changed by resource_mark_unhealthy api"


async def mark_unhealthy(
    engine: StackEngine,
    name_or_id: str,
    resource: str,
    unhealthy: bool = True,
    reason: str | None = None,
) -> ResourceRecord:
    """Mark ``resource`` (a name or physical id) of the stack; returns it as recorded."""
    stack = await engine.find(name_or_id)
    records = await asyncio.to_thread(engine.store.resources, stack.id)
    found = next((r for r in records if r.name == resource), None) or next(
        (r for r in records if r.physical_id is not None and r.physical_id == resource), None
    )
    if found is None:
        raise StackNotFound(f"The Resource ({resource}) could not be found in Stack {stack.name}.")
    if unhealthy and found.action is Action.DELETE:
        return found
    if not unhealthy and not (found.action is Action.CHECK and found.status is Status.FAILED):
        return found
    return await _write(
        engine,
        stack,
        found,
        Status.FAILED if unhealthy else Status.COMPLETE,
        reason or DEFAULT_REASON,
    )


async def _write(
    engine: StackEngine, stack: StackRecord, record: ResourceRecord, status: Status, reason: str
) -> ResourceRecord:
    fence = await engine.claim(stack)
    operation = Operation(engine, stack, None)
    operation.attach(fence)
    async with leases.held(engine.store, fence):
        operation.records = {record.name: record}
        return await operation.transition(record, Action.CHECK, status, reason)
