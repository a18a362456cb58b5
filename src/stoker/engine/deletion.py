"""Which ``deletion_policy`` a resource is deleted under, read when it is deleted.

Heat skips a resource's delete handler under Retain and calls its snapshot-delete under
Snapshot, reading the policy from the resource's own definition and resolving a function
(``get_param``) at that moment. For a resource an update removed, that definition is the
old one: the stack's stored previous template, read once per operation."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from stoker.errors import FunctionError, StokerError
from stoker.functions.base import Unresolved, resolve

if TYPE_CHECKING:
    from stoker.engine.operation import Operation


async def policy_of(operation: Operation, name: str) -> str:
    """Lower case: "delete" (also when none is named, or a function fails), "retain" or
    "snapshot"."""
    definition = operation.definition
    if definition is None:  # a delete: the definition the stack stored
        try:
            definition = operation.engine.definition_of(operation.stack)
        except StokerError:
            return "delete"
    resource = definition.template.resources.get(name)
    if resource is None:
        if operation.definition is None:
            return "delete"
        return _plain(await _previous_resources(operation), name)  # removed by an update
    policy = resource.deletion_policy
    if policy is not None and not isinstance(policy, str):
        try:
            policy = resolve(policy, operation.engine.runtime(definition, operation.records))
        except (FunctionError, Unresolved):
            policy = None
    return policy.lower() if isinstance(policy, str) else "delete"


async def _previous_resources(operation: Operation) -> dict[str, Any]:
    if operation.previous_resources is None:
        stored = await asyncio.to_thread(
            operation.engine.store.previous_definition, operation.stack.id
        )
        template = stored.template if stored is not None else {}
        resources = template.get("resources")
        if not isinstance(resources, dict):  # a CFN template's section
            resources = template.get("Resources")
        operation.previous_resources = resources if isinstance(resources, dict) else {}
    return operation.previous_resources


def _plain(resources: dict[str, Any], name: str) -> str:
    """The old definition's policy, a plain string only (its parameters are gone)."""
    old = resources.get(name)
    found = old.get("deletion_policy", old.get("DeletionPolicy")) if isinstance(old, dict) else None
    return found.lower() if isinstance(found, str) else "delete"
