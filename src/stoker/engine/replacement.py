"""Replacements: a resource an update replaces keeps its old one until it is gone.

An update creates the new resource before it deletes the old one. There is one record per
resource name, so the record of the new resource holds the old one (`REPLACED` in its
data: type, physical id, properties, data, state, requires, and the deletion policy of
its own definition, the old one, as Heat's backup stack keeps it) from the moment the
replacement starts until clean-up deletes the old resource. A rollback that finds the old
one still there swaps it back (the new one is deleted) instead of creating a third.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stoker.engine import deletion, leases
from stoker.engine.failures import failure_reason
from stoker.engine.plan import Decision
from stoker.engine.state import Action, EventRecord, ResourceRecord, Status, WriteBatch
from stoker.errors import StokerError
from stoker.resources import ResourceFailure

if TYPE_CHECKING:
    from stoker.engine.operation import Operation

#: the key, in a resource's data, of the resource it replaces until that one is deleted
#: (an update creates the new resource before it deletes the old one): the old record's
#: type, physical id, properties, data, state and requires
REPLACED = "stoker:replaced"


def restored(record: ResourceRecord, kept: Mapping[str, Any]) -> ResourceRecord:
    """The record of the resource a replacement kept (see `_backup`)."""
    created = kept.get("created_at")
    return replace(
        record,
        type=str(kept["type"]),
        physical_id=kept.get("physical_id"),
        properties=dict(kept.get("properties") or {}),
        attributes=dict(kept.get("attributes") or {}),
        data=dict(kept.get("data") or {}),
        action=Action(kept["action"]),
        status=Status(kept["status"]),
        status_reason=str(kept.get("status_reason") or ""),
        requires=tuple(kept.get("requires") or ()),
        created_at=datetime.fromisoformat(created) if created else record.created_at,
    )


def _backup(record: ResourceRecord) -> dict[str, Any]:
    """What is kept of a resource being replaced, until it is deleted (or swapped back)."""
    kept = record.data.get(REPLACED)
    if isinstance(kept, dict):
        return kept  # a replacement that failed before: the original is still the one kept
    return {
        "type": record.type,
        "physical_id": record.physical_id,
        "properties": record.properties,
        "attributes": record.attributes,
        "data": record.data,
        "action": record.action.value,
        "status": record.status.value,
        "status_reason": record.status_reason,
        "requires": list(record.requires),
        "created_at": record.created_at.isoformat() if record.created_at else None,
    }


def _announcement(
    operation: Operation, record: ResourceRecord, decision: Decision
) -> list[EventRecord]:
    """Heat's UPDATE_IN_PROGRESS / UPDATE_COMPLETE "requires replacement" events, which it
    writes only when a property change (not a type change or a FAILED state) replaces,
    and only for a resource with no ``restricted_actions``: for one with some, Heat finds
    the replacement while checking them, before its update starts (recorded:
    restricted/update_restricted_replace_change)."""
    if not decision.changed or record.status is Status.FAILED or record.type != decision.type:
        return []
    assert operation.definition is not None
    if operation.definition.environment.resource_registry.restricted_actions(record.name):
        return []
    now = leases.now_utc()
    plugin = operation.engine.plugin_of(record)
    if decision.by_plugin and plugin is not None:
        stack = operation.stack
        message = (
            f'The Resource {type(plugin).__name__} "{record.name}" [{record.physical_id}] '
            f'Stack "{stack.name}" [{stack.id}] requires replacement.'
        )
    else:
        message = f"The Resource {record.name} requires replacement."
    return [
        EventRecord.of(record, Action.UPDATE, status, reason, now)
        for status, reason in ((Status.IN_PROGRESS, "state changed"), (Status.COMPLETE, message))
    ]


async def replace_resource(
    operation: Operation, record: ResourceRecord, decision: Decision, requires: tuple[str, ...]
) -> None:
    """Create the new resource first; the old one stays in the record until clean-up."""
    kept = _backup(record)
    announced = _announcement(operation, record, decision)
    if announced and REPLACED not in record.data:
        # Heat's old resource is left UPDATE_COMPLETE by its "requires replacement"
        # events: the state it has again if a rollback puts it back
        kept = {**kept, "action": Action.UPDATE.value, "status": Status.COMPLETE.value}
    if deletion.kept_policy(kept) is None:
        # the old definition is the stored previous one (the update stored the new one)
        kept = {
            **kept,
            "deletion_policy": await deletion.previous_policy_of(operation, record.name),
        }
    if REPLACED in record.data and record.physical_id:
        # An earlier replacement of this resource failed half-way: its leftovers go first.
        await _discard(operation, record)
    operation.records[record.name] = replace(record, type=decision.type, requires=requires)

    async def create(current: ResourceRecord) -> dict[str, Any]:
        changes = await operation.create_effect(current)
        changes["data"] = {**changes.get("data", {}), REPLACED: kept}
        changes["requires"] = requires
        return changes

    await operation.act(
        record.name,
        Action.CREATE,
        create,
        before=announced,
        start={"physical_id": None, "properties": {}, "attributes": {}, "data": {REPLACED: kept}},
    )


async def _discard(operation: Operation, record: ResourceRecord) -> None:
    """Delete a resource that is in no record's future: a failed replacement's leftovers."""
    current = replace(record, data={k: v for k, v in record.data.items() if k != REPLACED})
    try:
        await deletion.remove(operation, current)
    except (ResourceFailure, StokerError) as error:
        raise ResourceFailure(
            f"the failed replacement {record.physical_id} could not be deleted: {error}"
        ) from error


async def delete_replaced(operation: Operation, name: str) -> None:
    """The old resource of a replacement: DELETE events with its physical id; the
    record (the new resource) loses the kept one once it is gone."""
    record = operation.records[name]
    kept = record.data[REPLACED]
    old = restored(record, kept)

    def event(status: Status, reason: str) -> EventRecord:
        return EventRecord.of(old, Action.DELETE, status, reason, leases.now_utc())

    await operation.write(WriteBatch(events=[event(Status.IN_PROGRESS, "state changed")]))
    await operation.claim().confirm(operation.engine.store)
    try:
        await deletion.remove(operation, old, deletion.kept_policy(kept))
    except BaseException as error:
        reason = failure_reason(name, error)
        await asyncio.shield(operation.write(WriteBatch(events=[event(Status.FAILED, reason)])))
        raise
    current = operation.records[name]
    done = replace(current, data={k: v for k, v in current.data.items() if k != REPLACED})
    await operation.write(
        WriteBatch(resources=[done], events=[event(Status.COMPLETE, "state changed")])
    )


async def swap_back(operation: Operation, name: str) -> None:
    """A replacement that still holds its old resource: delete the new one, put the old
    one back (not re-created, so it keeps its identity and values). As Heat's
    convergence rollback: the new one's DELETE events, and the old one current again in
    the state it had, with no event of its own."""
    record = operation.records.get(name)
    if record is None or not isinstance(record.data.get(REPLACED), dict):
        return
    kept = record.data[REPLACED]
    if not (record.action is Action.DELETE and record.status is Status.COMPLETE):
        new = replace(record, data={k: v for k, v in record.data.items() if k != REPLACED})
        # the new one's own policy: the failed update's definition, which the rollback
        # stored as the previous one
        policy = await deletion.previous_policy_of(operation, name)
        await operation.act(name, Action.DELETE, _removing(operation, new, policy))
    back = restored(operation.records[name], kept)
    await operation.write(WriteBatch(resources=[replace(back, updated_at=leases.now_utc())]))


def _removing(operation: Operation, record: ResourceRecord, policy: str) -> Any:
    async def effect(current: ResourceRecord) -> dict[str, Any]:
        await deletion.remove(operation, record, policy)
        return {"physical_id": None}  # gone: a resumed rollback must not delete it again

    return effect
