"""Records for store tests, with defaults for everything a test does not care about."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    StackRecord,
    StackStatus,
    Status,
)

T0 = datetime(2025, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """``T0`` plus some seconds: distinct, ordered, aware UTC times."""
    return T0 + timedelta(seconds=seconds)


def stack(name: str = "web", project: str = "demo", **changes: Any) -> StackRecord:
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "name": name,
        "project": project,
        "action": Action.CREATE,
        "status": Status.IN_PROGRESS,
        "status_reason": "Stack CREATE started",
        "template": {"heat_template_version": "2021-04-16", "resources": {}},
        "environment": {"parameters": {}},
        "files": {},
        "parameters": {},
        "created_at": T0,
    }
    values.update(changes)
    return StackRecord(**values)


def resource(stack_id: str, name: str, **changes: Any) -> ResourceRecord:
    values: dict[str, Any] = {
        "stack_id": stack_id,
        "name": name,
        "type": "OS::Heat::TestResource",
        "action": Action.CREATE,
        "status": Status.IN_PROGRESS,
    }
    values.update(changes)
    return ResourceRecord(**values)


def event(stack_id: str, resource_name: str, reason: str = "", **changes: Any) -> EventRecord:
    values: dict[str, Any] = {
        "stack_id": stack_id,
        "resource_name": resource_name,
        "resource_type": "OS::Heat::TestResource",
        "action": Action.CREATE,
        "status": Status.IN_PROGRESS,
        "reason": reason,
        "physical_id": None,
        "time": T0,
    }
    values.update(changes)
    return EventRecord(**values)


def status(stack_id: str, status: Status, reason: str = "", time: datetime = T0) -> StackStatus:
    return StackStatus(stack_id, Action.CREATE, status, reason, time)
