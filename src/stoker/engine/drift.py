"""Drift: what changed in the cloud behind a stack's back, and taking it into the stack.

Heat's ``stack check`` asks only whether a resource exists. Drift reads every resource
that has a physical resource back from the cloud (through the plugin's own cloud
connection, the one the stack's operations use) and compares what the cloud shows with
the properties the stack holds for it (`stoker.resources.openstack.drift` says what each
type compares and how it reads the cloud's forms). Each resource is then:

- ``IN_SYNC``: every compared property is as the stack expects;
- ``MODIFIED``: the properties that differ, each with its expected and actual value;
- ``DELETED``: the cloud no longer has it;
- ``NOT_CHECKED``: with the reason (a type that cannot be read back, one whose properties
  stoker does not compare, a resource never created).

Nothing is written by a drift. `accept` stores the actual values as the stack's (so the
next drift shows the resource in sync); `repair_records` gives the records an update
must start from to bring the cloud back to the template: the actual values as the
previous properties, and a resource the cloud lost marked failed (an update replaces a
failed resource). The update itself is the ordinary one: the engine decides in place or
replace exactly as for any update.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from stoker.engine import leases
from stoker.engine.operation import Operation
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import is_nested
from stoker.errors import CloudError, StackNotFound
from stoker.resources import CloudResource, ReadbackOutcome, ResourceGone, ResourceView, read_back

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine

#: the reason a resource the cloud lost is marked failed before a repair
LOST = "drift: the cloud no longer has the resource"


class DriftStatus(enum.StrEnum):
    IN_SYNC = "IN_SYNC"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    NOT_CHECKED = "NOT_CHECKED"


@dataclass(frozen=True, slots=True)
class Difference:
    """One property the cloud shows otherwise than the stack expects."""

    property: str
    expected: Any
    actual: Any


@dataclass(frozen=True, slots=True)
class ResourceDrift:
    """One resource's drift. ``stack`` is the (nested) stack holding it, ``path`` the
    resource names leading to that stack from the one asked about (empty at the top)."""

    resource: str
    type: str
    physical_id: str | None
    status: DriftStatus
    differences: tuple[Difference, ...] = ()
    reason: str = ""
    stack: str = ""
    path: tuple[str, ...] = ()
    #: the compared properties' actual values (what `accept` stores)
    actual: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form the CLI and the API show."""
        return {
            "resource_name": self.resource,
            "resource_type": self.type,
            "physical_resource_id": self.physical_id,
            "drift_status": self.status.value,
            "differences": [
                {"property": d.property, "expected": d.expected, "actual": d.actual}
                for d in self.differences
            ],
            "reason": self.reason,
            "stack_name": self.stack,
            "parent_resource": "/".join(self.path),
        }


async def drift(engine: StackEngine, name_or_id: str, nested_depth: int = 0) -> list[ResourceDrift]:
    """The drift of every resource of the stack (and, ``nested_depth`` levels down, of
    its nested stacks' resources), in the stack's resource order."""
    stack = await engine.find(name_or_id)
    return await _stack_drift(engine, stack, nested_depth, ())


async def _stack_drift(
    engine: StackEngine, stack: StackRecord, depth: int, path: tuple[str, ...]
) -> list[ResourceDrift]:
    records = await asyncio.to_thread(engine.store.resources, stack.id)
    results: dict[str, ResourceDrift] = {}
    readable: list[tuple[CloudResource, ResourceRecord]] = []
    nested: list[ResourceRecord] = []
    for record in records:
        plugin = engine.plugin_of(record)
        base = ResourceDrift(
            record.name, record.type, record.physical_id, DriftStatus.NOT_CHECKED,
            stack=stack.name, path=path,
        )  # fmt: skip
        if record.physical_id is None or record.action is Action.INIT:
            results[record.name] = replace(base, reason="not created")
        elif record.action is Action.DELETE and record.status is Status.COMPLETE:
            results[record.name] = replace(base, reason="deleted by the stack")
        elif is_nested(engine, record):
            results[record.name] = replace(base, reason="a nested stack (see its resources)")
            nested.append(record)
        elif isinstance(plugin, CloudResource):
            readable.append((plugin, record))
        else:
            results[record.name] = replace(base, reason=f"{record.type} has no cloud resource")
    views = [(plugin, _view(record)) for plugin, record in readable]
    outcomes = await read_back(views)
    for (_, record), outcome in zip(readable, outcomes, strict=True):
        results[record.name] = _judge(stack, path, record, outcome)
    ordered = [results[r.name] for r in records]
    for record in nested:
        if depth <= 0:
            continue
        try:
            child = await engine.find(str(record.physical_id))
        except StackNotFound:
            index = ordered.index(results[record.name])
            ordered[index] = replace(results[record.name], status=DriftStatus.DELETED, reason="")
            continue
        ordered += await _stack_drift(engine, child, depth - 1, (*path, record.name))
    return ordered


