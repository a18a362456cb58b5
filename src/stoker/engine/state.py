"""The records the engine keeps about stacks, resources and events, and the store port.

The engine declares what it needs from durable storage here; `stoker.store` implements
it with SQLAlchemy. Records are plain values, so the engine never holds a live database
object: slotted dataclasses, compared and hashed by value, which the engine never changes
in place (`dataclasses.replace` makes a changed copy). They are not frozen: a frozen
dataclass's ``__init__`` sets each field through ``object.__setattr__``, and a
10,000-resource create and delete builds ~90,000 records (two per transition, with their
events, and the rows read back); freezing them cost that create and delete ~13 % of its
CPU time (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from stoker.errors import StackExists as StackExists


class Action(StrEnum):
    INIT = "INIT"
    CREATE = "CREATE"
    DELETE = "DELETE"
    UPDATE = "UPDATE"
    ROLLBACK = "ROLLBACK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    CHECK = "CHECK"
    SIGNAL = "SIGNAL"
    SNAPSHOT = "SNAPSHOT"
    ADOPT = "ADOPT"
    RESTORE = "RESTORE"  # a stack restored from a snapshot (an update in Heat's terms)


class Status(StrEnum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


@dataclass(slots=True, unsafe_hash=True)
class StackRecord:
    """One stack. ``template``/``environment``/``files``/``parameters`` are what it was
    created from (JSON-native data), so an interrupted operation can be resumed."""

    id: str
    name: str
    project: str
    action: Action
    status: Status
    status_reason: str
    # Left out of repr: large (a 10,000-resource template), and hidden values. Python
    # 3.11's asyncio.run formats the repr of its main task's result when it restores the
    # SIGINT handler, so a record returned from an operation would be printed in full.
    template: dict[str, Any] = field(repr=False)
    environment: dict[str, Any] = field(repr=False)
    files: dict[str, str] = field(repr=False)
    parameters: dict[str, Any] = field(repr=False)  # raw values as supplied (hidden too)
    created_at: datetime
    #: when the last action of `UPDATING_ACTIONS` began (Heat's ``updated_time``); None
    #: while the stack has had none
    updated_at: datetime | None = None
    deleted_at: datetime | None = None
    parent_id: str | None = None
    parent_resource: str | None = None
    tags: tuple[str, ...] = ()
    timeout_mins: int | None = None
    disable_rollback: bool = True
    template_file: str | None = None  # where the template was read from, for messages
    #: the clouds.yaml entry the stack was created in (None: no cloud chosen by name), so
    #: later commands on it need no --os-cloud
    cloud: str | None = None


@dataclass(slots=True, unsafe_hash=True)
class ResourceRecord:
    stack_id: str
    name: str
    type: str
    action: Action
    status: Status
    status_reason: str = ""
    physical_id: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)  # as resolved
    attributes: dict[str, Any] = field(default_factory=dict)  # cached attribute values
    data: dict[str, Any] = field(default_factory=dict)  # the plugin's own data
    requires: tuple[str, ...] = ()
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def exists(self) -> bool:
        """Made and not deleted since: neither INIT nor DELETE_COMPLETE."""
        return not (
            self.action is Action.INIT
            or (self.action is Action.DELETE and self.status is Status.COMPLETE)
        )


@dataclass(slots=True, unsafe_hash=True)
class EventRecord:
    stack_id: str
    resource_name: str  # the stack's name for stack-level events
    resource_type: str  # "OS::Heat::Stack" for stack-level events
    action: Action
    status: Status
    reason: str
    physical_id: str | None
    time: datetime
    id: int | None = None  # assigned by the store

    @classmethod
    def of(
        cls, record: ResourceRecord, action: Action, status: Status, reason: str, time: datetime
    ) -> EventRecord:
        """An event of resource ``record`` (its stack, name, type and physical id)."""
        return cls(
            record.stack_id,
            record.name,
            record.type,
            action,
            status,
            reason,
            record.physical_id,
            time,
        )


#: The actions whose start is a stack's ``updated_time``. Heat's convergence engine (its
#: default) sets it whenever it converges a stack on a template, which is every action but
#: a create: an update, a rollback (of an update or of a failed create), a delete and a
#: restore. A check, suspend, resume or snapshot leaves it, and a stack never updated
#: shows none (tests/fidelity/times records what Heat does).
UPDATING_ACTIONS = frozenset({Action.UPDATE, Action.ROLLBACK, Action.DELETE, Action.RESTORE})


@dataclass(slots=True, unsafe_hash=True)
class StackStatus:
    """A change of a stack's state."""

    stack_id: str
    action: Action
    status: Status
    reason: str
    time: datetime

    @property
    def updated_at(self) -> datetime | None:
        """The stack's new ``updated_time`` when the change starts an action of
        `UPDATING_ACTIONS`; None: the stack keeps the one it has."""
        if self.status is Status.IN_PROGRESS and self.action in UPDATING_ACTIONS:
            return self.time
        return None

    def applied_to(self, stack: StackRecord) -> StackRecord:
        """``stack`` as the store holds it once this change is written."""
        return replace(
            stack,
            action=self.action,
            status=self.status,
            status_reason=self.reason,
            updated_at=self.updated_at or stack.updated_at,
        )


