"""``stack suspend`` and ``stack resume``: Heat's pause and unpause of a whole stack.

Suspend visits resources in reverse dependency order (dependents first), resume forward,
each calling the type's handler (cloud-free types do nothing but change state) and, for a
resource backed by a nested stack, suspending or resuming that child. A stack already
SUSPEND_COMPLETE is not suspended again, nor one RESUME_COMPLETE resumed (Heat returns
at once). Resources in no state for the action fail the stack and keep their own state:
resuming a stack that was never suspended ends RESUME_FAILED, as in Heat 24.1.2.
"""

from __future__ import annotations

from stoker.engine.heap import frozen_heap
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import (
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


async def suspend(host: ActionHost, name_or_id: str) -> StackRecord:
    return await _top(host, name_or_id, Action.SUSPEND)


async def resume(host: ActionHost, name_or_id: str) -> StackRecord:
    return await _top(host, name_or_id, Action.RESUME)


async def _top(host: ActionHost, name_or_id: str, action: Action) -> StackRecord:
    stack = await find_stack(host, name_or_id)
    await refuse_nested(host, stack, action.value.lower())
    await refuse_in_progress(host, stack, action.value.lower())
    if stack.action is action and stack.status is Status.COMPLETE:
        return stack  # Heat: "already suspended" / "already resumed", nothing to do
    with frozen_heap():
        return await run(host, stack, action)


async def run(
    host: ActionHost, stack: StackRecord, action: Action, parent: StackWalk | None = None
) -> StackRecord:
    """Suspend or resume ``stack`` (also a nested one, from its parent's walk, or the
    continuation of an interrupted one)."""

    async def effect(walk: StackWalk, record: ResourceRecord) -> Done:
        if is_nested(host, record):

            async def child(parent: StackWalk | None, stack: StackRecord) -> StackRecord:
                return await run(host, stack, action, parent)

            return await child_action(walk, record, action.value.lower(), child)
        plugin = host.plugin_of(record)
        if plugin is not None:
            context = walk.context(record)
            if action is Action.SUSPEND:
                await plugin.suspend(context)
            else:
                await plugin.resume(context)
        return Done()

    return await perform(
        host, stack, action, effect, backwards=action is Action.SUSPEND, parent=parent
    )
