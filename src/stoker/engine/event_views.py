"""Heat-shaped views of a stack's events: the rows of ``openstack stack event list``
(nested stacks' too, and the API's), and the one line that tells why an operation did not
end as asked, from the events as Heat's chain tells it.
"""

from __future__ import annotations

from typing import Any

from stoker.engine.resource_views import child_stacks
from stoker.engine.stack_views import time_text
from stoker.engine.state import Action, EventRecord, StackRecord, Status, Store


def event_row(event: EventRecord) -> dict[str, Any]:
    """An event as ``openstack stack event list`` shows it."""
    return {
        "id": event.id,
        "event_time": time_text(event.time),
        "resource_name": event.resource_name,
        "logical_resource_id": event.resource_name,
        "physical_resource_id": event.physical_id or "",
        "resource_status": f"{event.action.value}_{event.status.value}",
        "resource_status_reason": event.reason,
        "resource_type": event.resource_type,
    }


def failure_line(store: Store, record: StackRecord) -> str:
    """One line for an operation that did not end as asked: the stack's state and reason,
    and, after a rollback, what failed first, from the events as Heat's chain tells it
    (the first failed resource, else the stack's own failure): ``s1: update failed: t:
    ValueError: resources.t: Test Resource failed bad; rolled back
    (ROLLBACK_COMPLETE)``. Heat itself records only "Stack ROLLBACK completed
    successfully" as the stack's status reason (checked against Heat 24.1.2)."""
    state = f"{record.action.value}_{record.status.value}"
    if record.action is not Action.ROLLBACK:
        return f"{record.name}: {state}: {record.status_reason}"
    if record.status is Status.COMPLETE:
        outcome = f"rolled back ({state})"
    else:
        outcome = f"the rollback did not complete ({state}: {record.status_reason})"
    cause = _failure_before_rollback(store, record)
    if cause is None:
        return f"{record.name}: {outcome}"
    action, reason = cause
    return f"{record.name}: {action.value.lower()} failed: {reason}; {outcome}"


def _failure_before_rollback(store: Store, record: StackRecord) -> tuple[Action, str] | None:
    """What failed in the operation that rolled back: its first failed resource (named),
    else the stack's own failed event; looked for between the event that started the
    operation and the one that started the rollback."""

    def own(event: EventRecord) -> bool:
        return event.physical_id == record.id and event.resource_name == record.name

    events = store.events(record.id)
    end = next(
        (
            index
            for index in range(len(events) - 1, -1, -1)
            if own(events[index])
            and events[index].action is Action.ROLLBACK
            and events[index].status is Status.IN_PROGRESS
        ),
        len(events),
    )
    first: EventRecord | None = None
    stack_failure: EventRecord | None = None
    action: Action | None = None  # the operation's (a resource an update adds is created)
    for event in reversed(events[:end]):
        if own(event):
            if event.status is Status.IN_PROGRESS:
                action = event.action  # the operation's start
                break
            if event.status is Status.FAILED and stack_failure is None:
                stack_failure = event
        elif event.status is Status.FAILED:
            first = event
    if first is not None:
        return action or first.action, f"{first.resource_name}: {first.reason}"
    if stack_failure is not None:
        return stack_failure.action, stack_failure.reason
    return None


def stack_events(store: Store, project: str, stack: StackRecord, depth: int) -> list[EventRecord]:
    """The events of ``stack`` (oldest first), with its nested stacks' down to ``depth``."""
    events = list(store.events(stack.id))
    if depth > 0:
        for child in child_stacks(store, project, store.resources(stack.id)):
            events.extend(stack_events(store, project, child, depth - 1))
    return sorted(events, key=lambda e: (e.time, e.id or 0)) if depth > 0 else events


def api_event_row(event: EventRecord, stack_name: str) -> dict[str, Any]:
    """An event as Heat's API lists it: `event_row` with its id as text (Heat's are
    UUIDs; clients treat them as opaque) and the stack's name."""
    row = event_row(event)
    row["id"] = str(event.id)
    row["stack_name"] = stack_name
    return row
