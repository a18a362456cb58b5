"""Stack update, and the rollback of a failed one: a `Plan` executed, state first.

An update stores the new definition (keeping the previous one) in the same transaction
that marks the stack UPDATE_IN_PROGRESS, so a crash at any point leaves a stack that
``stack resume`` can continue. Then it walks the *new* dependency graph forward, deciding
for each resource when it is reached (with properties resolved against the state at that
moment, see `plan.decide`):

- added resources are created as in a create;
- an in-place update calls the plugin's ``update`` (UPDATE_IN_PROGRESS/COMPLETE);
- a replacement creates the new resource first (CREATE_IN_PROGRESS/COMPLETE, after Heat's
  "requires replacement" UPDATE events when a property caused it), keeping the old one in
  the record (`replacement.REPLACED`) until the new one is COMPLETE;
- a refusal (restricted_actions, an immutable property) fails the update on that resource.

In the same walk, the old resources of replacements and the resources the new template
no longer has are deleted as soon as nothing of the old graph needs them, as Heat's
convergence engine does (`stoker.engine.cleanup`). A failure makes the stack UPDATE_FAILED
("Resource <ACTION> failed: <the resource's reason>"); with rollback enabled the stack then
goes back to the previous definition: every replacement still holding its old resource
swaps it back (the new one is deleted, the old one is current again, values and all), and
the rest is an update to the previous definition (ending ROLLBACK_COMPLETE or
ROLLBACK_FAILED): what was already deleted is made again.

Nested stacks: a nested-stack resource is updated by updating its child stack (with this
same machinery, the child's operation under the parent's), as Heat's StackResource does;
a ResourceGroup may do it in batches (`stoker.engine.rolling`). See `nested.update_child`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stoker.definition import StackDefinition
from stoker.engine import (
    cancel,
    cleanup,
    external,
    hooks,
    leases,
    nested,
    planning,
    replacement,
    testpoints,
)
from stoker.engine.failures import failure_reason
from stoker.engine.operation import Operation
from stoker.engine.plan import Change, Decision
from stoker.engine.properties import resolve_properties
from stoker.engine.replacement import REPLACED
from stoker.engine.runtime import view_of
from stoker.engine.scheduler import Traversal
from stoker.engine.state import (
    Action,
    DefinitionChange,
    EventRecord,
    ResourceRecord,
    StackRecord,
    StackStatus,
    Status,
    StoredDefinition,
    WriteBatch,
)
from stoker.engine.update_request import UpdateRequest as UpdateRequest
from stoker.errors import OperationCancelled, OperationRefused
from stoker.parameters import check_immutable
from stoker.resources import NestedStackPlugin, ResourceFailure, ResourcePlugin

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


class Refusal(ResourceFailure):
    """An update the rules forbid for this resource (restricted_actions, immutable
    property): the resource is left as it is, the event and the stack say why."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        message = decision.refusal or ""
        super().__init__(message.split(": ", 2)[-1])


def refuse_immutable(engine: StackEngine, stack: StackRecord, new: StackDefinition) -> None:
    """Heat refuses an update that changes an ``immutable`` parameter before any work
    (``ImmutableParameterModified``), its preview too. The stack's definition is rebuilt
    only when the new template declares an immutable parameter (the new template says
    which are)."""
    if not any(p.immutable for p in new.template.parameters.values()):
        return
    old = engine.definition_of(stack)
    found = check_immutable(
        {k: v for k, v in old.parameters.items() if k in old.template.parameters},
        new.template.parameters,
        new.environment.parameters,
        new.parameters,
    )
    if found:
        raise OperationRefused(found[0].message)


def current_definition(
    engine: StackEngine, stack: StackRecord, new: StackRecord
) -> Callable[[], StackDefinition] | None:
    """What rebuilds ``stack``'s current definition, when an update to ``new`` changes its
    parameters or environment (a resource's metadata may then read other values)."""
    if stack.parameters == new.parameters and stack.environment == new.environment:
        return None
    return lambda: engine.definition_of(stack)


def planned(
    engine: StackEngine, stack: StackRecord, request: UpdateRequest, parent: Operation | None = None
) -> Operation:
    """The operation that takes ``stack`` to ``request`` (not claimed): its stack as the
    request makes it, the resources it revisits (a repair's), and those whose definition
    changed other than by their properties' values (`planning.definition_changes`). An
    update runs it; a preview only plans it (`StackEngine.preview_update`)."""
    new_stack = replace(
        stack,
        template=request.template,
        environment=request.environment,
        files=dict(request.definition.files),
        parameters=request.parameters,
        template_file=request.template_file,
        tags=request.tags,
        timeout_mins=request.timeout_mins,
        disable_rollback=request.disable_rollback,
    )
    operation = Operation(engine, new_stack, request.definition, parent)
    operation.revisit = request.revisit
    operation.definition_changed = planning.definition_changes(
        stack.template,
        new_stack.template,
        request.definition,
        current_definition(engine, stack, new_stack),
    )
    return operation


