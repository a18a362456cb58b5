"""Stack-wide resource actions (check, suspend, resume, snapshot, abandon, adopt) as one
recorded walk of the graph.

Heat runs these the same way (``Stack.stack_task``): the stack goes ``<ACTION>_IN_PROGRESS``,
every resource is visited in dependency order (suspend in reverse), a resource backed by a
nested stack runs the same action on its child, and the stack ends ``<ACTION>_COMPLETE`` or
``<ACTION>_FAILED`` with ``Resource <ACTION> failed: <why>``. Like create, a walk claims the
stack (a fenced lease) and records each transition before its effect, so a walk whose
process died is finished by ``stack recover``: resources already done are skipped.

The module takes what it needs from the engine through `ActionHost` (no private calls into
the create/delete machinery), so the operations can live and change apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from stoker.engine import leases
from stoker.engine.recorder import Recorder
from stoker.engine.scheduler import Traversal, reverse, traverse
from stoker.engine.settings import EngineSettings
from stoker.engine.state import (
    Action,
    EventRecord,
    Lease,
    ResourceRecord,
    StackRecord,
    StackStatus,
    Status,
    Store,
    WriteBatch,
)
from stoker.errors import OperationRefused, ResourceFailure, StackNotFound
from stoker.resources.base import ResourceContext, ResourcePlugin
from stoker.resources.nested import NestedStackPlugin
from stoker.resources.registry import ResourceTypeRegistry

STACK_TYPE = "OS::Heat::Stack"


class ActionHost(Protocol):
    """What a walk needs from the engine that runs it (`StackEngine` is one)."""

    store: Store
    registry: ResourceTypeRegistry
    settings: EngineSettings
    listener: Callable[[EventRecord], None] | None
    engine_id: str
    sleep: Callable[[float], Awaitable[None]]

    def plugin_of(self, record: ResourceRecord) -> ResourcePlugin | None: ...


async def find_stack(host: ActionHost, name_or_id: str) -> StackRecord:
    """The live stack named (or with id) ``name_or_id``; StackNotFound otherwise."""
    stack = await asyncio.to_thread(host.store.get_stack, name_or_id, host.settings.project)
    if stack is None or stack.deleted_at is not None:
        raise StackNotFound(f"The Stack ({name_or_id}) could not be found.")
    return stack


async def refuse_nested(host: ActionHost, stack: StackRecord, verb: str) -> None:
    """A nested stack's actions come from its parent (as for delete and recover)."""
    if stack.parent_id is None:
        return
    parent = await asyncio.to_thread(host.store.get_stack, stack.parent_id, stack.project)
    if parent is None or parent.deleted_at is not None:
        return
    raise OperationRefused(
        f"Stack {stack.name} is a nested stack, owned by resource {stack.parent_resource} "
        f"of stack {parent.name}: {verb} {parent.name} instead"
    )


async def live_lease(host: ActionHost, stack: StackRecord) -> Lease | None:
    """The claim on the stack if a live process holds it (not expired, holder alive)."""
    lease = await asyncio.to_thread(host.store.lease, stack.id)
    if lease is None or lease.expires_at <= leases.now_utc():
        return None
    return None if leases.holder_is_dead(lease.engine_id) else lease


async def refuse_in_progress(
    host: ActionHost, stack: StackRecord, verb: str, allow: tuple[Action, ...] = ()
) -> None:
    """An operation runs (refused, as Heat refuses while the stack is locked) or was
    interrupted (its state is what `stack recover` continues from: not to be overwritten;
    except for the interrupted actions in ``allow``)."""
    if stack.status is not Status.IN_PROGRESS:
        return
    holder = await live_lease(host, stack)
    if holder is not None:
        raise OperationRefused(
            f"Stack {stack.name} already has an action ({stack.action.value}) in progress "
            f"(engine {holder.engine_id})."
        )
    if stack.action in allow:
        return
    raise OperationRefused(
        f"Stack {stack.name} has an interrupted {stack.action.value} "
        f"({stack.action.value}_IN_PROGRESS): continue it with `stack recover {stack.name}` "
        f"before you {verb} it"
    )


