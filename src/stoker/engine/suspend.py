"""``stack suspend`` and ``stack resume``: Heat's pause and unpause of a whole stack.

Suspend visits resources in reverse dependency order (dependents first), resume forward,
each calling the type's handler (cloud-free types do nothing but change state) and, for a
resource backed by a nested stack, suspending or resuming that child. A stack already
SUSPEND_COMPLETE is not suspended again, nor one RESUME_COMPLETE resumed (Heat returns
at once). Resources in no state for the action fail the stack and keep their own state:
resuming a stack that was never suspended ends RESUME_FAILED, as in Heat 24.1.2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.engine.heap import frozen_heap
from stoker.engine.operation import Operation
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import (
    Done,
    child_action,
    handler_context,
    is_nested,
    perform,
    refuse_in_progress,
)

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


async def pause(engine: StackEngine, name_or_id: str, action: Action) -> StackRecord:
    """`StackEngine.suspend` and `StackEngine.resume` (``action`` says which)."""
    stack = await engine.find(name_or_id)
    await engine.refuse_nested(stack, action.value.lower())
    await refuse_in_progress(engine, stack, action.value.lower())
    if stack.action is action and stack.status is Status.COMPLETE:
        return stack  # Heat: "already suspended" / "already resumed", nothing to do
    with frozen_heap():
        return await run(engine, stack, action)


async def run(
    engine: StackEngine, stack: StackRecord, action: Action, parent: Operation | None = None
) -> StackRecord:
    """Suspend or resume ``stack`` (also a nested one, from its parent's walk, or the
    continuation of an interrupted one)."""

    async def effect(operation: Operation, record: ResourceRecord) -> Done:
        if is_nested(engine, record):

            async def child(parent: Operation, stack: StackRecord) -> StackRecord:
                return await run(engine, stack, action, parent)

            return await child_action(operation, record, action.value.lower(), child)
        plugin = engine.plugin_of(record)
        if plugin is not None:
            context = handler_context(operation, record)
            if action is Action.SUSPEND:
                await plugin.suspend(context)
            else:
                await plugin.resume(context)
        return Done()

    return await perform(
        engine, stack, action, effect, backwards=action is Action.SUSPEND, parent=parent
    )