@dataclass(slots=True, unsafe_hash=True)
class SnapshotRecord:
    """A stack snapshot: Heat's document (template, environment, files, each resource's
    data) in ``data`` once COMPLETE."""

    id: str
    stack_id: str
    name: str | None
    status: str  # IN_PROGRESS | COMPLETE | FAILED
    status_reason: str
    data: dict[str, Any] | None
    created_at: datetime


@dataclass(slots=True)
class WriteBatch:
    """Changes written in one transaction (group commit): all of them or none."""

    stacks: list[StackStatus] = field(default_factory=list)
    resources: list[ResourceRecord] = field(default_factory=list)  # upserted by (stack_id, name)
    events: list[EventRecord] = field(default_factory=list)
    #: resources to forget, by (stack_id, name), after the upserts (removed by an update)
    removed: list[tuple[str, str]] = field(default_factory=list)
    #: records, by (stack_id, name), whose stored row differs from them only in action,
    #: status, status_reason and updated_at once ``resources`` are written: the store
    #: writes those four alone (a delete of 10,000 rewrote every row's JSON columns).
    #: Each is later than any record of its resource in ``resources`` (the `Recorder`
    #: drops a state that a full record of its resource follows).
    states: dict[tuple[str, str], ResourceRecord] = field(default_factory=dict)
    #: give up the claim the batch is written under (`Store.write`'s ``fence``), after
    #: the rest, in the same transaction: an operation's last write. A separate release
    #: would be one more transaction per stack, and between the two the stack would
    #: show its final state while still claimed.
    release: bool = False

    def __bool__(self) -> bool:
        return (
            bool(self.stacks or self.resources or self.events or self.removed or self.states)
            or self.release
        )


@dataclass(slots=True, unsafe_hash=True)
class StoredDefinition:
    """What a stack runs from: the template, merged environment and files (as data), the
    parameters as supplied, and where the template was read from."""

    template: dict[str, Any]
    environment: dict[str, Any]
    files: dict[str, str]
    parameters: dict[str, Any]
    template_file: str | None = None

    @classmethod
    def of(cls, stack: StackRecord) -> StoredDefinition:
        return cls(
            stack.template, stack.environment, stack.files, stack.parameters, stack.template_file
        )

    def on(self, stack: StackRecord) -> StackRecord:
        """``stack`` running from this definition (a rollback's target, the definition
        a removed resource's deletion policy is read from)."""
        return replace(
            stack,
            template=self.template,
            environment=self.environment,
            files=self.files,
            parameters=self.parameters,
            template_file=self.template_file,
        )


@dataclass(slots=True, unsafe_hash=True)
class DefinitionChange:
    """An update's change of a stack's definition. With ``keep_previous`` (an update
    starts) the current definition becomes the previous one, which a rollback returns
    to; without it (a rollback) the previous one is dropped."""

    stack_id: str
    definition: StoredDefinition
    tags: tuple[str, ...] = ()
    timeout_mins: int | None = None
    disable_rollback: bool = True
    keep_previous: bool = True


