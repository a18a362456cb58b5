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
replace exactly as for any update, and a nested stack's drifted resources are repaired
by its own update inside the parent's (`UpdateRequest.revisit` names them by path).

Some drift no update can undo: Cinder cannot shrink a volume, so the update would fail
(as Heat's does); replacing the volume instead would lose its data. A repair leaves such
a difference as it is and says so (`Repair.left`); `accept` takes it into the stack.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from stoker.engine import leases
from stoker.engine.operation import Operation
from stoker.engine.runtime import view_of
from stoker.engine.state import Action, ResourceRecord, StackRecord, Status
from stoker.engine.walks import is_nested
from stoker.errors import CloudError, StackNotFound
from stoker.resources import (
    CloudResource,
    ReadbackOutcome,
    ResourceGone,
    irreversible_drift,
    read_back,
)

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
        base = _unchecked(stack, path, record)
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
    views = [(plugin, view_of(record)) for plugin, record in readable]
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


def _unchecked(stack: StackRecord, path: tuple[str, ...], record: ResourceRecord) -> ResourceDrift:
    return ResourceDrift(
        record.name, record.type, record.physical_id, DriftStatus.NOT_CHECKED,
        stack=stack.name, path=path,
    )  # fmt: skip


def _judge(
    stack: StackRecord, path: tuple[str, ...], record: ResourceRecord, outcome: ReadbackOutcome
) -> ResourceDrift:
    base = _unchecked(stack, path, record)
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
    undoable = (
        (d.property, irreversible_drift(record.type, d.property, d.expected, d.actual))
        for d in differences
    )
    reason = "; ".join(
        f"{name}: {why}: a repair leaves it (accept it)" for name, why in undoable if why
    )
    return replace(base, status=status, differences=differences, actual=actual, reason=reason)


#: how far down a repair and an accept look into nested stacks (every level there is)
ALL_LEVELS = 1_000


def _path(found: ResourceDrift) -> str:
    """The resource's path from the stack asked about: ``group/0/server``."""
    return "/".join((*found.path, found.resource))


async def _holder(engine: StackEngine, stack: StackRecord, path: tuple[str, ...]) -> StackRecord:
    """The nested stack ``path`` (resource names from ``stack`` down) leads to."""
    for depth, name in enumerate(path):
        records = await asyncio.to_thread(engine.store.resources, stack.id)
        record = next((r for r in records if r.name == name), None)
        if record is None or record.physical_id is None or not is_nested(engine, record):
            where = "/".join(path[: depth + 1])
            raise StackNotFound(f"The nested stack of {where} could not be found in {stack.name}.")
        stack = await engine.find(str(record.physical_id))
    return stack


async def accept(engine: StackEngine, name_or_id: str, resource: str) -> ResourceDrift:
    """Store the cloud's values of ``resource`` as the stack's: the properties that
    differ take their actual value, so the next drift shows it in sync. ``resource`` is
    a path for a resource of a nested stack (``group/0/server``, as the drift's table
    shows it; Heat's hooks name nested resources so). Refused for a resource the cloud
    lost (only a repair brings it back) or one whose properties are not compared."""
    top = await engine.find(name_or_id)
    *path, name = resource.split("/")
    stack = await _holder(engine, top, tuple(path))
    found = next((d for d in await drift(engine, stack.id) if d.resource == name), None)
    if found is None:
        raise StackNotFound(f"The Resource ({resource}) could not be found in Stack {top.name}.")
    found = replace(found, path=tuple(path))
    if found.status in (DriftStatus.DELETED, DriftStatus.NOT_CHECKED):
        raise CloudError(
            f"{resource} is {found.status.value}: only a modified resource's values can be "
            "accepted (stoker stack update --existing --repair re-creates a deleted one)"
        )
    if found.status is DriftStatus.MODIFIED:
        records = await asyncio.to_thread(engine.store.resources, stack.id)
        record = next(r for r in records if r.name == name)
        await _write(engine, stack, {name: _accepted(record, found)}, "drift accepted")
    return found


def _accepted(record: ResourceRecord, found: ResourceDrift) -> ResourceRecord:
    properties = dict(record.properties)
    for difference in found.differences:
        properties[difference.property] = difference.actual
    return replace(record, properties=properties)


@dataclass(frozen=True, slots=True)
class Unrepairable:
    """A difference an update cannot undo (`stoker.resources.irreversible_drift`): the
    repair leaves it as it is (replacing the resource would lose its data)."""

    resource: str  # its path, as `accept` takes it
    difference: Difference
    reason: str


@dataclass(frozen=True, slots=True)
class Repair:
    """What a repair's update starts from: the drifted resources' records by path
    (``web``; ``group/0/server`` inside nested stacks), and what it leaves as it is."""

    records: dict[str, ResourceRecord]
    left: tuple[Unrepairable, ...] = ()


async def repair_records(engine: StackEngine, name_or_id: str) -> Repair:
    """The drifted resources of the stack and of its nested stacks, as an update to the
    template must see them to undo the drift: a modified one with the cloud's values as
    its properties, a lost one failed (CHECK_FAILED); a difference no update can undo
    (a volume extended by hand: Cinder cannot shrink it) keeps the template's value, and
    is listed in `Repair.left`. Nothing is written (see `write_repair`)."""
    top = await engine.find(name_or_id)
    stacks: dict[tuple[str, ...], dict[str, ResourceRecord]] = {}
    changed: dict[str, ResourceRecord] = {}
    left: list[Unrepairable] = []
    for found in await drift(engine, top.id, ALL_LEVELS):
        if found.status not in (DriftStatus.MODIFIED, DriftStatus.DELETED):
            continue
        if found.path not in stacks:
            holder = await _holder(engine, top, found.path)
            held = await asyncio.to_thread(engine.store.resources, holder.id)
            stacks[found.path] = {r.name: r for r in held}
        record = stacks[found.path][found.resource]
        if found.status is DriftStatus.DELETED:
            changed[_path(found)] = replace(
                record, action=Action.CHECK, status=Status.FAILED, status_reason=LOST
            )
            continue
        kept = []
        for difference in found.differences:
            reason = irreversible_drift(
                found.type, difference.property, difference.expected, difference.actual
            )
            if reason is None:
                kept.append(difference)
            else:
                left.append(Unrepairable(_path(found), difference, reason))
        if kept:
            changed[_path(found)] = _accepted(record, replace(found, differences=tuple(kept)))
    return Repair(changed, tuple(left))


async def write_repair(engine: StackEngine, name_or_id: str, repair: Repair) -> None:
    """Write `repair_records`'s records (under each stack's claim, one event each), so
    the update that follows starts from what the cloud really has."""
    top = await engine.find(name_or_id)
    by_stack: dict[tuple[str, ...], dict[str, ResourceRecord]] = {}
    for path, record in repair.records.items():
        *above, _ = path.split("/")
        by_stack.setdefault(tuple(above), {})[record.name] = record
    for path_to, changed in by_stack.items():
        stack = await _holder(engine, top, path_to)
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