def _view(record: ResourceRecord) -> ResourceView:
    return ResourceView(
        record.name, record.type, record.physical_id, record.properties, record.data,
        record.action.value, record.status.value,
    )  # fmt: skip


def _judge(
    stack: StackRecord, path: tuple[str, ...], record: ResourceRecord, outcome: ReadbackOutcome
) -> ResourceDrift:
    base = ResourceDrift(
        record.name, record.type, record.physical_id, DriftStatus.NOT_CHECKED,
        stack=stack.name, path=path,
    )  # fmt: skip
    if isinstance(outcome, ResourceGone):
        return replace(base, status=DriftStatus.DELETED)
    if isinstance(outcome, CloudError):
        return replace(base, reason=f"cannot be read: {outcome}")
    if outcome is None:
        return replace(base, reason=f"stoker does not compare {record.type}'s properties")
    differences = tuple(
        Difference(name, expected, actual)
        for name, (expected, actual) in outcome.items()
        if expected != actual
    )
    actual = {name: pair[1] for name, pair in outcome.items()}
    status = DriftStatus.MODIFIED if differences else DriftStatus.IN_SYNC
    return replace(base, status=status, differences=differences, actual=actual)


async def accept(engine: StackEngine, name_or_id: str, resource: str) -> ResourceDrift:
    """Store the cloud's values of ``resource`` (of the stack itself) as the stack's:
    the properties that differ take their actual value, so the next drift shows it in
    sync. Refused for a resource the cloud lost (only a repair brings it back) or one
    whose properties are not compared."""
    stack = await engine.find(name_or_id)
    found = next((d for d in await drift(engine, stack.id) if d.resource == resource), None)
    if found is None:
        raise StackNotFound(f"The Resource ({resource}) could not be found in Stack {stack.name}.")
    if found.status in (DriftStatus.DELETED, DriftStatus.NOT_CHECKED):
        raise CloudError(
            f"{resource} is {found.status.value}: only a modified resource's values can be "
            "accepted (stoker stack update --existing --repair re-creates a deleted one)"
        )
    if found.status is DriftStatus.MODIFIED:
        records = await asyncio.to_thread(engine.store.resources, stack.id)
        record = next(r for r in records if r.name == resource)
        await _write(engine, stack, {resource: _accepted(record, found)}, "drift accepted")
    return found


def _accepted(record: ResourceRecord, found: ResourceDrift) -> ResourceRecord:
    properties = dict(record.properties)
    for difference in found.differences:
        properties[difference.property] = difference.actual
    return replace(record, properties=properties)


async def repair_records(engine: StackEngine, name_or_id: str) -> dict[str, ResourceRecord]:
    """The stack's drifted resources as an update to the template must see them to
    undo the drift: a modified one with the cloud's values as its properties, a lost one
    failed (CHECK_FAILED). Nothing is written (see `write_repair`)."""
    stack = await engine.find(name_or_id)
    records = {r.name: r for r in await asyncio.to_thread(engine.store.resources, stack.id)}
    changed: dict[str, ResourceRecord] = {}
    for found in await drift(engine, stack.id):
        record = records[found.resource]
        if found.status is DriftStatus.MODIFIED:
            changed[found.resource] = _accepted(record, found)
        elif found.status is DriftStatus.DELETED:
            changed[found.resource] = replace(
                record, action=Action.CHECK, status=Status.FAILED, status_reason=LOST
            )
    return changed


async def write_repair(
    engine: StackEngine, name_or_id: str, changed: Mapping[str, ResourceRecord]
) -> None:
    """Write `repair_records`'s records (under the stack's claim, one event each), so
    the update that follows starts from what the cloud really has."""
    stack = await engine.find(name_or_id)
    await _write(engine, stack, changed, "drift: the cloud's state taken before a repair")


async def _write(
    engine: StackEngine, stack: StackRecord, changed: Mapping[str, ResourceRecord], reason: str
) -> None:
    fence = await engine.claim(stack)
    operation = Operation(engine, stack, None)
    operation.attach(fence)
    async with leases.held(engine.store, fence):
        operation.records = dict(changed)
        for record in changed.values():
            text = record.status_reason if record.status_reason == LOST else reason
            await operation.transition(
                record, record.action, record.status, text, properties=record.properties
            )