def untouched(stack: StackRecord, operation: Operation) -> list[str]:
    """The resources an update of ``stack`` by ``operation`` (`planned`, its records
    loaded) leaves alone (`planning.untouched`), but those it revisits."""
    assert operation.definition is not None
    found = planning.untouched(stack, operation.stack, operation.definition, operation.records)
    return [name for name in found if name not in operation.revisit]


# ---------------------------------------------------------------------------- running
async def update(
    engine: StackEngine,
    stack: StackRecord,
    request: UpdateRequest,
    action: Action = Action.UPDATE,
    parent: Operation | None = None,
) -> StackRecord:
    """Update ``stack`` to ``request`` (claimed, state first); refusals raise before any
    work (OperationRefused). ``action`` is the stack's action: Heat runs a snapshot's
    restore as this same update under RESTORE (the resources still say UPDATE)."""
    if stack.action is Action.DELETE or stack.status is Status.IN_PROGRESS:
        raise OperationRefused(
            f"Updating a stack when it is ({stack.action.value}, {stack.status.value}) "
            "is not supported."
        )
    refuse_immutable(engine, stack, request.definition)
    fence = await engine.claim(stack)
    context = request.definition.context
    if context is not None:  # the pseudo-parameters (OS::stack_id ...) are the stack's
        context.stack_name, context.stack_id = stack.name, stack.id
        context.project_id = stack.project
    operation = planned(engine, stack, request, parent)
    operation.attach(fence)
    new_stack = operation.stack
    async with leases.held(engine.store, fence):
        await operation.load_records()
        unchanged = untouched(stack, operation)
        if unchanged:
            same = set(unchanged)
            operation.scope = frozenset(n for n in request.definition.enabled if n not in same)
        await _begin(
            operation, action, f"Stack {action.value} started", StoredDefinition.of(new_stack)
        )
        return await _run(operation, unchanged)


async def resume_update(
    engine: StackEngine, stack: StackRecord, fence: leases.Fence, parent: Operation | None = None
) -> StackRecord:
    """Continue an interrupted update (or the rollback of one) from the recorded state."""
    operation = Operation(engine, stack, engine.definition_of(stack), parent)
    operation.attach(fence)
    async with leases.held(engine.store, fence):
        await operation.load_records()
        previous = await asyncio.to_thread(engine.store.previous_definition, stack.id)
        if previous is not None and operation.definition is not None:
            operation.definition_changed = planning.definition_changes(
                previous.template, stack.template, operation.definition
            )
        if stack.action is Action.ROLLBACK:
            return await _run_rollback(operation)
        return await _run(operation, ())


async def _begin(
    operation: Operation, action: Action, reason: str, definition: StoredDefinition
) -> None:
    """Store the new definition (the current one kept as previous), the rows of resources
    it adds (INIT), and the stack's new state, in one transaction."""
    stack = operation.stack
    engine = operation.engine
    now = leases.now_utc()
    assert operation.definition is not None and operation.definition.graph is not None
    graph = operation.definition.graph
    added = [
        ResourceRecord(
            stack_id=stack.id,
            name=name,
            type=planning.new_type(operation, name),
            action=Action.INIT,
            status=Status.COMPLETE,
            requires=tuple(graph.requires[name]),
            created_at=now,
        )
        for name in operation.definition.resource_order()
        if name not in operation.records
    ]
    event = engine.stack_event(stack, action, Status.IN_PROGRESS, reason, now)
    batch = WriteBatch(
        stacks=[StackStatus(stack.id, action, Status.IN_PROGRESS, reason, now)],
        resources=added,
        events=[event],
    )
    change = DefinitionChange(
        stack.id,
        definition,
        tags=stack.tags,
        timeout_mins=stack.timeout_mins,
        disable_rollback=stack.disable_rollback,
    )
    fence = operation.claim()
    fence.check()
    await asyncio.to_thread(engine.store.change_definition, change, batch, fence.token)
    if stack.parent_id is None:
        # What the stack now stores rebuilds to this definition (the update's, whose
        # context knows the stack, or the previous one a rollback rebuilt): showing the
        # stack at the end need not parse and define its whole template again. A nested
        # stack's is rebuilt when asked, with its parent's facade as it is then.
        engine.queries.remember(stack.id, operation.definition)
    else:
        engine.queries.forget(stack.id)
    engine.notify([event])
    for record in added:
        operation.records[record.name] = record
    operation.stack = batch.stacks[0].applied_to(stack)
    operation.began = now


