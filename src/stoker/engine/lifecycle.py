"""A stack's create and delete, the two actions that walk every resource one way: a
create creates each resource (after those it depends on) and, failed, rolls back by
deleting what it made; a delete deletes each one (before those it depends on). `recover`
continues either, or an interrupted update (`engine.update`), from the recorded state: a
resource whose create completed is never created again. The facade's `create`, `delete`
and `recover` run these (`stoker.engine.stacks`); nested stacks run them from their
parent's operation (`engine.nested`, `engine.deletion`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from stoker.engine import leases, testpoints, update
from stoker.engine.heap import frozen_heap
from stoker.engine.new_stacks import CreateRequest, check_stack_name, refused_as_heat, write_new
from stoker.engine.operation import Operation
from stoker.engine.state import Action, StackRecord, Status
from stoker.errors import OperationRefused, StackLimitReached

if TYPE_CHECKING:
    from stoker.definition import StackDefinition
    from stoker.engine.stacks import StackEngine


async def create(engine: StackEngine, request: CreateRequest) -> StackRecord:
    """A new stack from ``request``: its name and the project's stack limit checked, its
    first records written, claimed, and its resources created."""
    check_stack_name(request.name)
    project = engine.settings.project
    limit = engine.settings.max_stacks_per_project
    with refused_as_heat(request.name):
        # a cheap refusal before the stack is built; the store counts again, in the
        # inserting transaction, so concurrent creators cannot pass the limit
        if await asyncio.to_thread(engine.store.count_stacks, project) >= limit:
            raise StackLimitReached(limit)
        stack = StackRecord(
            id=request.stack_id or str(uuid.uuid4()),
            name=request.name,
            project=project,
            action=Action.CREATE,
            status=Status.IN_PROGRESS,
            status_reason="Stack CREATE started",
            template=request.template,
            environment=request.environment,
            files=dict(request.definition.files),
            parameters=request.parameters,
            created_at=leases.now_utc(),
            tags=request.tags,
            timeout_mins=request.timeout_mins,
            disable_rollback=request.disable_rollback,
            template_file=request.template_file,
            cloud=request.cloud,
        )
        context = request.definition.context
        if context is not None:  # the pseudo-parameters are known from here on
            context.stack_name, context.stack_id = stack.name, stack.id
            context.project_id = stack.project
        with frozen_heap():
            created = await create_stack(engine, stack, request.definition, parent=None)
    # The definition it was created from is the one its stored template rebuilds (its
    # context now knows the stack's id): showing the stack need not rebuild it.
    engine.queries.remember(created.id, request.definition)
    return created


async def create_stack(
    engine: StackEngine, stack: StackRecord, definition: StackDefinition, parent: Operation | None
) -> StackRecord:
    """Write the stack with its resources (INIT), claimed, and create it."""
    operation = Operation(engine, stack, definition, parent)
    types = operation.resolution().types
    initial, fence = await write_new(engine, stack, definition, types)
    operation.written(initial)
    # what the stack stored rebuilds to this definition: its outputs, read by its
    # facade, need not parse and define its template again
    engine.queries.remember(stack.id, definition)
    testpoints.reached("after_stack_row")
    operation.attach(fence)
    created = await run_create(operation, done=())
    if parent is not None:  # its facade reads its outputs next: from what was written
        engine.queries.created(created, operation.records)
    return created


async def run_create(operation: Operation, done: Iterable[str]) -> StackRecord:
    """Create the operation's resources (but those ``done``) and, failed, roll back by
    deleting them unless the stack disables rollback."""
    stack = operation.stack
    async with leases.held(operation.engine.store, operation.claim()):
        try:
            result = await operation.walk(Action.CREATE, done)
        except asyncio.CancelledError:
            # A nested stack whose parent's operation stopped (timed out): say so
            # rather than leave it CREATE_IN_PROGRESS.
            await asyncio.shield(
                operation.finish(
                    Action.CREATE,
                    Status.FAILED,
                    "Create cancelled: the operation of the stack above it stopped",
                )
            )
            raise
        if result.ok:
            testpoints.reached("before_stack_complete")
            return await operation.finish(
                Action.CREATE, Status.COMPLETE, "Stack CREATE completed successfully", last=True
            )
        reason = operation.failure_summary(Action.CREATE, result)
        # a cancelled create is not rolled back (convergence engine)
        final = stack.disable_rollback or operation.cancelled(result)
        failed = await operation.finish(Action.CREATE, Status.FAILED, reason, last=final)
        if final:
            return failed
        await operation.set_stack(Action.ROLLBACK, Status.IN_PROGRESS, "Stack ROLLBACK started")
        return await run_delete(operation, Action.ROLLBACK)


async def delete_stack(
    engine: StackEngine, stack: StackRecord, parent: Operation | None
) -> StackRecord:
    """Claim the stack and delete it (its nested stacks with it)."""
    fence = await engine.claim(stack)
    operation = Operation(engine, stack, None, parent)
    operation.attach(fence)
    async with leases.held(engine.store, fence):
        await operation.set_stack(Action.DELETE, Status.IN_PROGRESS, "Stack DELETE started")
        return await run_delete(operation, Action.DELETE)


async def run_delete(operation: Operation, action: Action) -> StackRecord:
    """Delete the operation's resources (those not deleted yet) as ``action`` (a delete,
    or a failed create's rollback); a deleted stack is marked so."""
    await operation.load_records()
    operation.restart_clock()
    result = await operation.walk(Action.DELETE, operation.already_deleted())
    if not result.ok:
        reason = operation.failure_summary(Action.DELETE, result)
        return await operation.finish(action, Status.FAILED, reason)
    record = await operation.finish(
        action, Status.COMPLETE, f"Stack {action.value} completed successfully"
    )
    if action is Action.DELETE:
        now = leases.now_utc()
        fence = operation.claim()
        await asyncio.to_thread(operation.engine.store.mark_deleted, record.id, now, fence.token)
        record = replace(record, deleted_at=now)
    return record


async def recover_stack(
    engine: StackEngine, stack: StackRecord, parent: Operation | None
) -> StackRecord:
    """Continue the interrupted create, delete, update (or restore) or rollback of
    ``stack`` (also a nested one, from its parent's recovered operation)."""
    if stack.status is not Status.IN_PROGRESS:
        raise OperationRefused(
            f"Stack {stack.name} is {stack.action.value}_{stack.status.value}: there is "
            "no interrupted operation to recover"
        )
    fence = await engine.claim(stack)
    if stack.action is Action.CREATE:
        operation = Operation(engine, stack, engine.definition_of(stack), parent)
        operation.attach(fence)
        await operation.load_records()
        done = [
            name
            for name, r in operation.records.items()
            if r.action is Action.CREATE and r.status is Status.COMPLETE
        ]
        return await run_create(operation, done)
    if stack.action in (Action.UPDATE, Action.RESTORE) or (
        stack.action is Action.ROLLBACK
        and await asyncio.to_thread(engine.store.previous_definition, stack.id) is not None
    ):
        return await update.resume_update(engine, stack, fence, parent)
    operation = Operation(engine, stack, None, parent)
    operation.attach(fence)
    async with leases.held(engine.store, fence):
        return await run_delete(operation, stack.action)
