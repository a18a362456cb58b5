"""Heat's breakpoints: an environment's ``resource_registry`` sets ``hooks`` on resources
(``resources: {web*: {hooks: [pre-create, pre-update]}}``, names and wildcards, in the
``resources:`` blocks of nested stacks too). An operation about to create, update or
delete such a resource pauses there: the resource keeps its state, an event says
``CREATE paused until Hook pre-create is cleared``, the stack stays IN_PROGRESS, and the
resources that do not depend on it go on. A signal ``{"unset_hook": "pre-create"}``
(``openstack stack hook clear``, ``stoker stack hook clear``) clears it, with the event
``Hook pre-create is cleared``, and the operation goes on.

The pending hook is the resource's own data (``hook``), so a clear from another process
(the CLI beside a server) is seen, and a paused operation resumed after a crash pauses
again until it is cleared.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from stoker.engine import leases
from stoker.engine.resource_views import child_stacks
from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    StackRecord,
    Store,
    WriteBatch,
)
from stoker.errors import OperationRefused

if TYPE_CHECKING:
    from stoker.engine.operation import Operation
    from stoker.engine.stacks import StackEngine

#: the resource data key holding the hook an operation waits on
PENDING = "hook"
#: the hook each action stops at
HOOKS = {Action.CREATE: "pre-create", Action.UPDATE: "pre-update", Action.DELETE: "pre-delete"}
#: seconds between two looks at the store while paused (a clear may come from another
#: process; the wait is a person's, not a machine's)
POLL_SECONDS = 0.5


def hooks_of(operation: Operation, name: str) -> frozenset[str]:
    """The hooks the stack's environment sets on resource ``name`` (a nested stack's
    registry is already narrowed to its own ``resources:`` blocks)."""
    definition = operation.definition
    if definition is None:
        return frozenset()
    return definition.environment.resource_registry.hooks(name)


async def pause(operation: Operation, name: str, action: Action) -> None:
    """Stop before ``action`` on resource ``name`` while its hook for that action is set."""
    hook = HOOKS[action]
    record = operation.records.get(name)
    if record is None or hook not in hooks_of(operation, name):
        return
    if action is Action.DELETE and record.action is Action.INIT:
        return  # nothing to delete: Heat passes a resource never created by
    if record.data.get(PENDING) != hook:  # a resumed operation may find it pending already
        record = await operation.transition(
            record,
            record.action,
            record.status,
            f"{action.value} paused until Hook {hook} is cleared",
            data={**record.data, PENDING: hook},
        )
    store = operation.engine.store
    while True:
        await asyncio.sleep(POLL_SECONDS)
        stored = await asyncio.to_thread(_stored, store, record)
        if stored is None or stored.data.get(PENDING) != hook:
            break
    # carry on from what the clear wrote (the record without the hook)
    if stored is not None:
        operation.records[name] = replace(record, data=dict(stored.data))


def _stored(store: Store, record: ResourceRecord) -> ResourceRecord | None:
    return next((r for r in store.resources(record.stack_id) if r.name == record.name), None)


async def clear(engine: StackEngine, record: ResourceRecord, hook: str) -> None:
    """The signal ``{"unset_hook": hook}``: the paused operation goes on."""
    if hook not in HOOKS.values():
        raise OperationRefused(
            f'Invalid hook type "{hook}" for resource breakpoint, acceptable hook types '
            f"are: {sorted(HOOKS.values())}"
        )
    if record.data.get(PENDING) != hook:
        raise OperationRefused(f"The resource {record.name} has no hook {hook} pending.")
    now = leases.now_utc()
    data = {k: v for k, v in record.data.items() if k != PENDING}
    event = EventRecord.of(record, record.action, record.status, f"Hook {hook} is cleared", now)
    batch = WriteBatch(resources=[replace(record, data=data)], events=[event])
    await asyncio.to_thread(engine.store.write, batch)
    engine.notify([event])


def pending(record: ResourceRecord) -> str | None:
    """The hook an operation waits on at this resource, if any."""
    hook = record.data.get(PENDING)
    return hook if isinstance(hook, str) else None


def paused(store: Store, project: str, stack: StackRecord, depth: int) -> list[dict[str, str]]:
    """The resources an operation waits on (``stack hook poll``), in ``stack`` and its
    nested stacks down to ``depth``: each one's name, its stack and the hook."""
    found = []
    records = store.resources(stack.id)
    for record in records:
        hook = pending(record)
        if hook is not None:
            found.append(
                {"resource_name": record.name, "stack_name": stack.name, "pause_type": hook}
            )
    if depth > 0:
        for child in child_stacks(store, project, records):
            found.extend(paused(store, project, child, depth - 1))
    return found
