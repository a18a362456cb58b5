"""Rows to records and records to row values.

The engine's records (`stoker.engine.state`) are plain values; the store reads and writes
plain values through the catalog's statements (`stoker.store.statements`), which is many
times faster than ORM objects for the thousands of rows a large stack writes per batch.
Stacks go through the models' column types (as the executor converts them); resources
and events, the bulk rows, as driver-ready tuples (`Codec`). Tuples in the records are
JSON lists in the database and tuples again on the way back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from stoker.engine import (
    Action,
    EventRecord,
    ResourceRecord,
    StackRecord,
    Status,
)
from stoker.store.codec import Codec
from stoker.store.jsontext import dumps, loads_text

#: what a stack listing leaves out (NULL in place of its definition): decoding those JSON
#: columns is most of the time of listing many stacks
SUMMARY_NULLS = frozenset(
    {"template", "environment", "files", "parameters", "shared_environment", "parameter_defaults"}
)
#: the columns a new stack's row is inserted with, lease included (generation 0: unclaimed)
STACK_INSERT_FIELDS = (
    "id",
    "name",
    "project",
    "action",
    "status",
    "status_reason",
    "raw_template_id",
    "parameters",
    "created_at",
    "updated_at",
    "deleted_at",
    "parent_id",
    "parent_resource",
    "tags",
    "timeout_mins",
    "disable_rollback",
    "template_file",
    "cloud",
    "lease_engine_id",
    "lease_expires_at",
    "lease_generation",
)
#: those of `STACK_INSERT_FIELDS` the record has as they are stored
_STACK_RECORD_FIELDS = tuple(
    name
    for name in STACK_INSERT_FIELDS
    if name not in {"action", "status", "raw_template_id", "tags"} and not name.startswith("lease_")
)
#: how many actions a cancel request can name (`stoker.store.statements`); more than the
#: engine has
ACTION_SLOTS = 16


def stack_list_name(*, summaries: bool, nested: bool, deleted: bool) -> str:
    """The catalog's name of a stack listing with these filters."""
    base = "stack_summaries" if summaries else "list_stacks"
    return base + ("_nested" if nested else "") + ("_deleted" if deleted else "")


# Column order of the bulk statements (`stoker.store.bulk`): table order, without ids.
RESOURCE_FIELDS = (
    "stack_id",
    "name",
    "type",
    "action",
    "status",
    "status_reason",
    "physical_id",
    "properties",
    "attributes",
    "data",
    "requires",
    "created_at",
    "updated_at",
)
RESOURCE_JSON_FIELDS = ("properties", "attributes", "data", "requires")
#: the columns of a state-only update of a resource row (`stoker.store.bulk`), in order:
#: the four it sets, then the two that find the row
RESOURCE_STATE_FIELDS = ("action", "status", "status_reason", "updated_at", "stack_id", "name")
EVENT_FIELDS = (
    "stack_id",
    "resource_name",
    "resource_type",
    "action",
    "status",
    "reason",
    "physical_id",
    "time",
)

# Faster than calling the enum for each of thousands of rows; unknown values still fail.
_ACTIONS: dict[str, Action] = {action.value: action for action in Action}
_STATUSES: dict[str, Status] = {status.value: status for status in Status}


# The other way, for the bulk rows: an enum's ``.value`` is a Python descriptor call (three
# per resource row and event row), a lookup here is not; the driver gets a plain str.
_ACTION_TEXT: dict[Action, str] = {action: action.value for action in Action}
_STATUS_TEXT: dict[Status, str] = {status: status.value for status in Status}


def _action(value: str) -> Action:
    return _ACTIONS.get(value) or Action(value)


def _status(value: str) -> Status:
    return _STATUSES.get(value) or Status(value)


def stack_record(row: Sequence[Any], open_document: Callable[[str], Any]) -> StackRecord:
    """A stack row as a record, its documents opened: its environment is the row's own
    sections as stored (sealed where the stack is), to be joined with the shared ones
    (the row's last two columns: `stoker.store.documents.join_environment`)."""
    (id_, name, project, action, status, reason, template, environment, files, parameters,
     created, updated, deleted, parent_id, parent_resource, tags, timeout, no_rollback,
     template_file, cloud, _, _) = row  # fmt: skip
    return StackRecord(
        id=id_,
        name=name,
        project=project,
        action=Action(action),
        status=Status(status),
        status_reason=reason,
        template=open_document(template),
        environment=environment,
        files=open_document(files),
        parameters=parameters,
        created_at=created,
        updated_at=updated,
        deleted_at=deleted,
        parent_id=parent_id,
        parent_resource=parent_resource,
        tags=tuple(tags),
        timeout_mins=timeout,
        disable_rollback=no_rollback,
        template_file=template_file,
        cloud=cloud,
    )


