"""The stack engine: the facade over every stack action, with an explicit resource-type
registry.

Every action is a method here: create, update, delete, recover (which continues an
interrupted operation from the recorded state, so a resource whose create completed is
never created again), cancel, Heat's check, suspend and resume, snapshots and restore,
export, abandon and adopt, mark-unhealthy and signals. Each runs as an `Operation` (its
records, its fenced writes, its jobs), claimed through `claim`, found through `find` and
refused for a nested stack through `refuse_nested`. The work lives in modules named for
their concept: `operation`, `lifecycle` (create, delete and their recover),
`new_stacks` (a new stack's first records), `walks` (the stack-wide resource actions),
`update`, `nested` (child stacks of nested-stack resources), `queries` (definitions,
outputs and runtime contexts read back from the store) and `signals`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from stoker import codes
from stoker.definition import FilesMap, StackDefinition, TemplateReads, in_package
from stoker.diagnostics import Diagnostic
from stoker.engine import (
    abandon,
    adopt,
    cancel,
    check,
    leases,
    lifecycle,
    planning,
    restore,
    signals,
    snapshots,
    suspend,
    update,
    walks,
)
from stoker.engine import unhealthy as marking
from stoker.engine.child_templates import ChildTemplates
from stoker.engine.heap import frozen_heap
from stoker.engine.nested import NestedFailure as NestedFailure
from stoker.engine.new_stacks import CreateRequest as CreateRequest
from stoker.engine.operation import Operation
from stoker.engine.queries import StackQueries
from stoker.engine.runtime import RuntimeContext
from stoker.engine.settings import EngineSettings
from stoker.engine.state import (
    Action,
    EventRecord,
    ResourceRecord,
    SnapshotRecord,
    StackRecord,
    Status,
    Store,
)
from stoker.engine.stored_environments import StoredEnvironments
from stoker.engine.time_limit import REAL_TIME, Clock
from stoker.engine.update_request import UpdateRequest as UpdateRequest
from stoker.errors import OperationRefused as OperationRefused
from stoker.errors import PropertyError as PropertyError
from stoker.errors import StackNotFound as StackNotFound
from stoker.limits import active_limits
from stoker.resolution import (
    ProviderCache,
    ProviderTemplates,
    Resolution,
    SubtreeMemo,
    TreeCheck,
    resolve_types,
)
from stoker.resources import ResourcePlugin, ResourceTypeRegistry
from stoker.template.loader import Document, LoadLimits, read_file

if TYPE_CHECKING:
    from stoker.engine.adopt import Adoption
    from stoker.engine.plan import Plan

STACK_TYPE = "OS::Heat::Stack"
#: stack-wide walks `recover` continues through `stoker.engine.walks`
_WALKS = (Action.CHECK, Action.SUSPEND, Action.RESUME, Action.SNAPSHOT, Action.ADOPT)
#: what may be done to a nested stack's resource in its parent instead of to the stack
_RESOURCE_VERBS = frozenset(("delete", "update", "recover"))


#: how long a claim waits for an operation that has written its last state to release
#: its own (`StackEngine.claim`), polling: a delete sent once the stack shows
#: UPDATE_COMPLETE is not refused because the update's release has not committed yet
_FINISHING_POLL_S = 0.05
_FINISHING_POLLS = 40


class StackEngine:
    """Runs stack operations against a store, with an explicit resource-type registry."""

    def __init__(
        self,
        store: Store,
        registry: ResourceTypeRegistry,
        settings: EngineSettings | None = None,
        *,
        listener: Callable[[EventRecord], None] | None = None,
        stack_listener: Callable[[StackRecord, int], None] | None = None,
        engine_id: str | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Clock = REAL_TIME,
    ) -> None:
        self.store = store
        self.registry = registry
        self.settings = settings or EngineSettings()
        self.listener = listener
        #: told of each stack this engine writes (the record and its number of resources)
        #: before its first event: what a listener would otherwise read back per stack
        self.stack_listener = stack_listener
        #: how the operations wait (a resource's pause, a rolling update's pause between
        #: batches): a test hands the engine one that records the waits instead of timing them
        self.sleep = sleep
        #: what an operation's time limit is measured on (`stoker.engine.time_limit`): a
        #: test hands the engine one of its own
        self.clock = clock
        self.engine_id = engine_id or leases.new_engine_id()
        #: failed child stacks: where inside they failed, for the facade's message
        self.failed_children: dict[str, tuple[str, str]] = {}
        self.queries = StackQueries(store, registry, self.settings)
        #: provider templates read from the disk, each read and parsed once per engine
        self._disk_templates = ProviderTemplates(self._read_disk)
        #: child stacks' templates, each provider's parsed once for all its stacks
        self.child_templates = ChildTemplates()
        #: child stacks' stored environments, what a tree's children share converted once
        self.stored_environments = StoredEnvironments()
        #: the documents the command's load read from the disk already (`share_reads`)
        self._read_already: Mapping[str, Document | None] = {}
        #: the last definition `check` resolved, its base directory and its types
        self._checked: tuple[StackDefinition, str | None, Resolution] | None = None
        #: provider subtrees' checks by their inputs: the per-create checks of nested
        #: stacks meet the same subtrees the checks above them made
        self._subtrees = SubtreeMemo()

    # ------------------------------------------------------------------ checks before
    def resolve_types(
        self,
        definition: StackDefinition,
        base_dir: str | None,
        names: Collection[str] | None = None,
    ) -> Resolution:
        checked = self._checked
        if checked and names is None and checked[0] is definition and checked[1] == base_dir:
            return checked[2]  # what `check` found for the create it preceded
        return resolve_types(
            definition,
            self.registry,
            base_dir,
            self.provider_cache(definition, base_dir),
            names=names,
        )

    def share_reads(self, reads: TemplateReads, limits: LoadLimits | None = None) -> None:
        """Take the provider templates from the documents a load of the same command read
        from disk under ``limits`` (`LoadOptions.reads`: python-heatclient's files are
        the stack's provider templates), instead of reading and parsing each again. Only
        documents read under the limits this engine reads with (`read_file`'s defaults)
        are the same document. ``limits`` defaults to the command's active ones, which a
        load reads under, so a caller such as the CLI need not load the template reader's
        module only to name them."""
        if (limits if limits is not None else LoadLimits.of(active_limits())) == LoadLimits():
            self._read_already = reads.documents

    def _read_disk(self, location: str) -> Document:
        document = self._read_already.get(location)
        return document if document is not None else read_file(location)

    def files_only(self, base_dir: str | None) -> bool:
        """Whether a stack whose template is in ``base_dir`` reads its providers and
        get_file content from its files map only: every stack of the API
        (`EngineSettings.files_from_request`), and a package's (`in_package`)."""
        return self.settings.files_from_request or in_package(base_dir)

    def provider_cache(
        self, definition: StackDefinition, base_dir: str | None = None
    ) -> ProviderCache:
        """Where this engine reads provider templates: the disk, or the stack's files
        map (see `files_only`)."""
        if self.files_only(base_dir):
            return ProviderCache(self.settings.files_root, FilesMap(definition.files))
        return ProviderCache(self.settings.files_root, templates=self._disk_templates)

    def check(self, definition: StackDefinition, base_dir: str | None = None) -> list[Diagnostic]:
        """What would stop a create before anything is written: unknown types, property
        values that are already known and wrong, provider templates (recursively), limits."""
        found: list[Diagnostic] = []
        template = definition.template
        limit = self.settings.max_resources_per_stack
        if limit >= 0 and len(definition.enabled) > limit:
            found.append(
                Diagnostic(
                    codes.RESOURCE_DEFINITION,
                    f"The stack has {len(definition.enabled)} resources, more than the limit "
                    f"of {limit} (max_resources_per_stack); raise it with "
                    "--max-resources-per-stack",
                    (template.names.resources,),
                )
            )
        tree = TreeCheck(
            self.registry,
            self.settings.max_nested_depth,
            cache=self.provider_cache(definition, base_dir),
            memo=self._subtrees,
        )
        top = definition.template.file
        chain = (os.path.abspath(top),) if os.path.isfile(top) else ()
        found.extend(tree.check(definition, base_dir, chain))
        if tree.top is not None:
            self._checked = (definition, base_dir, tree.top)
        return found

    def plugin_of(self, record: ResourceRecord) -> ResourcePlugin | None:
        """The plugin that answers for a recorded resource (provider facades included)."""
        return self.queries.plugin_of(record)

    # ------------------------------------------------------------------ create
    async def create(self, request: CreateRequest) -> StackRecord:
        """Create a new stack (`engine.lifecycle`)."""
        return await lifecycle.create(self, request)

    async def create_stack(
        self, stack: StackRecord, definition: StackDefinition, parent: Operation | None
    ) -> StackRecord:
        """Write the stack with its resources (INIT), claimed, and create it (a nested
        stack's, from its parent's operation)."""
        return await lifecycle.create_stack(self, stack, definition, parent)

    # ------------------------------------------------------------------ delete
    async def delete(self, name_or_id: str) -> StackRecord:
        """Delete a stack, a nested one too, as Heat lets a user do: its parent keeps
        the resource, whose own delete later finds the child gone (`deletion.remove`)."""
        stack = await self.find(name_or_id)
        with frozen_heap():
            return await self.delete_stack(stack, parent=None)

    async def delete_stack(self, stack: StackRecord, parent: Operation | None) -> StackRecord:
        """Claim the stack and delete it (its nested stacks with it)."""
        return await lifecycle.delete_stack(self, stack, parent)

    # ------------------------------------------------------------------ recover
    async def recover(self, name_or_id: str) -> StackRecord:
        """`stack recover`: continue whatever operation was interrupted on the stack from
        its recorded state (a create, delete, update, restore or rollback here; a check,
        suspend, resume or snapshot in `stoker.engine.walks`)."""
        stack = await self.find(name_or_id)
        await self.refuse_nested(stack, "recover")
        with frozen_heap():
            if stack.status is Status.IN_PROGRESS and stack.action in _WALKS:
                return await walks.recover(self, stack)
            return await self.recover_stack(stack, parent=None)

    async def recover_stack(self, stack: StackRecord, parent: Operation | None) -> StackRecord:
        """Continue the interrupted create, delete, update (or restore) or rollback of
        ``stack`` (also a nested one, from its parent's recovered operation)."""
        return await lifecycle.recover_stack(self, stack, parent)

    # ------------------------------------------------------------------ update
    async def update(self, name_or_id: str, request: UpdateRequest) -> StackRecord:
        """Update a stack to a new definition (see `engine.update`)."""
        with frozen_heap():  # the new definition is loaded: reading the stack adds more
            stack = await self.find(name_or_id)
            await self.refuse_nested(stack, "update")
            return await update.update(self, stack, request)

    async def update_stack(
        self, stack: StackRecord, request: UpdateRequest, parent: Operation | None
    ) -> StackRecord:
        """Update a stack that an operation above owns (a nested stack's child)."""
        return await update.update(self, stack, request, parent=parent)

    def plan_create(self, definition: StackDefinition, base_dir: str | None = None) -> Plan:
        """The plan of a create: every enabled resource added (``stack create --dry-run``)."""
        now = leases.now_utc()
        stack = StackRecord(
            id="",
            name=(definition.context.stack_name if definition.context else None) or "",
            project=self.settings.project,
            action=Action.INIT,
            status=Status.COMPLETE,
            status_reason="",
            template={},
            environment={},
            files={},
            parameters={},
            created_at=now,
            template_file=os.path.join(base_dir, "template") if base_dir else None,
        )
        return planning.plan_update(Operation(self, stack, definition))

    async def preview_update(
        self,
        name_or_id: str,
        request: UpdateRequest,
        show_nested: bool = False,
        records: Mapping[str, ResourceRecord] | None = None,
        heat_view: bool = True,
    ) -> Plan:
        """What `update` would do, per resource, without doing anything (no claim); with
        ``show_nested`` the plans of the nested stacks it updates too (`Plan.nested`);
        ``records`` stand in for the stored ones of those names (a repair's preview; a
        path ``child/name`` for a resource of a nested stack).
        ``heat_view``: listed as Heat's preview lists it (`planning.plan_update`); a
        repair's preview, which Heat has no counterpart of, says what the update will do."""
        with frozen_heap():
            stack = await self.find(name_or_id)
            update.refuse_immutable(self, stack, request.definition)
            operation = update.planned(self, stack, request)
            await operation.load_records()
            # a repair's: this stack's own, and those of nested stacks (paths) for theirs
            operation.stand_ins = records or {}
            operation.records.update({n: r for n, r in (records or {}).items() if "/" not in n})
            same = update.untouched(stack, operation)
            previous = None
            if any(r.action is Action.INIT for r in operation.records.values()):
                # resources a failed create never reached: Heat's preview compares their
                # definitions (`planning._never_created`)
                previous = Operation(self, stack, self.definition_of(stack))
                previous.records = operation.records
            plan = planning.plan_update(
                operation, untouched=same, heat_view=heat_view, previous=previous
            )
            if show_nested:
                await planning.preview_nested(operation, plan, heat_view)
            return plan

    # ------------------------------------------------------------------ stack-wide actions
    async def check_stack(self, name_or_id: str) -> StackRecord:
        """Heat's ``stack check`` of every resource (`engine.check`); not `check`, which
        looks at a definition before a create."""
        return await check.check(self, name_or_id)

    async def suspend(self, name_or_id: str) -> StackRecord:
        """Heat's suspend, dependents first (`engine.suspend`)."""
        return await suspend.pause(self, name_or_id, Action.SUSPEND)

    async def resume(self, name_or_id: str) -> StackRecord:
        """Heat's resume of a suspended stack (`engine.suspend`); `recover` is what
        continues an interrupted operation."""
        return await suspend.pause(self, name_or_id, Action.RESUME)

    async def cancel(self, name_or_id: str, rollback: bool = True) -> StackRecord:
        """Ask the process running the stack's create or update to stop (`engine.cancel`)."""
        return await cancel.cancel(self, name_or_id, rollback)

    async def mark_unhealthy(
        self, name_or_id: str, resource: str, unhealthy: bool = True, reason: str | None = None
    ) -> ResourceRecord:
        """Mark a resource CHECK_FAILED, or reset that (`engine.unhealthy`)."""
        return await marking.mark_unhealthy(self, name_or_id, resource, unhealthy, reason)

    async def export(self, name_or_id: str) -> dict[str, Any]:
        """Heat's abandon document of the stack, which stays (`engine.abandon`)."""
        return await abandon.export(self, name_or_id)

    async def abandon(self, name_or_id: str) -> dict[str, Any]:
        """The stack's document; the stack is forgotten, its resources left (`engine.abandon`)."""
        return await abandon.abandon(self, name_or_id)

    async def adopt(self, adoption: Adoption, base_dir: str | None, source: str) -> StackRecord:
        """A new stack from an abandon document, creating nothing (`engine.adopt`)."""
        return await adopt.adopt(self, adoption, base_dir, source)

    async def snapshot(self, name_or_id: str, name: str | None = None) -> SnapshotRecord:
        """Take a snapshot of the stack (`engine.snapshots`)."""
        return await snapshots.create(self, name_or_id, name)

    async def snapshots(self, name_or_id: str) -> list[SnapshotRecord]:
        """The stack's snapshots, oldest first (each with its stored document)."""
        return await snapshots.listing(self, name_or_id)

    async def find_snapshot(self, name_or_id: str, snapshot: str) -> SnapshotRecord:
        """A snapshot of the stack by id (or by name, when one snapshot has it)."""
        return await snapshots.find(self, name_or_id, snapshot)

    async def delete_snapshot(self, name_or_id: str, snapshot: str) -> SnapshotRecord:
        """Forget a snapshot (the stack is not touched); returns what it was."""
        return await snapshots.delete(self, name_or_id, snapshot)

    async def restore(self, name_or_id: str, snapshot: str) -> StackRecord:
        """Bring the stack back to one of its snapshots (`engine.restore`)."""
        return await restore.restore(self, name_or_id, snapshot)

    # ------------------------------------------------------------------ helpers
    async def find(self, name_or_id: str) -> StackRecord:
        stack = await asyncio.to_thread(self.store.get_stack, name_or_id, self.settings.project)
        if stack is None or stack.deleted_at is not None:
            raise StackNotFound(f"The Stack ({name_or_id}) could not be found.")
        return stack

    async def refuse_nested(self, stack: StackRecord, verb: str) -> None:
        """A nested stack belongs to the resource that made it, and its actions come from
        its parent: recovering it alone would race its parent's own recover, suspending
        it would leave its parent's state untrue. Only an orphan (parent gone) is free.
        A delete is not refused: Heat lets a user delete a nested stack (`delete`)."""
        if stack.parent_id is None:
            return
        parent = await asyncio.to_thread(self.store.get_stack, stack.parent_id, stack.project)
        if parent is None or parent.deleted_at is not None:
            return
        alternative = " (or update that resource)" if verb in _RESOURCE_VERBS else ""
        raise OperationRefused(
            f"Stack {stack.name} is a nested stack, owned by resource "
            f"{stack.parent_resource} of stack {parent.name}: {verb} {parent.name}"
            f"{alternative} instead"
        )

    async def claim(self, stack: StackRecord) -> leases.Fence:
        """Take the stack's lease for one operation, or refuse as Heat does while another
        action runs (every action but a new stack's, which is born claimed). A claim held
        on a stack in no action's progress is waited for a moment (`_finishing`)."""
        seconds = self.settings.lease_seconds
        for attempt in range(1, _FINISHING_POLLS + 1):
            try:
                return await asyncio.to_thread(
                    leases.acquire, self.store, stack.id, self.engine_id, seconds
                )
            except leases.LeaseHeld as held:
                if attempt == _FINISHING_POLLS or not await asyncio.to_thread(
                    self._finishing, stack
                ):
                    raise OperationRefused(
                        f"Stack {stack.name} already has an action ({stack.action.value}) in "
                        f"progress (engine {held.lease.engine_id}, lease until "
                        f"{held.lease.expires_at.isoformat(timespec='seconds')})."
                    ) from None
            await asyncio.sleep(_FINISHING_POLL_S)
        raise AssertionError("not reached: the last attempt returns or raises")

    def _finishing(self, stack: StackRecord) -> bool:
        """Whether the stack's claim may belong to an operation that has written its last
        state and is about to release it (`leases.held` releases it after that write, in
        a transaction of its own): the stack is in no action's progress."""
        current = self.store.get_stack(stack.id, stack.project)
        return current is not None and current.status is not Status.IN_PROGRESS

    def stack_event(
        self, stack: StackRecord, action: Action, status: Status, reason: str, now: Any
    ) -> EventRecord:
        return EventRecord(stack.id, stack.name, STACK_TYPE, action, status, reason, stack.id, now)

    def notify(self, events: Iterable[EventRecord]) -> None:
        if self.listener is not None:
            for event in events:
                self.listener(event)

    # ------------------------------------------------------------------ reads
    def definition_of(self, stack: StackRecord) -> StackDefinition:
        """The stack's definition, rebuilt from what it stored (cached; see `queries`)."""
        return self.queries.definition_of(stack)

    def outputs(self, stack: StackRecord) -> list[dict[str, Any]]:
        """Each output resolved on its own; a failing one carries ``output_error``."""
        return self.queries.outputs(stack)

    def runtime(
        self, definition: StackDefinition, records: Mapping[str, ResourceRecord]
    ) -> RuntimeContext:
        return self.queries.runtime(definition, records)

    def facade(
        self, definition: StackDefinition, records: Mapping[str, ResourceRecord], name: str
    ) -> dict[str, Any] | None:
        """What resource_facade returns inside the child of resource ``name``."""
        return self.queries.facade(definition, records, name)

    # ------------------------------------------------------------------ signals
    async def signal_with_token(self, token: str, details: Any) -> tuple[str, str]:
        """Signal the resource holding ``token``; returns (stack, resource)."""
        return await signals.signal_with_token(self, token, details)

    async def signal(self, name_or_id: str, resource_name: str, details: Any) -> None:
        await signals.signal(self, name_or_id, resource_name, details)
