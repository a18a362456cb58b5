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

from stoker.engine.heap import frozen_heap
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import (
    ActionFailure,
    ActionHost,
    Done,
    StackWalk,
    child_action,
    find_stack,
    is_nested,
    perform,
    refuse_in_progress,
    refuse_nested,
)

UNSUPPORTED = ". 'CHECK' not fully supported (see resources)"


async def check(host: ActionHost, name_or_id: str) -> StackRecord:
    stack = await find_stack(host, name_or_id)
    await refuse_nested(host, stack, "check")
    await refuse_in_progress(host, stack, "check")
    with frozen_heap():
        return await run(host, stack)


async def run(host: ActionHost, stack: StackRecord, parent: StackWalk | None = None) -> StackRecord:
    async def effect(walk: StackWalk, record: ResourceRecord) -> Done:
        if is_nested(host, record) and record.action is Action.INIT:
            raise ActionFailure(
                f"Resource {record.name} not created yet.",
                resource_reason=f"Can not check {record.name}, resource not created yet.",
            )
        if is_nested(host, record):

            async def child(parent: StackWalk | None, stack: StackRecord) -> StackRecord:
                result = await run(host, stack, parent)
                if result.status_reason.endswith(UNSUPPORTED):
                    walk.unsupported = True
                return result

            return await child_action(walk, record, "check", child)
        walk.unsupported = True
        return Done(f"CHECK not supported for {record.type}")

    def finish(walk: StackWalk, status: Status, reason: str) -> str:
        return reason + UNSUPPORTED if walk.unsupported else reason

    def untouched(record: ResourceRecord) -> bool:
        # Heat: "better to leave the resource in INIT_COMPLETE than imply that we've
        # checked and it exists" (a type that cannot check, never created)
        return record.action is Action.INIT and not is_nested(host, record)

    return await perform(
        host,
        stack,
        Action.CHECK,
        effect,
        aggregate=True,
        parent=parent,
        finish=finish,
        untouched=untouched,
    )
