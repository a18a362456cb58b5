"""``stack snapshot create|list|show|delete``: Heat's stack snapshots.

A snapshot is an action on the stack (SNAPSHOT_IN_PROGRESS, every resource
SNAPSHOT_COMPLETE, SNAPSHOT_COMPLETE), after which the stack's document (the abandon
document: template, environment, files, and each resource's data such as a
RandomString's value, nested stacks inside) is stored with the snapshot, as Heat's
``stack_snapshot`` stores ``prepare_abandon()``. A stack with an operation in progress
cannot be snapshotted (Heat: ``Stack X already has an action (A) in progress.``).
Restoring is `stoker.engine.restore`.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

from stoker.engine import leases
from stoker.engine.abandon import document
from stoker.engine.operation import Operation
from stoker.engine.state import Action, ResourceRecord, SnapshotRecord, StackRecord, Status
from stoker.engine.walks import Done, child_action, perform
from stoker.errors import NotFound, OperationRefused

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


async def create(engine: StackEngine, name_or_id: str, name: str | None = None) -> SnapshotRecord:
    """`StackEngine.snapshot`: the walk, then the stack's document stored with it."""
    stack = await engine.find(name_or_id)
    await refuse_busy(engine, stack, "snapshot")
    snapshot = SnapshotRecord(
        id=str(uuid.uuid4()),
        stack_id=stack.id,
        name=name,
        status=Status.IN_PROGRESS.value,
        status_reason="",
        data=None,
        created_at=leases.now_utc(),
    )
    await asyncio.to_thread(engine.store.add_snapshot, snapshot)
    result = await run(engine, stack)
    return await _finish(engine, snapshot, result)


async def refuse_busy(engine: StackEngine, stack: StackRecord, verb: str) -> None:
    """Refuse a nested stack (`StackEngine.refuse_nested`), and a stack with an operation
    in progress, in Heat's words (its stack lock is taken), before it is touched."""
    await engine.refuse_nested(stack, verb)
    if stack.status is Status.IN_PROGRESS:
        raise OperationRefused(
            f"Stack {stack.name} already has an action ({stack.action.value}) in progress."
        )


async def recover(engine: StackEngine, stack: StackRecord) -> StackRecord:
    """Finish a snapshot whose process died: the walk, then the snapshot it was taking."""
    result = await run(engine, stack)
    for snapshot in await asyncio.to_thread(engine.store.snapshots, stack.id):
        if snapshot.status == Status.IN_PROGRESS.value:
            await _finish(engine, snapshot, result)
    return result


async def _finish(
    engine: StackEngine, snapshot: SnapshotRecord, result: StackRecord
) -> SnapshotRecord:
    """Store the stack's document with the snapshot once the walk ended (Heat saves it
    just before the stack's SNAPSHOT_COMPLETE)."""
    data = None
    if result.status is Status.COMPLETE:
        data = await asyncio.to_thread(document, engine.store, result, Action.SNAPSHOT)
    done = replace(
        snapshot, status=result.status.value, status_reason=result.status_reason, data=data
    )
    await asyncio.to_thread(engine.store.add_snapshot, done)
    return done


async def run(
    engine: StackEngine, stack: StackRecord, parent: Operation | None = None
) -> StackRecord:
    async def effect(operation: Operation, record: ResourceRecord) -> Done:
        # Heat: only OS::Heat::Stack snapshots its child (RemoteStack.handle_snapshot);
        # a provider template's or a group's child is left as it is
        if record.data.get("child_id") and record.type == "OS::Heat::Stack":

            async def child(parent: Operation, stack: StackRecord) -> StackRecord:
                return await run(engine, stack, parent)

            return await child_action(operation, record, "snapshot", child)
        return Done()

    return await perform(engine, stack, Action.SNAPSHOT, effect, parent=parent)


async def listing(engine: StackEngine, name_or_id: str) -> list[SnapshotRecord]:
    stack = await engine.find(name_or_id)
    return await asyncio.to_thread(engine.store.snapshots, stack.id)


async def find(engine: StackEngine, name_or_id: str, snapshot: str) -> SnapshotRecord:
    """A snapshot of the stack by id (or by name, when one snapshot has it)."""
    for found in await listing(engine, name_or_id):
        if found.id == snapshot:
            return found
    named = [s for s in await listing(engine, name_or_id) if s.name == snapshot]
    if len(named) == 1:
        return named[0]
    raise NotFound(f"Snapshot with id {snapshot} not found")


async def delete(engine: StackEngine, name_or_id: str, snapshot: str) -> SnapshotRecord:
    found = await find(engine, name_or_id, snapshot)
    await asyncio.to_thread(engine.store.delete_snapshot, found.id)
    return found
