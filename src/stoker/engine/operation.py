"""One running operation on one stack: its records in memory, its writes, its jobs.

An operation records every transition before and after its effect (state first, effect
second) through the group-commit recorder, and walks the dependency graph with the
scheduler: forward for create, reversed for delete and rollback.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stoker.definition import StackDefinition
from stoker.engine import cancel, deletion, external, hooks, leases, nested, testpoints
from stoker.engine.failures import aborted, failure_reason
from stoker.engine.physical_names import physical_name
from stoker.engine.properties import resolve_properties
from stoker.engine.recorder import Recorder
from stoker.engine.replacement import REPLACED, restored
from stoker.engine.runtime import view_of
from stoker.engine.scheduler import Traversal, reverse, traverse
from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    StackRecord,
    StackStatus,
    Status,
    WriteBatch,
)
from stoker.engine.time_limit import time_limit
from stoker.errors import OperationCancelled, StokerError
from stoker.resolution import Resolution
from stoker.resources import (
    NestedStackPlugin,
    ResourceContext,
    ResourcePlugin,
    ResourceView,
)

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine

#: the fields `Operation.step` copies or changes itself (any other change: `replace`)
_CARRIED = frozenset(
    ("type", "physical_id", "properties", "attributes", "data", "requires", "created_at")
)


class Operation:
    """One running operation on one stack: its records in memory, its writes, its jobs."""

    def __init__(
        self,
        engine: StackEngine,
        stack: StackRecord,
        definition: StackDefinition | None,
        parent: Operation | None = None,
    ) -> None:
        self.engine = engine
        self.stack = stack
        self.definition = definition
        self.parent = parent
        self.depth: int = parent.depth + 1 if parent else 0
        #: dotted resource path of this stack, for messages: "parent.web.0"
        self.path: str = f"{parent.path}.{stack.parent_resource}" if parent else stack.name
        directory = os.path.dirname(stack.template_file or "")
        self.base_dir = os.path.abspath(directory) if directory else None
        self.recorder = Recorder(engine.store, listener=engine.notify)
        self.fence: leases.Fence | None = None
        self.records: dict[str, ResourceRecord] = {}
        #: the records as `load_records` read them or an awaited `write` committed them:
        #: one still in `records` (the same object) is what its stored row holds, so a
        #: change of its state alone can be written as that (`Recorder.defer_state`,
        #: `WriteBatch.states`)
        self._stored: dict[str, ResourceRecord] = {}
        self._resolution: Resolution | None = None
        #: the resources this operation may act on (None: all); an update leaves out
        #: those it knows unchanged, so it never resolves their types or properties
        self.scope: frozenset[str] | None = None
        #: a drift repair's resources (paths, ``child/name`` inside a nested stack) to
        #: compare with their records even where the template left them as they were;
        #: in a repair's preview, the records that stand in for the stored ones
        self.revisit: frozenset[str] = frozenset()
        self.stand_ins: Mapping[str, ResourceRecord] = {}
        #: where the first failure happened (dotted path) and why
        self.first_failure: tuple[str, str] | None = None
        self.started = engine.clock.now()
        timeout = (stack.timeout_mins * 60) if stack.timeout_mins else None
        self.timeout = timeout or engine.settings.default_timeout_seconds
        self.timed_out = False
        #: a `stack cancel` request stops this operation (not a rollback it asked for)
        self.cancellable = True
        #: an update: the resources whose definition changed other than by its properties'
        #: values (`planning.definition_changes`): Heat updates them in place
        self.definition_changed: frozenset[str] = frozenset()
        #: an update: when it began (a record changed since then was reached by it)
        self.began: datetime | None = None
        #: the stored previous template's resources (read once, for the deletion policy of
        #: a resource an update removes: it is in the old definition only; see `deletion`)
        self.previous_resources: dict[str, Any] | None = None
        #: the one read of them under way (see `deletion`)
        self.previous_reading: asyncio.Future[dict[str, Any]] | None = None

    def attach(self, fence: leases.Fence) -> None:
        """From now on every write is checked against this claim (see `leases.Fence`)."""
        self.fence = fence
        self.recorder.fence = fence

    def claim(self) -> leases.Fence:
        assert self.fence is not None, "an operation runs only under a claim"
        return self.fence

    def time_left(self) -> float | None:
        """Seconds before the operation times out, on the engine's clock."""
        return self.timeout - (self.engine.clock.now() - self.started)

    def time_limit(self) -> AbstractAsyncContextManager[None]:
        """TimeoutError out of the block when the operation's time is up (`time_limit`)."""
        return time_limit(self.time_left(), self.engine.clock)

    def restart_clock(self) -> None:
        """A rollback or delete gets its own time, not what a failed create left."""
        self.started = self.engine.clock.now()
        self.timed_out = False

    def resolution(self) -> Resolution:
        """The plugin of each resource (provider templates read once per operation)."""
        if self._resolution is None:
            assert self.definition is not None
            self._resolution = self.engine.resolve_types(self.definition, self.base_dir, self.scope)
        return self._resolution

    async def load_records(self) -> None:
        self.written(await asyncio.to_thread(self.engine.store.resources, self.stack.id))

    def written(self, records: Iterable[ResourceRecord]) -> None:
        """Take ``records`` as the stack's records, each what its stored row holds (read
        back, or just written)."""
        self.records = {r.name: r for r in records}
        self._stored = dict(self.records)

    def already_deleted(self) -> list[str]:
        return [n for n, r in self.records.items() if not r.exists]

    async def write(self, batch: WriteBatch) -> None:
        """Commit ``batch`` (the engine's listener hears of its events once committed)."""
        await self.recorder.write(batch)
        stored = self._stored
        for record in batch.resources:
            self.records[record.name] = stored[record.name] = record
        for record in batch.states.values():
            self.records[record.name] = stored[record.name] = record
        for stack_id, name in batch.removed:
            if stack_id == self.stack.id:
                stored.pop(name, None)

    async def set_stack(
        self, action: Action, status: Status, reason: str, *, release: bool = False
    ) -> None:
        """Record the stack's new state and its event; ``release``: and give the claim up
        with them (`WriteBatch.release`), as the operation's last write."""
        now = leases.now_utc()
        event = self.engine.stack_event(self.stack, action, status, reason, now)
        change = StackStatus(self.stack.id, action, status, reason, now)
        await self.write(WriteBatch(stacks=[change], events=[event], release=release))
        self.stack = change.applied_to(self.stack)

    async def finish(
        self, action: Action, status: Status, reason: str, *, last: bool = False
    ) -> StackRecord:
        """The stack's final state for ``action``; ``last``: nothing is written under the
        claim after it, which is released in the same transaction (`leases.held` then
        has nothing to release)."""
        await self.set_stack(action, status, reason, release=last)
        if status is Status.FAILED and self.first_failure is not None:
            self.engine.failed_children[self.stack.id] = self.first_failure
        return self.stack

    @staticmethod
    def cancelled(result: Traversal) -> bool:
        """Whether `stack cancel` stopped the walk."""
        return any(isinstance(e, OperationCancelled) for e in result.failed.values())

    def failure_summary(self, action: Action, result: Traversal) -> str:
        if self.timed_out:
            return "Create timed out" if action is Action.CREATE else "Timed out"
        if self.cancelled(result):
            # Heat's convergence engine, its traversal stopped (recorded: updates
            # cancel/create_cancelled_*); the legacy one says "Resource CREATE failed:
            # Operation cancelled"
            return f"Stack {action.value} cancelled"
        name, error = next(iter(result.failed.items()), (None, None))
        if name is None or error is None:
            return f"Resource {action.value} failed: operation stopped"
        record = self.records.get(name)
        reason = record.status_reason if record else failure_reason(name, error)
        return f"Resource {action.value} failed: {reason}"

    # -- traversal -----------------------------------------------------------------
    async def walk(self, action: Action, done: Iterable[str]) -> Traversal:
        if action is Action.CREATE:
            assert self.definition is not None
            if not self.records:
                await self.load_records()
            graph = self.definition.graph
            assert graph is not None
            requires: Mapping[str, Any] = graph.requires
            job = self.create_one
        else:
            requires = reverse({n: r.requires for n, r in self.records.items()})
            job = self.delete_one
        # Eager: a create or delete job records IN_PROGRESS (and waits for it) before
        # anything that needs a task of its own, unless its resource is effect-free, and
        # then it usually never waits at all (see `scheduler.traverse`).
        # Not settled: what follows a create's or delete's walk is the stack's own state,
        # written through the recorder, which commits the queued records with it.
        return await self.run(action, requires, job, done, eager=True, settle=False)

    async def run(
        self,
        action: Action,
        requires: Mapping[str, Any],
        job: Callable[[str], Coroutine[Any, Any, None]],
        done: Iterable[str] = (),
        *,
        eager: bool = False,
        settle: bool = True,
    ) -> Traversal:
        """Traverse ``requires`` with ``job`` within the operation's time left.
        ``settle``: return once every record is committed (what comes next reads them
        back); else queued records may still wait for the next write."""
        try:
            async with self.time_limit():
                result = await traverse(
                    requires,
                    job,
                    concurrency=self.engine.settings.concurrency,
                    done=done,
                    eager=eager,
                )
            if settle:
                await self.recorder.flush()
            return result
        except TimeoutError:
            self.timed_out = True
            await self.recorder.flush()
            await self.load_records()
            failed: dict[str, BaseException] = {
                n: TimeoutError()
                for n, r in self.records.items()
                if r.status is Status.FAILED and r.action is action
            }
            return Traversal(failed=failed or {"": TimeoutError()})

    async def transition(
        self,
        record: ResourceRecord,
        action: Action,
        status: Status,
        reason: str,
        *,
        before: Sequence[EventRecord] = (),
        **changes: Any,
    ) -> ResourceRecord:
        """Record a resource's new state and its event (after ``before``, in one batch)."""
        updated, event = self.step(record, action, status, reason, **changes)
        await self.write(WriteBatch(resources=[updated], events=[*before, event]))
        return updated

    def step(
        self, record: ResourceRecord, action: Action, status: Status, reason: str, **changes: Any
    ) -> tuple[ResourceRecord, EventRecord]:
        """A resource's next state and its event, not yet written."""
        now = leases.now_utc()
        if changes.keys() <= _CARRIED:  # as `replace` would, without its introspection
            updated = ResourceRecord(
                record.stack_id,
                record.name,
                changes.get("type", record.type),
                action,
                status,
                reason,
                changes.get("physical_id", record.physical_id),
                changes.get("properties", record.properties),
                changes.get("attributes", record.attributes),
                changes.get("data", record.data),
                changes.get("requires", record.requires),
                changes.get("created_at", record.created_at),
                now,
            )
        else:
            updated = replace(
                record,
                action=action,
                status=status,
                status_reason=reason,
                updated_at=now,
                **changes,
            )
        event = EventRecord(
            self.stack.id,
            record.name,
            record.type,
            action,
            status,
            reason,
            updated.physical_id,
            now,
        )
        return updated, event

    def resource_context(
        self, record: ResourceRecord, properties: Mapping[str, Any], plugin: ResourcePlugin
    ) -> ResourceContext:
        context = ResourceContext(
            stack_name=self.stack.name,
            stack_id=self.stack.id,
            project_id=self.stack.project,
            resource_name=record.name,
            physical_name=record.data.get("physical_name")
            or (
                physical_name(self.stack.name, record.name)
                if plugin.traits.reads_physical_name
                else ""
            ),
            properties=properties,
            data=(
                {k: v for k, v in record.data.items() if k != REPLACED}
                if REPLACED in record.data
                else dict(record.data)
            ),
            physical_id=record.physical_id,
            time_left=self.time_left,
            lookup=self.lookup,
            sleep=self.engine.sleep,
        )
        context.checkpoint = lambda: self.checkpoint(record.name, context)
        return context

    async def checkpoint(self, name: str, context: ResourceContext) -> None:
        """A handler's progress made durable before it goes on (`ResourceContext.checkpoint`):
        the record keeps its state and gains the handler's physical id and data."""
        record = self.records[name]
        data = dict(context.data)
        if REPLACED in record.data:
            data[REPLACED] = record.data[REPLACED]
        updated = replace(
            record, physical_id=context.physical_id, data=data, updated_at=leases.now_utc()
        )
        await self.write(WriteBatch(resources=[updated]))

    async def lookup(self, reference: str) -> ResourceView | None:
        """A resource's current recorded state (fresh from the store: signals arrive there)."""
        await self.recorder.flush()
        records = await asyncio.to_thread(self.engine.store.resources, self.stack.id)
        for record in records:
            if record.name == reference or record.physical_id == reference:
                return view_of(record)
        return None

    async def act(
        self,
        name: str,
        action: Action,
        effect: Callable[[ResourceRecord], Awaitable[dict[str, Any]]],
        *,
        before: Sequence[EventRecord] = (),
        start: Mapping[str, Any] | None = None,
        internal: bool = False,
    ) -> None:
        """State first, effect second: record IN_PROGRESS (committed), run the effect, then
        record COMPLETE with what the effect returned, or FAILED with why. ``start``
        changes the record as it goes IN_PROGRESS (a replacement starts with no physical
        id), ``before`` are events written with it (the replacement announced).

        ``internal``: the effect changes nothing outside the records (see
        `stoker.resources.base.Traits.external_effect`), so IN_PROGRESS and the result are committed
        together, after it, and not waited for (`Recorder.defer`): a crash before that
        commit leaves the resource as it was, as it would a crash just before
        IN_PROGRESS."""
        if internal:
            await self._act_internal(name, action, effect, before, start)
            return
        previous = self.records[name]
        record, event = self.step(
            previous, action, Status.IN_PROGRESS, "state changed", **dict(start or {})
        )
        events = [*before, event]
        if not start and self._stored.get(name) is previous:  # its stored row, but the state
            started = WriteBatch(states={(record.stack_id, name): record}, events=events)
        else:
            started = WriteBatch(resources=[record], events=events)
        try:
            # Inside the try: an operation stopped (timed out, cancelled) while this
            # waits still has the IN_PROGRESS committed (the recorder commits it for
            # every job), and records the failure on top of it.
            await self.write(started)
            testpoints.reached("before_handler", name)
            # No handler starts under a claim that may have passed to another process.
            await self.claim().confirm(self.engine.store)
            changes = await effect(record)
            testpoints.reached("after_handler")
        except BaseException as error:
            reason = self.failed(name, action, error)
            # On top of the latest record: the effect may have recorded something on the
            # way (a nested stack's id), which the cleanup after a failure needs.
            latest = self.records.get(name, record)
            if latest is previous:  # stopped before its IN_PROGRESS was committed
                latest = record
            await asyncio.shield(self.transition(latest, action, Status.FAILED, reason))
            raise
        done, event = self.step(record, action, Status.COMPLETE, "state changed", **changes)
        written = self._stored.get(name)
        if written is not None and self.records.get(name) is written and _same_row(written, done):
            # what the effect recorded on the way (a nested stack's id and properties,
            # written before its child exists) is what it returned: the state alone
            batch = WriteBatch(states={(done.stack_id, name): done}, events=[event])
        else:
            batch = WriteBatch(resources=[done], events=[event])
        await self.write(batch)
        testpoints.reached("after_complete")

    async def _act_internal(
        self,
        name: str,
        action: Action,
        effect: Callable[[ResourceRecord], Awaitable[dict[str, Any]]],
        before: Sequence[EventRecord],
        start: Mapping[str, Any] | None,
    ) -> None:
        """`act` for an effect on the records alone: one commit holds IN_PROGRESS and the
        result (the same events, in the same order, as two commits would, and each row
        in its last state), and
        nothing waits for it: the records are queued (`Recorder.defer`) and the resources
        that depend on this one start at once. A failure is written and waited for."""
        loaded = self.records[name]
        record, started = self.step(
            loaded, action, Status.IN_PROGRESS, "state changed", **(start or {})
        )
        await self.claim().confirm(self.engine.store)
        try:
            changes = await effect(record)
        except BaseException as error:
            reason = self.failed(name, action, error)
            failed, event = self.step(record, action, Status.FAILED, reason)
            batch = WriteBatch(resources=[failed], events=[*before, started, event])
            await asyncio.shield(self.write(batch))
            raise
        done, event = self.step(record, action, Status.COMPLETE, "state changed", **changes)
        # The IN_PROGRESS row would be overwritten in the same transaction: only its
        # event is written.
        events = (*before, started, event) if before else (started, event)
        if not changes and not start and self._stored.get(name) is loaded:
            # the stored row differs only in state (each resource of a delete)
            self.recorder.defer_state(done, events)
        else:
            self.recorder.defer_resource(done, events)
        self.records[name] = done
        testpoints.reached("after_queued")

    def failed(self, name: str, action: Action, error: BaseException) -> str:
        """Why a resource's action failed (as its record says), noting the operation's
        first failure."""
        if isinstance(error, asyncio.CancelledError):
            record = self.records.get(name)
            plugin = self.engine.plugin_of(record) if record is not None else None
            return aborted(
                action.value,
                type(plugin).__name__ if plugin is not None else "Resource",
                name,
                record.physical_id if record is not None else None,
                (self.stack.name, self.stack.id),
            )
        reason = failure_reason(name, error)
        if isinstance(error, nested.NestedFailure) and error.path_form:
            # Heat's: the innermost failure under the path down to it, on create and on
            # an update whose inner resource failed its update (`NestedUpdateFailure`)
            reason = nested.heat_reason(self.path, name, error) or reason
        if self.first_failure is None:
            self.first_failure = (
                (error.inner_path, error.inner_reason)
                if isinstance(error, nested.NestedFailure)
                else (f"{self.path}.{name}", reason)
            )
        return reason

    def internal(self, plugin: ResourcePlugin | None) -> bool:
        """Whether a resource of this plugin is acted on in one commit (see `act`)."""
        return (
            plugin is not None
            and not plugin.traits.external_effect
            and not isinstance(plugin, NestedStackPlugin)
        )

    async def create_one(self, name: str) -> None:
        if self.cancellable:
            cancel.observe(self.fence)  # `stack cancel` from another process: start nothing
        await hooks.pause(self, name, Action.CREATE)  # a pre-create breakpoint
        plugin = self._resolution.plugins.get(name) if self._resolution is not None else None
        await self.act(name, Action.CREATE, self.create_effect, internal=self.internal(plugin))

    async def create_effect(self, record: ResourceRecord) -> dict[str, Any]:
        """The effect of creating a resource: its plugin's create, or its nested stack."""
        name = record.name
        plugin = self.resolution().plugins.get(name) or self.engine.plugin_of(record)
        if plugin is None:
            raise StokerError(f"The Resource Type ({record.type}) could not be found.")
        properties = resolve_properties(self, name, plugin)
        reference = external.declared(self, name)
        if reference is not None:  # someone else's resource, adopted: nothing is made
            return external.created(reference, dict(properties))
        if isinstance(plugin, NestedStackPlugin):
            return await nested.create_child(self.engine, self, record, plugin, properties)
        context = self.resource_context(record, properties, plugin)
        await plugin.create(context)
        return {
            "physical_id": context.physical_id,
            "data": context.data,
            "properties": dict(properties),
        }

    async def delete_one(self, name: str) -> None:
        await hooks.pause(self, name, Action.DELETE)  # a pre-delete breakpoint

        async def delete(record: ResourceRecord) -> dict[str, Any]:
            await deletion.remove(self, record)
            kept = record.data.get(REPLACED)
            if isinstance(kept, dict):
                # A replacement whose old resource was never cleaned up (the update
                # failed after it): that one goes too, or it would be left behind.
                await deletion.remove(self, restored(record, kept), deletion.kept_policy(kept))
            return {}

        record = self.records[name]
        internal = (
            not record.data.get("child_id")
            and REPLACED not in record.data
            and self.internal(self.engine.plugin_of(record))
        )
        await self.act(name, Action.DELETE, delete, internal=internal)


def _same_row(stored: ResourceRecord, record: ResourceRecord) -> bool:
    """Whether ``record``'s row differs from ``stored``'s only in action, status, status
    reason and time (`WriteBatch.states`)."""
    return (
        record.physical_id == stored.physical_id
        and record.type == stored.type
        and record.created_at == stored.created_at
        and record.requires == stored.requires
        and record.data == stored.data
        and record.attributes == stored.attributes
        and record.properties == stored.properties
    )