async def claim(host: ActionHost, stack: StackRecord) -> leases.Fence:
    """Take the stack's lease, or refuse as Heat does while another action runs."""
    try:
        return await asyncio.to_thread(
            leases.acquire, host.store, stack.id, host.engine_id, host.settings.lease_seconds
        )
    except leases.LeaseHeld as held:
        raise OperationRefused(
            f"Stack {stack.name} already has an action ({stack.action.value}) in progress "
            f"(engine {held.lease.engine_id}, lease until "
            f"{held.lease.expires_at.isoformat(timespec='seconds')})."
        ) from None


def is_nested(host: ActionHost, record: ResourceRecord) -> bool:
    """Backed by a child stack: it has one, or its type makes one (a group, a provider)."""
    if record.data.get("child_id"):
        return True
    plugin = host.registry.get(record.type)
    return plugin is None or isinstance(plugin, NestedStackPlugin)


class ActionFailure(ResourceFailure):  # noqa: N818 - the resource failed the action
    """A resource failed the action; ``resource_reason`` is what its own status says
    when that differs from the stack's (Heat's check of a resource never created)."""

    def __init__(self, message: str, resource_reason: str | None = None) -> None:
        super().__init__(message)
        self.resource_reason = resource_reason


class Refused(ResourceFailure):  # noqa: N818 - the resource refused the action
    """The resource is in no state for the action: the stack fails, the resource's own
    state is left as it was (Heat raises before it records anything)."""


@dataclass(slots=True)
class Done:
    """A resource's action completed; ``reason`` is its status reason."""

    reason: str = "state changed"
    #: what else the resource's record takes (adopt: its physical id, data, properties)
    changes: dict[str, Any] = field(default_factory=dict)


#: what a walk does to one resource: Done, or raise (ResourceFailure / Refused)
Effect = Callable[["StackWalk", ResourceRecord], Awaitable[Done]]


