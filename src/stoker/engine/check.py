"""``stack check``: Heat's check of every resource against what really exists.

A resource type that can look at its real resource does so (Heat's ``handle_check``);
every other type is marked CHECK_COMPLETE with ``CHECK not supported for <type>``, and the
stack's reason then ends ``. 'CHECK' not fully supported (see resources)`` (Heat 24.1.2,
``Stack.supports_check_action``). None of the cloud-free types can check anything; a
resource backed by a nested stack checks its child (and the child's support counts).
Every resource is checked even after one fails (Heat aggregates the failures), and a
check clears what ``mark-unhealthy`` set, as Heat's does. A resource never created (INIT)
is left as it is, unless it is nested: then it fails, ``Can not check <name>, resource
not created yet.`` (Heat's ``Resource.check``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.engine.heap import frozen_heap
from stoker.engine.operation import Operation
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import (
    ActionFailure,
    Done,
    child_action,
    is_nested,
    perform,
    refuse_in_progress,
)

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine

UNSUPPORTED = ". 'CHECK' not fully supported (see resources)"


async def check(engine: StackEngine, name_or_id: str) -> StackRecord:
    """`StackEngine.check_stack`: refused for a nested stack or one in progress."""
    stack = await engine.find(name_or_id)
    await engine.refuse_nested(stack, "check")
    await refuse_in_progress(engine, stack, "check")
    with frozen_heap():
        return await run(engine, stack)


async def run(
    engine: StackEngine, stack: StackRecord, parent: Operation | None = None
) -> StackRecord:
    #: some resource (here or below) cannot really check itself (Heat's "not fully
    #: supported")
    unsupported = False

    async def effect(operation: Operation, record: ResourceRecord) -> Done:
        nonlocal unsupported
        if is_nested(engine, record) and record.action is Action.INIT:
            raise ActionFailure(
                f"Resource {record.name} not created yet.",
                resource_reason=f"Can not check {record.name}, resource not created yet.",
            )
        if is_nested(engine, record):

            async def child(parent: Operation, stack: StackRecord) -> StackRecord:
                nonlocal unsupported
                result = await run(engine, stack, parent)
                if result.status_reason.endswith(UNSUPPORTED):
                    unsupported = True
                return result

            return await child_action(operation, record, "check", child)
        unsupported = True
        return Done(f"CHECK not supported for {record.type}")

    def finish(status: Status, reason: str) -> str:
        return reason + UNSUPPORTED if unsupported else reason

    def untouched(record: ResourceRecord) -> bool:
        # Heat: "better to leave the resource in INIT_COMPLETE than imply that we've
        # checked and it exists" (a type that cannot check, never created)
        return record.action is Action.INIT and not is_nested(engine, record)

    return await perform(
        engine,
        stack,
        Action.CHECK,
        effect,
        aggregate=True,
        parent=parent,
        finish=finish,
        untouched=untouched,
    )