async def _run(operation: Operation, unchanged: Any) -> StackRecord:
    """Walk the new graph, then clean up; on failure roll back if the stack says so."""
    # UPDATE, or RESTORE (which Heat never rolls back: its rollback is an update's)
    action = operation.stack.action
    result = await _refuse_early(operation, unchanged)
    if result.ok:
        result = await _walk(operation, unchanged, restricted=True)
    if result.ok and operation.cancellable:
        # a cancel asked after the last resource started is still the user's answer: Heat
        # ends the update on it whenever it comes while the update runs
        try:
            cancel.observe(operation.fence)
        except OperationCancelled as error:
            result = Traversal(failed={"": error})
    if result.ok:
        testpoints.reached("before_stack_complete")
        return await operation.finish(
            action, Status.COMPLETE, f"Stack {action.value} completed successfully"
        )
    cancelled = next((e for e in result.failed.values() if isinstance(e, OperationCancelled)), None)
    # Heat 24.1.2 (tests/fidelity/updates/cases/cancel.yaml): `stack cancel` rolls an
    # update back whatever the stack says, straight from UPDATE_IN_PROGRESS; `--no-rollback`
    # ends it UPDATE_FAILED "Stack UPDATE cancelled", even when the stack would roll back a
    # failure (the convergence engine; the legacy one says "Operation cancelled" and rolls
    # back such a stack).
    if cancelled is not None and action is Action.UPDATE and cancelled.with_rollback:
        return await _rollback(operation)
    reason = (
        f"Stack {action.value} cancelled" if cancelled is not None else _failure(operation, result)
    )
    failed = await operation.finish(action, Status.FAILED, reason)
    if cancelled is None:
        await _later_failures(operation, result)
    if cancelled is not None or operation.stack.disable_rollback or action is not Action.UPDATE:
        return failed  # cancel_without_rollback never rolls back (the convergence engine)
    return await _rollback(operation)


async def _later_failures(operation: Operation, result: Traversal) -> None:
    """Heat's convergence engine marks the stack failed again for each resource that fails
    after the first (one that was already running): a stack event each, with that
    resource's reason; the stack keeps the first one's."""
    if operation.timed_out:
        return  # the stack's "Timed out" says it for all
    later = list(result.failed)[1:]
    events = []
    for name in later:
        record = operation.records.get(name)
        if record is None or record.status is not Status.FAILED or not record.status_reason:
            continue
        why = f"Resource {record.action.value} failed: {record.status_reason}"
        stack = operation.stack
        events.append(
            operation.engine.stack_event(stack, stack.action, Status.FAILED, why, leases.now_utc())
        )
    if events:
        await operation.write(WriteBatch(events=events))


async def _refuse_early(operation: Operation, unchanged: Any) -> Traversal:
    """A resource the walk would start first (it requires nothing) whose update or
    replacement is forbidden, and known to need one, fails the update before any other
    is touched, as Heat refuses it when it starts it (its UPDATE_FAILED event; recorded:
    update_nested group_restricted_member). One that requires others is refused when the
    walk reaches it, after what it requires was updated (Heat's order; recorded:
    restricted/update_rollback_enabled_after_other). Only resources that have such rules
    are looked at; what cannot be known before the walk is refused by the walk."""
    definition = operation.definition
    assert definition is not None and definition.graph is not None
    registry = definition.environment.resource_registry
    same = set(unchanged or ())
    for name in definition.resource_order():
        if name in same or definition.graph.requires[name] or not registry.restricted_actions(name):
            continue
        plugin = operation.resolution().plugins.get(name)
        decision = planning.decision_of(operation, name, plugin, True)
        record = operation.records.get(name)
        sure = bool(decision.changed) or decision.change is Change.REPLACE
        if decision.refusal is not None and sure and record is not None:
            try:
                await _refuse(operation, record, decision)
            except Refusal as error:
                return Traversal(failed={name: error})
    return Traversal()