class StackWalk:
    """One action over one stack's resources, under the stack's claim."""

    def __init__(
        self,
        host: ActionHost,
        stack: StackRecord,
        fence: leases.Fence,
        action: Action,
        parent: StackWalk | None = None,
    ) -> None:
        self.host = host
        self.stack = stack
        self.fence = fence
        self.action = action
        self.parent = parent
        self.recorder = Recorder(host.store, fence=fence)
        self.records: dict[str, ResourceRecord] = {}
        #: some resource (here or below) cannot really do the action (Heat's check)
        self.unsupported = False

    @property
    def depth(self) -> int:
        return self.parent.depth + 1 if self.parent else 0

    async def load(self) -> None:
        records = await asyncio.to_thread(self.host.store.resources, self.stack.id)
        self.records = {r.name: r for r in records}

    async def write(self, batch: WriteBatch) -> None:
        await self.recorder.write(batch)
        for record in batch.resources:
            self.records[record.name] = record
        if self.host.listener is not None:
            for event in batch.events:
                self.host.listener(event)

    async def set_stack(self, status: Status, reason: str) -> StackRecord:
        now = leases.now_utc()
        event = EventRecord(
            self.stack.id,
            self.stack.name,
            STACK_TYPE,
            self.action,
            status,
            reason,
            self.stack.id,
            now,
        )
        change = StackStatus(self.stack.id, self.action, status, reason, now)
        await self.write(WriteBatch(stacks=[change], events=[event]))
        self.stack = replace(
            self.stack, action=self.action, status=status, status_reason=reason, updated_at=now
        )
        return self.stack

    async def transition(
        self, record: ResourceRecord, status: Status, reason: str, **changes: Any
    ) -> ResourceRecord:
        now = leases.now_utc()
        updated = replace(
            record,
            action=self.action,
            status=status,
            status_reason=reason,
            updated_at=now,
            **changes,
        )
        event = EventRecord(
            self.stack.id,
            record.name,
            record.type,
            self.action,
            status,
            reason,
            updated.physical_id,
            now,
        )
        await self.write(WriteBatch(resources=[updated], events=[event]))
        return updated

    def context(self, record: ResourceRecord) -> ResourceContext:
        return ResourceContext(
            stack_name=self.stack.name,
            stack_id=self.stack.id,
            project_id=self.stack.project,
            resource_name=record.name,
            physical_name=str(record.data.get("physical_name") or record.physical_id or ""),
            properties=record.properties,
            data=dict(record.data),
            physical_id=record.physical_id,
            sleep=self.host.sleep,
        )

    async def visit(self, name: str, effect: Effect) -> None:
        """State first: IN_PROGRESS committed, then the effect, then COMPLETE or FAILED.
        The effect sees the resource as it was before (its action and status then)."""
        before = self.records[name]
        refusal = precheck(self.action, before)
        if refusal is not None:
            raise Refused(f"Error: resources.{name}: {refusal}")
        record = await self.transition(before, Status.IN_PROGRESS, "state changed")
        await self.fence.confirm(self.host.store)
        try:
            done = await effect(self, before)
        except Exception as error:
            message = getattr(error, "message", None) or str(error) or type(error).__name__
            reason = f"{type(error).__name__}: resources.{name}: {message}"
            shown = getattr(error, "resource_reason", None) or reason
            # on top of the latest record: the effect may have recorded a child's id
            latest = self.records.get(name, record)
            await asyncio.shield(self.transition(latest, Status.FAILED, shown))
            raise ResourceFailure(reason) from error
        await self.transition(record, Status.COMPLETE, done.reason, **done.changes)

    async def run(
        self,
        effect: Effect,
        *,
        backwards: bool,
        aggregate: bool,
        skip: Iterable[str] = (),
        untouched: Callable[[ResourceRecord], bool] | None = None,
    ) -> Traversal:
        """Visit every resource (dependencies first, or dependents first ``backwards``).
        Without ``aggregate`` the first failure stops new visits (suspend, resume);
        with it every resource is visited and every failure kept (check)."""
        requires = {n: r.requires for n, r in self.records.items()}
        graph = reverse(requires) if backwards else requires
        failures: dict[str, BaseException] = {}

        async def job(name: str) -> None:
            if untouched is not None and untouched(self.records[name]):
                return  # left as it is, no transition (Heat's check of an INIT resource)
            if not aggregate:
                await self.visit(name, effect)
                return
            try:
                await self.visit(name, effect)
            except Exception as error:
                failures[name] = error

        timeout = (self.stack.timeout_mins or 0) * 60 or self.host.settings.default_timeout_seconds
        try:
            async with asyncio.timeout(timeout):
                result = await traverse(
                    graph, job, concurrency=self.host.settings.concurrency, done=skip
                )
        except TimeoutError:
            return Traversal(failed={"": TimeoutError(f"{self.action.value.title()} timed out")})
        result.failed.update(failures)
        return result


def precheck(action: Action, record: ResourceRecord) -> str | None:
    """Heat's state rules for suspend and resume (``Resource.suspend``/``resume``): why
    the resource cannot take the action, or None."""
    if record.action is action and record.status is Status.IN_PROGRESS:
        return None  # this very walk was interrupted there (a recovered walk)
    state = f"('{record.action.value}', '{record.status.value}')"
    unstable = record.action is not Action.SUSPEND and record.status is not Status.COMPLETE
    if action is Action.SUSPEND and (record.action is Action.DELETE or unstable):
        return f"State {state} invalid for suspend"
    if action is Action.RESUME:
        allowed = {
            (Action.SUSPEND, Status.COMPLETE),
            (Action.RESUME, Status.FAILED),
            (Action.RESUME, Status.COMPLETE),
        }
        if (record.action, record.status) not in allowed:
            return f"State {state} invalid for resume"
    return None


