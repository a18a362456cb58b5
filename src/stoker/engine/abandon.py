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
from typing import Any

from stoker.engine import leases
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status, Store
from stoker.engine.walks import (
    ActionHost,
    Done,
    StackWalk,
    find_stack,
    perform,
    refuse_in_progress,
    refuse_nested,
)
from stoker.errors import OperationFailed


def document(store: Store, stack: StackRecord, action: Action | None = None) -> dict[str, Any]:
    """Heat's abandon/export (and snapshot) document of ``stack``, nested stacks inside."""
    resources: dict[str, Any] = {}
    for record in store.resources(stack.id):
        child = _child(store, stack, record)
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


def _child(store: Store, stack: StackRecord, record: ResourceRecord) -> StackRecord | None:
    child_id = record.data.get("child_id")
    if not child_id:
        return None
    child = store.get_stack(str(child_id), stack.project)
    return child if child is not None and child.deleted_at is None else None


def _metadata(stack: StackRecord, name: str) -> Any:
    """The resource's metadata as its template wrote it (``{}`` when none)."""
    resources = stack.template.get("resources") or stack.template.get("Resources") or {}
    resource = resources.get(name) if isinstance(resources, dict) else None
    if not isinstance(resource, dict):
        return {}
    return resource.get("metadata", resource.get("Metadata")) or {}


async def export(host: ActionHost, name_or_id: str) -> dict[str, Any]:
    stack = await find_stack(host, name_or_id)
    await refuse_in_progress(host, stack, "export")
    return await asyncio.to_thread(document, host.store, stack)


async def abandon(host: ActionHost, name_or_id: str) -> dict[str, Any]:
    """The stack's document; the stack is forgotten (its resources are left as they are)."""
    stack = await find_stack(host, name_or_id)
    await refuse_nested(host, stack, "abandon")
    # an interrupted adopt cannot be continued: abandoning it is the way out
    await refuse_in_progress(host, stack, "abandon", allow=(Action.ADOPT,))
    data = await asyncio.to_thread(document, host.store, stack)
    result = await forget(host, stack)
    if result.status is not Status.COMPLETE:
        raise OperationFailed(
            f"{result.name}: {result.action.value}_{result.status.value}: {result.status_reason}"
        )
    return data


async def forget(
    host: ActionHost, stack: StackRecord, parent: StackWalk | None = None
) -> StackRecord:
    async def effect(walk: StackWalk, record: ResourceRecord) -> Done:
        child = await asyncio.to_thread(_child, host.store, walk.stack, record)
        if child is not None:
            result = await forget(host, child, walk)
            if result.status is not Status.COMPLETE:
                raise OperationFailed(f"{result.name}: {result.status_reason}")
        return Done()

    async def gone(walk: StackWalk) -> None:
        now = leases.now_utc()
        await asyncio.to_thread(host.store.mark_deleted, walk.stack.id, now, walk.fence.token)

    return await perform(
        host, stack, Action.DELETE, effect, backwards=True, parent=parent, completed=gone
    )