def _failure(operation: Operation, result: Traversal) -> str:
    """Heat's reason for a failed update (its convergence engine, the default): the
    failing resource's own reason after the action it failed in, "Resource CREATE
    failed: ..." for a resource the update adds or a replacement it creates, "Resource
    UPDATE failed: ..." for one updated in place or refused (the legacy engine gives the
    resource's reason alone)."""
    if operation.timed_out:
        return "Timed out"
    name, error = next(iter(result.failed.items()), (None, None))
    if name is None or error is None:
        return "Resource UPDATE failed: operation stopped"
    if isinstance(error, Refusal) and error.decision.refusal:
        return f"Resource UPDATE failed: {error.decision.refusal}"
    record = operation.records.get(name)
    if record is not None and record.status is Status.FAILED and record.status_reason:
        return f"Resource {record.action.value} failed: {record.status_reason}"
    return f"Resource UPDATE failed: {failure_reason(name, error)}"


async def _walk(operation: Operation, done: Any, *, restricted: bool) -> Traversal:
    """Each resource of the new definition updated, and what the update leaves behind
    deleted as soon as nothing needs it (`cleanup`), in one walk."""
    assert operation.definition is not None and operation.definition.graph is not None
    untouched = list(done or ())
    walk = cleanup.graph(operation, operation.definition.graph.requires, untouched)

    async def job(node: str) -> None:
        if cleanup.is_clean_up(node):
            if operation.cancellable:
                cancel.observe(operation.fence)  # after `stack cancel`, nothing more goes
            await cleanup.clean_up(operation, node)
        else:
            await _update_one(operation, node, restricted)

    result = await operation.run(Action.UPDATE, walk, job, untouched)
    result.failed = {cleanup.resource_of(n): e for n, e in result.failed.items()}
    return result


async def _update_one(operation: Operation, name: str, restricted: bool) -> None:
    assert operation.definition is not None and operation.definition.graph is not None
    if operation.cancellable:
        cancel.observe(operation.fence)  # `stack cancel` from another process: start nothing
    requires = tuple(operation.definition.graph.requires[name])
    record = operation.records.get(name)
    plugin = operation.resolution().plugins.get(name)
    decision = planning.decision_of(operation, name, plugin, restricted)
    if record is not None and REPLACED in record.data and record.status is Status.IN_PROGRESS:
        # A replacement interrupted (a crash): its create runs again, as a create would.
        decision = Decision(name, Change.REPLACE, decision.type, "replacement interrupted")
    if (
        record is not None
        and record.action is Action.CREATE
        and record.status is Status.IN_PROGRESS
        and REPLACED not in record.data
        and decision.refusal is None
    ):
        # An added resource whose create was interrupted (a crash): created again as a
        # recovered create does it (a nested child it recorded is found, not made twice).
        await operation.create_one(name)
        return
    if _done_already(operation, record, decision, plugin):
        decision = Decision(name, Change.UNCHANGED, decision.type, "updated already")
    if record is not None and decision.change is not Change.ADD and record.exists:
        refusal = external.update_refusal(operation, name, record)  # external_id changed
        if refusal is not None and decision.refusal is None:
            decision = replace(decision, refusal=refusal)
    if decision.refusal is not None:
        assert record is not None
        await _refuse(operation, record, decision)
    if plugin is None and record is not None:
        plugin = operation.engine.plugin_of(replace(record, type=decision.type))
    if decision.change is not Change.ADD:  # an added one stops at pre-create
        await hooks.pause(operation, name, Action.UPDATE)  # a pre-update breakpoint
        record = operation.records.get(name, record)
    if decision.change is Change.ADD:
        await _add(operation, name, requires)
    elif decision.change is Change.UNCHANGED:
        assert record is not None
        await _keep(operation, record, decision, requires, plugin)
    elif decision.change is Change.UPDATE and not decision.late_replace:
        assert record is not None and plugin is not None
        await _update_in_place(operation, record, plugin, requires)
    else:
        assert record is not None
        await replacement.replace_resource(operation, record, decision, requires)


def _done_already(
    operation: Operation,
    record: ResourceRecord | None,
    decision: Decision,
    plugin: ResourcePlugin | None,
) -> bool:
    """A resource that is always updated (a nested stack) and already was, by this same
    update before it was interrupted: a recovered update does not update it twice."""
    return (
        record is not None
        and plugin is not None
        and plugin.traits.always_updates
        and decision.change is Change.UPDATE
        and not decision.changed
        and record.action is Action.UPDATE
        and record.status is Status.COMPLETE
        and record.updated_at is not None
        and operation.stack.updated_at is not None
        and record.updated_at >= operation.stack.updated_at
    )