def failure_reason(action: Action, result: Traversal) -> str:
    """Heat's stack reason: ``Resource <ACTION> failed: <the first resource's reason>``."""
    error = next(iter(result.failed.values()))
    if isinstance(error, TimeoutError) and "" in result.failed:
        return f"{action.value.title()} timed out"
    return f"Resource {action.value} failed: {error}"


async def child_action(
    walk: StackWalk,
    record: ResourceRecord,
    verb: str,
    run_child: Callable[[StackWalk | None, StackRecord], Awaitable[StackRecord]],
) -> Done:
    """Run the walk's action on the child stack of a nested resource (Heat's
    ``StackResource.handle_<action>``), failing the resource if the child fails."""
    child_id = record.data.get("child_id")
    child = None
    if child_id:
        child = await asyncio.to_thread(
            walk.host.store.get_stack, str(child_id), walk.stack.project
        )
    if child is None or child.deleted_at is not None:
        raise ResourceFailure(f"Cannot {verb} {record.name}, stack not created")
    result = await run_child(walk, child)
    if result.status is not Status.COMPLETE:
        raise ResourceFailure(
            f"{result.action.value}_{result.status.value}: {result.status_reason}"
        )
    return Done()


async def perform(
    host: ActionHost,
    stack: StackRecord,
    action: Action,
    effect: Effect,
    *,
    backwards: bool = False,
    aggregate: bool = False,
    parent: StackWalk | None = None,
    finish: Callable[[StackWalk, Status, str], str] | None = None,
    completed: Callable[[StackWalk], Awaitable[None]] | None = None,
    untouched: Callable[[ResourceRecord], bool] | None = None,
) -> StackRecord:
    """Claim ``stack`` and run ``action`` over its resources, start to end.

    A stack already ``<ACTION>_IN_PROGRESS`` (its process died) is continued: resources
    whose action already ended are not visited again. ``finish`` may amend the final
    reason (check's "not fully supported"); ``completed`` runs under the claim after a
    COMPLETE end (abandon forgets the stack there)."""
    fence = await claim(host, stack)
    walk = StackWalk(host, stack, fence, action, parent)
    async with leases.held(host.store, fence):
        recovering = stack.action is action and stack.status is Status.IN_PROGRESS
        await walk.load()
        skip: list[str] = []
        if recovering:
            ended = (Status.COMPLETE, Status.FAILED) if aggregate else (Status.COMPLETE,)
            skip = [n for n, r in walk.records.items() if r.action is action and r.status in ended]
        else:
            await walk.set_stack(Status.IN_PROGRESS, f"Stack {action.value} started")
        result = await walk.run(
            effect, backwards=backwards, aggregate=aggregate, skip=skip, untouched=untouched
        )
        if result.failed:
            status, reason = Status.FAILED, failure_reason(action, result)
        else:
            status, reason = Status.COMPLETE, f"Stack {action.value} completed successfully"
        if finish is not None:
            reason = finish(walk, status, reason)
        record = await walk.set_stack(status, reason)
        if completed is not None and status is Status.COMPLETE:
            await completed(walk)  # still under the claim (abandon's forgetting)
        return walk.stack if completed is not None else record


async def recover(host: ActionHost, stack: StackRecord) -> StackRecord:
    """Continue an interrupted check, suspend, resume or snapshot of ``stack``. An adopt
    cannot be continued (its document is not stored): it is refused, saying what to do."""
    from stoker.engine import check, snapshots, suspend

    if stack.action is Action.ADOPT:
        raise OperationRefused(
            f"The adopt of stack {stack.name} was interrupted and cannot be continued: "
            f"`stack abandon {stack.name}`, then adopt it again from its document"
        )
    if stack.action is Action.CHECK:
        return await check.run(host, stack)
    if stack.action is Action.SNAPSHOT:
        return await snapshots.recover(host, stack)
    return await suspend.run(host, stack, stack.action)