@dataclass(slots=True, unsafe_hash=True)
class Lease:
    """Who is operating on a stack, and until when the claim holds without a heartbeat."""

    engine_id: str
    expires_at: datetime
    #: the claim's fencing token (counts every claim taken on the stack)
    generation: int = field(default=0, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class LeaseToken:
    """What a write of an operation carries: the store applies the write only if the stack
    is still claimed by ``engine_id`` with this ``generation``, in the same transaction."""

    stack_id: str
    engine_id: str
    generation: int


class Store(Protocol):
    """Durable state. Every method is one transaction; times are timezone-aware UTC."""

    def create_stack(
        self,
        stack: StackRecord,
        resources: Sequence[ResourceRecord],
        events: Sequence[EventRecord],
        claim: Lease | None = None,
        max_stacks: int | None = None,
    ) -> None:
        """Insert a stack with its initial resource rows; StackExists if a stack of that
        name exists (and is not deleted) in the project. With ``claim``, the row is
        inserted already claimed (that holder, expiry and generation), so no other
        process can take the new stack between its insert and the creator's first write.
        With ``max_stacks`` (a top-level stack), StackLimitReached if the project already
        has that many live top-level stacks, counted in the inserting transaction under
        a per-project lock: concurrent creators cannot pass the limit together."""

    def get_stack(self, name_or_id: str, project: str) -> StackRecord | None:
        """By id (including deleted stacks) or else by name (not deleted)."""

    def list_stacks(
        self, project: str, *, include_nested: bool = False, include_deleted: bool = False
    ) -> list[StackRecord]: ...

    def stack_summaries(
        self, project: str, *, include_nested: bool = False, include_deleted: bool = False
    ) -> list[StackRecord]:
        """`list_stacks` with each definition (template, environment, files, parameters)
        left empty."""

    def stack_summary(self, stack_id: str, project: str) -> StackRecord | None:
        """`get_stack` by id with the definition left empty (as `stack_summaries`)."""

    def tree_summaries(self, stack_id: str) -> list[StackRecord]:
        """The live stacks below ``stack_id`` at any depth, oldest first, each definition
        left empty: one read for what walking each stack's live children down finds."""

    def stacks_in_progress(self) -> list[StackRecord]:
        """Live top-level stacks of every project with an operation IN_PROGRESS."""

    def resources(self, stack_id: str) -> list[ResourceRecord]:
        """In the order they were first written."""

    def count_resources(self, stack_id: str) -> int:
        """How many resources the stack has (without reading them)."""

    def events(
        self, stack_id: str, *, after_id: int | None = None, limit: int | None = None
    ) -> list[EventRecord]:
        """Oldest first; ``after_id`` for following new events."""

    def write(self, batch: WriteBatch, fence: LeaseToken | None = None) -> str | None:
        """Apply a batch in one transaction; with ``fence``, only while that claim holds
        (else raise `stoker.errors.LeaseLost` and change nothing), returning the stack's
        pending cancel request (``cancel`` or ``rollback``, see `request_cancel`), if any.
        A batch that says `WriteBatch.release` also releases that claim (it needs
        ``fence``)."""

    def acquire_lease(
        self, stack_id: str, engine_id: str, expires_at: datetime, now: datetime
    ) -> Lease | None:
        """Claim the stack if no other engine holds a live lease (compare-and-swap), with
        a new generation. Returns None on success, else the lease that is in the way."""

    def renew_lease(self, stack_id: str, engine_id: str, expires_at: datetime) -> bool:
        """Extend our lease; False if we no longer hold it."""

    def release_lease(self, stack_id: str, engine_id: str) -> None: ...

    def lease(self, stack_id: str) -> Lease | None: ...

    def count_stacks(self, project: str) -> int:
        """Top-level stacks in the project that are not deleted (the per-project limit)."""

    def change_definition(
        self, change: DefinitionChange, batch: WriteBatch, fence: LeaseToken | None = None
    ) -> None:
        """Point the stack at a new definition (see `DefinitionChange`) and apply ``batch``,
        in one transaction; fenced as `write`."""

    def previous_definition(self, stack_id: str) -> StoredDefinition | None:
        """The definition the stack had before its last update, if it keeps one."""

    def mark_deleted(self, stack_id: str, time: datetime, fence: LeaseToken | None = None) -> None:
        """The stack is gone: set deleted_at (its name may be reused); fenced as `write`."""

    def request_cancel(self, stack_id: str, request: str, actions: Sequence[str]) -> bool:
        """Record ``cancel`` or ``rollback`` for the operation running on the stack (only
        while it is IN_PROGRESS in one of ``actions`` under a claim); False if not. The
        running operation sees it through `write`; the next claim clears it."""

    def add_snapshot(self, snapshot: SnapshotRecord) -> None:
        """Insert or replace (by id) a snapshot."""

    def snapshots(self, stack_id: str) -> list[SnapshotRecord]:
        """The stack's snapshots, oldest first."""

    def delete_snapshot(self, snapshot_id: str) -> None: ...


def child_stack(store: Store, project: str, record: ResourceRecord | None) -> StackRecord | None:
    """The nested stack ``record`` made (its ``child_id``), deleted or not."""
    child_id = record.data.get("child_id") if record is not None else None
    return store.get_stack(str(child_id), project) if child_id else None


def live_child(store: Store, project: str, record: ResourceRecord | None) -> StackRecord | None:
    """The nested stack ``record`` made (its ``child_id``), while it is not deleted."""
    child = child_stack(store, project, record)
    return child if child is not None and child.deleted_at is None else None