async def _refuse(operation: Operation, record: ResourceRecord, decision: Decision) -> None:
    """The resource stays as it is; an UPDATE_FAILED event says why (as Heat records).
    The refusal is the operation's first failure: a facade whose child stack refused
    names it under the path down to it (``ResourceActionRestricted:
    resources.a.resources.inner: ...``, Heat's convergence engine)."""
    error = Refusal(decision)
    event = EventRecord.of(record, Action.UPDATE, Status.FAILED, str(error), leases.now_utc())
    await operation.write(WriteBatch(events=[event]))
    if operation.first_failure is None:
        # the innermost failure a facade's reason names, as a failed action's (`failed`)
        operation.first_failure = (f"{operation.path}.{record.name}", decision.refusal or "")
    raise error


async def _add(operation: Operation, name: str, requires: tuple[str, ...]) -> None:
    record = operation.records[name]
    if record.requires != requires or record.action is not Action.INIT:
        operation.records[name] = replace(
            record,
            action=Action.INIT,
            status=Status.COMPLETE,
            requires=requires,
            physical_id=None,
            properties={},
            data={},
            type=planning.new_type(operation, name),
        )
    await operation.create_one(name)


async def _keep(
    operation: Operation,
    record: ResourceRecord,
    decision: Decision,
    requires: tuple[str, ...],
    plugin: ResourcePlugin | None,
) -> None:
    """Nothing to do, but the record follows the new template silently (its requires, and
    the properties of a type that never updates), as Heat's does."""
    changes: dict[str, Any] = {}
    if record.requires != requires:
        changes["requires"] = requires
    if decision.changed and plugin is not None:
        changes["properties"] = resolve_properties(operation, record.name, plugin)
    if changes:
        await operation.write(WriteBatch(resources=[replace(record, **changes)]))


async def _update_in_place(
    operation: Operation,
    record: ResourceRecord,
    plugin: ResourcePlugin,
    requires: tuple[str, ...],
) -> None:
    previous = view_of(record)

    async def effect(current: ResourceRecord) -> dict[str, Any]:
        properties = resolve_properties(operation, current.name, plugin)
        if isinstance(plugin, NestedStackPlugin):
            engine = operation.engine
            changes = await nested.update_child(engine, operation, record, plugin, properties)
            # a provider template's resource renamed to another template type keeps its
            # stack (`planning._both_templates`) and takes the new name
            return {**changes, "type": plugin.type_name}
        context = operation.resource_context(current, properties, plugin)
        await plugin.update(context, previous)
        data = dict(context.data)
        if REPLACED in current.data:
            data[REPLACED] = current.data[REPLACED]
        return {
            "physical_id": context.physical_id,
            "data": data,
            "properties": dict(properties),
            "requires": requires,
        }

    await operation.act(record.name, Action.UPDATE, effect)


# ---------------------------------------------------------------------------- rollback
async def _rollback(operation: Operation) -> StackRecord:
    """Back to the previous definition (kept by the store since the update began)."""
    engine = operation.engine
    previous = await asyncio.to_thread(engine.store.previous_definition, operation.stack.id)
    if previous is None:
        return await operation.finish(
            Action.ROLLBACK, Status.FAILED, "Rollback failed: no previous definition is kept"
        )
    stack = previous.on(operation.stack)
    definition = engine.queries.rebuild(stack)
    back = Operation(engine, stack, definition, operation.parent)
    back.attach(operation.claim())
    back.records = dict(operation.records)
    back.first_failure = None
    back.cancellable = False  # the cancel that led here asked for this rollback
    # Only what the failed update reached carries its definition: a resource it never
    # touched still has the one the rollback goes back to (Heat compares each resource's
    # own stored definition), so its depends_on or metadata did not change for it; nor did
    # a replaced one's: its old resource, which the rollback puts back, kept its own.
    began = operation.began
    reached = {
        n
        for n, r in operation.records.items()
        if (began is None or (r.updated_at is not None and r.updated_at >= began))
        and not isinstance(r.data.get(replacement.REPLACED), dict)
    }
    back.definition_changed = frozenset(
        planning.definition_changes(operation.stack.template, stack.template, definition) & reached
    )
    await _begin(back, Action.ROLLBACK, "Stack ROLLBACK started", previous)
    return await _run_rollback(back)


async def _run_rollback(operation: Operation) -> StackRecord:
    operation.restart_clock()
    operation.cancellable = False
    result = await operation.run(
        Action.UPDATE,
        {n: () for n in operation.records},
        lambda n: replacement.swap_back(operation, n),
    )
    if result.ok:
        testpoints.reached("rollback_swapped")
        result = await _walk(operation, (), restricted=False)
    if result.ok:
        return await operation.finish(
            Action.ROLLBACK, Status.COMPLETE, "Stack ROLLBACK completed successfully"
        )
    return await operation.finish(Action.ROLLBACK, Status.FAILED, _failure(operation, result))
