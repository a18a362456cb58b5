"""Which ``deletion_policy`` a resource is deleted under, read when it is deleted.

Heat skips a resource's delete handler under Retain and calls its snapshot-delete under
Snapshot, reading the policy from the resource's own definition and resolving a function
(``get_param``) at that moment. For a resource an update removed, that definition is the
old one: the stack's stored previous template, read once per operation.

A delete has no definition at hand and rebuilding one from the stored template costs as
much as loading the template did (a tenth of a 10,000-resource delete), so it is rebuilt
only when the stored template gives the resource a policy at all: without one, the
answer is "delete" whatever the rebuilt definition would say."""

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
        if not names_policy(operation.stack.template, name):
            return "delete"
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


def names_policy(template: Any, name: str) -> bool:
    """Whether the raw ``template`` may give resource ``name`` a deletion policy: its
    definition (in either format's resources section) has the key, or is not a mapping.
    False only when each definition found is a mapping without the key, so that the
    definition parsed from it has no policy either (`ResourceDefinition.deletion_policy`
    is read from that key alone)."""
    if not isinstance(template, dict):
        return True
    for section in ("resources", "Resources"):
        resources = template.get(section)
        body = resources.get(name) if isinstance(resources, dict) else None
        if body is None:
            continue
        if not isinstance(body, dict) or "deletion_policy" in body or "DeletionPolicy" in body:
            return True
    return False


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
