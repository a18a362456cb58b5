"""Which ``deletion_policy`` a resource is deleted under, read when it is deleted.

Heat skips a resource's delete handler under Retain and calls its snapshot-delete under
Snapshot, reading the policy from the resource's own definition and resolving a function
(``get_param``) with that definition's parameters. For a resource an update removed, or
the old resource of one it replaces, that definition is the old one: the stack's stored
previous definition. A replacement reads it when it starts and keeps the answer with the
old resource (`engine.replacement`), so it holds however late, or after a crash, the old
one is deleted.

A delete has no definition at hand and rebuilding one from the stored template costs as
much as loading the template did (a tenth of a 10,000-resource delete), so it is rebuilt
only when the stored template gives the resource a policy at all: without one, the
answer is "delete" whatever the rebuilt definition would say.

`remove` is a delete's effect under that policy: the handler, the child stack, or
nothing (Retain)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from stoker.engine.nested import NestedFailure
from stoker.engine.state import ResourceRecord, Status, live_child
from stoker.errors import FunctionError, StokerError
from stoker.functions.base import Unresolved, resolve
from stoker.resolution import cloud_type_names, type_not_runnable
from stoker.resources import ResourceFailure, ResourcePlugin

if TYPE_CHECKING:
    from stoker.definition import StackDefinition
    from stoker.engine.operation import Operation

#: the policies, lower case, as `policy_of` answers and a replacement keeps them
POLICIES = ("delete", "retain", "snapshot")


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
        return await previous_policy_of(operation, name)  # removed by an update
    return _resolved(operation, definition, resource.deletion_policy)


async def previous_policy_of(operation: Operation, name: str) -> str:
    """The policy of ``name`` in the stack's stored previous definition (the one an update
    started from): "delete" when it has none there."""
    old = (await _previous_resources(operation)).get(name)
    if not isinstance(old, dict):
        return "delete"
    found = old.get("deletion_policy", old.get("DeletionPolicy"))
    if found is None or isinstance(found, str):
        return found.lower() if isinstance(found, str) else "delete"
    # a function (get_param): resolved in the previous definition, with its parameters
    try:
        previous = await _previous_definition(operation)
    except StokerError:
        return "delete"
    resource = previous.template.resources.get(name) if previous is not None else None
    if previous is None or resource is None:
        return "delete"
    return _resolved(operation, previous, resource.deletion_policy)


def _resolved(operation: Operation, definition: StackDefinition, policy: Any) -> str:
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


async def _previous_definition(operation: Operation) -> StackDefinition | None:
    """Rebuilt only for a policy that is a function (rare): not cached."""
    stored = await asyncio.to_thread(operation.engine.store.previous_definition, operation.stack.id)
    if stored is None:
        return None
    stack = stored.on(operation.stack)
    return await asyncio.to_thread(operation.engine.queries.rebuild, stack)


async def _previous_resources(operation: Operation) -> dict[str, Any]:
    """Read once per operation: the replacements (or removals) of an update run at once,
    and each would otherwise read and decode the whole previous template before the
    first read is done (1,000 replaced resources: three times the update's time)."""
    if operation.previous_resources is None:
        if operation.previous_reading is None:
            operation.previous_reading = asyncio.ensure_future(_read_previous(operation))
        # shielded: a waiter cancelled (its job) does not cancel the others' read
        operation.previous_resources = await asyncio.shield(operation.previous_reading)
    return operation.previous_resources


async def _read_previous(operation: Operation) -> dict[str, Any]:
    stored = await asyncio.to_thread(operation.engine.store.previous_definition, operation.stack.id)
    template = stored.template if stored is not None else {}
    resources = template.get("resources")
    if not isinstance(resources, dict):  # a CFN template's section
        resources = template.get("Resources")
    return resources if isinstance(resources, dict) else {}


def kept_policy(kept: Any) -> str | None:
    """The policy a replacement kept with its old resource; None if it kept none (a
    replacement begun before stoker kept it: the current definition's is read then)."""
    found = kept.get("deletion_policy") if isinstance(kept, dict) else None
    return found if found in POLICIES else None


async def remove(operation: Operation, record: ResourceRecord, policy: str | None = None) -> None:
    """The effect of deleting a resource: its nested stack, or its plugin's delete;
    none at all under ``deletion_policy: Retain``, as Heat skips the handler (the
    physical resource, or the child stack, is left where it is). ``policy``: the one
    a replacement kept with the old resource it deletes (else read now, `deletion`)."""
    if policy is None:
        policy = await policy_of(operation, record.name)
    if policy == "retain" or record.data.get("external_id"):
        return  # retained, or someone else's resource (external_id): released, not deleted
    if record.data.get("child_id"):
        store, project = operation.engine.store, operation.stack.project
        child = await asyncio.to_thread(live_child, store, project, record)
        if child is not None:
            result = await operation.engine.delete_stack(child, operation)
            if result.status is not Status.COMPLETE:
                inner = operation.engine.failed_children.pop(result.id, None)
                raise NestedFailure(result, inner)
        return
    plugin = operation.engine.plugin_of(record)
    # never forget what lives in a cloud
    if plugin is None and record.physical_id is not None and record.type in cloud_type_names():
        raise ResourceFailure(type_not_runnable(record.type))
    if plugin is not None:
        snapshot = plugin.traits.snapshot_delete and policy == "snapshot"
        if not snapshot and type(plugin).delete is ResourcePlugin.delete:
            # the base handler does nothing: no context (nor a random physical name)
            # is made for it, as for each of 10,000 OS::Heat::None
            return
        context = operation.resource_context(record, record.properties, plugin)
        if snapshot:
            await plugin.snapshot_and_delete(context)
        else:
            await plugin.delete(context)