def summary_record(row: Sequence[Any]) -> StackRecord:
    """A ``stack_summaries`` row as a record with an empty definition."""
    return stack_record((*row[:6], {}, {}, {}, {}, *row[10:]), _as_stored)


def _as_stored(value: Any) -> Any:
    return value


def stack_values(stack: StackRecord, raw_template_id: int) -> dict[str, Any]:
    """The stack's row in `STACK_INSERT_FIELDS`, unclaimed."""
    values = {name: getattr(stack, name) for name in _STACK_RECORD_FIELDS}
    values.update(
        action=stack.action.value,
        status=stack.status.value,
        raw_template_id=raw_template_id,
        tags=list(stack.tags),
        lease_engine_id=None,
        lease_expires_at=None,
        lease_generation=0,
    )
    return values


def resource_record(row: Sequence[Any], codec: Codec) -> ResourceRecord:
    """From a `stoker.store.bulk.select_resources` row."""
    stack_id, name, type_, action, status, reason, physical_id, json_text, created, updated = row
    properties, attributes, data, requires = loads_text(json_text)
    return ResourceRecord(
        stack_id=stack_id,
        name=name,
        type=type_,
        action=_action(action),
        status=_status(status),
        status_reason=reason,
        physical_id=physical_id,
        properties=properties,
        attributes=attributes,
        data=data,
        requires=tuple(requires),
        created_at=codec.time_out(created),
        updated_at=codec.time_out(updated),
    )


def resource_row(resource: ResourceRecord, codec: Codec) -> tuple[Any, ...]:
    """Values in `RESOURCE_FIELDS` order, ready for the driver."""
    return stored_resource_row(
        resource,
        dumps(resource.properties),
        dumps(resource.attributes),
        dumps(resource.data),
        resource.status_reason,
        codec,
    )


def stored_resource_row(
    resource: ResourceRecord,
    properties: str,
    attributes: str,
    data: str,
    reason: str,
    codec: Codec,
) -> tuple[Any, ...]:
    """Values in `RESOURCE_FIELDS` order with the properties, attributes and data as
    stored JSON text, and the reason as stored (a sealed stack's tokens in place of the
    record's values: no copy of the record made only to carry them)."""
    return (
        resource.stack_id,
        resource.name,
        resource.type,
        _ACTION_TEXT[resource.action],
        _STATUS_TEXT[resource.status],
        reason,
        resource.physical_id,
        properties,
        attributes,
        data,
        dumps(list(resource.requires)) if resource.requires else "[]",
        codec.time_in(resource.created_at),
        codec.time_in(resource.updated_at),
    )


def state_row(resource: ResourceRecord, reason: str, codec: Codec) -> tuple[Any, ...]:
    """Values in `RESOURCE_STATE_FIELDS` order, ready for the driver (``reason``: the
    status reason as stored, sealed where the stack is)."""
    return (
        _ACTION_TEXT[resource.action],
        _STATUS_TEXT[resource.status],
        reason,
        codec.time_in(resource.updated_at),
        resource.stack_id,
        resource.name,
    )


def event_record(row: Sequence[Any], codec: Codec) -> EventRecord:
    """From a `stoker.store.bulk.select_events` row."""
    stack_id, resource_name, resource_type, action, status, reason, physical_id, time, id_ = row
    return EventRecord(
        stack_id=stack_id,
        resource_name=resource_name,
        resource_type=resource_type,
        action=_action(action),
        status=_status(status),
        reason=reason,
        physical_id=physical_id,
        time=_required(codec.time_out(time)),
        id=id_,
    )


def _required(time: datetime | None) -> datetime:
    if time is None:
        raise ValueError("an event without a time")  # the column is NOT NULL
    return time


def event_row(event: EventRecord, codec: Codec, reason: str | None = None) -> tuple[Any, ...]:
    """Values in `EVENT_FIELDS` order, ready for the driver; ``reason``: the reason as
    stored, where it is not the event's (sealed where the stack is)."""
    return (
        event.stack_id,
        event.resource_name,
        event.resource_type,
        _ACTION_TEXT[event.action],
        _STATUS_TEXT[event.status],
        event.reason if reason is None else reason,
        event.physical_id,
        codec.time_in(event.time),
    )
