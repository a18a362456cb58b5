"""``stack export`` and ``stack abandon``: Heat's document of a stack, and forgetting it.

The document is Heat's ``Stack.prepare_abandon``: ``name``, ``id``, ``action``, ``status``,
``template``, ``environment``, ``files``, ``project_id``, ``stack_user_project_id``,
``tags`` and ``resources`` (per resource ``name``, ``resource_id``, ``type``, ``action``,
``status``, ``metadata``, ``resource_data``; a resource backed by a nested stack is that
child's whole document, as Heat's ``StackResource.prepare_abandon`` gives it). It carries
parameter values and resource data (a RandomString's value) unmasked, as Heat's does: it
is what ``stack adopt`` takes the stack back from.

Abandon writes the document first, then forgets the stack under its claim: every
resource goes DELETE_COMPLETE without its delete handler running (Heat's abandon is a
delete with every resource retained), nested stacks likewise, and the stack is marked
deleted, so its name is free again.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from stoker.engine import leases
from stoker.engine.operation import Operation
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status, Store, live_child
from stoker.engine.walks import Done, perform, refuse_in_progress
from stoker.errors import OperationFailed

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


def document(store: Store, stack: StackRecord, action: Action | None = None) -> dict[str, Any]:
    """Heat's abandon/export (and snapshot) document of ``stack``, nested stacks inside."""
    resources: dict[str, Any] = {}
    for record in store.resources(stack.id):
        child = live_child(store, stack.project, record)
        if child is not None:
            resources[record.name] = document(store, child, action)
            continue
        resources[record.name] = {
            "name": record.name,
            "resource_id": record.physical_id,
            "type": record.type,
            "action": (action or record.action).value,
            "status": Status.COMPLETE.value if action else record.status.value,
            "metadata": _metadata(stack, record.name),
            "resource_data": dict(record.data),
        }
    return {
        "name": stack.name,
        "id": stack.id,
        "action": (action or stack.action).value,
        "environment": stack.environment,
        "files": stack.files,
        "status": Status.COMPLETE.value if action else stack.status.value,
        "template": stack.template,
        "resources": resources,
        "project_id": stack.project,
        "stack_user_project_id": stack.project,
        "tags": list(stack.tags),
    }


def _metadata(stack: StackRecord, name: str) -> Any:
    """The resource's metadata as its template wrote it (``{}`` when none)."""
    resources = stack.template.get("resources") or stack.template.get("Resources") or {}
    resource = resources.get(name) if isinstance(resources, dict) else None
    if not isinstance(resource, dict):
        return {}
    return resource.get("metadata", resource.get("Metadata")) or {}


async def export(engine: StackEngine, name_or_id: str) -> dict[str, Any]:
    stack = await engine.find(name_or_id)
    await refuse_in_progress(engine, stack, "export")
    return await asyncio.to_thread(document, engine.store, stack)


async def abandon(engine: StackEngine, name_or_id: str) -> dict[str, Any]:
    """The stack's document; the stack is forgotten (its resources are left as they are)."""
    stack = await engine.find(name_or_id)
    await engine.refuse_nested(stack, "abandon")
    # an interrupted adopt cannot be continued: abandoning it is the way out
    await refuse_in_progress(engine, stack, "abandon", allow=(Action.ADOPT,))
    data = await asyncio.to_thread(document, engine.store, stack)
    result = await forget(engine, stack)
    if result.status is not Status.COMPLETE:
        raise OperationFailed(
            f"{result.name}: {result.action.value}_{result.status.value}: {result.status_reason}"
        )
    return data


async def forget(
    engine: StackEngine, stack: StackRecord, parent: Operation | None = None
) -> StackRecord:
    async def effect(operation: Operation, record: ResourceRecord) -> Done:
        child = await asyncio.to_thread(live_child, engine.store, operation.stack.project, record)
        if child is not None:
            result = await forget(engine, child, operation)
            if result.status is not Status.COMPLETE:
                raise OperationFailed(f"{result.name}: {result.status_reason}")
        return Done()

    async def gone(operation: Operation) -> None:
        now = leases.now_utc()
        token = operation.claim().token
        await asyncio.to_thread(engine.store.mark_deleted, operation.stack.id, now, token)

    return await perform(
        engine, stack, Action.DELETE, effect, backwards=True, parent=parent, completed=gone
    )
