"""Stack-wide resource actions (check, suspend, resume, snapshot, abandon, adopt) as one
recorded walk of the graph.

Heat runs these the same way (``Stack.stack_task``): the stack goes ``<ACTION>_IN_PROGRESS``,
every resource is visited in dependency order (suspend in reverse), a resource backed by a
nested stack runs the same action on its child, and the stack ends ``<ACTION>_COMPLETE`` or
``<ACTION>_FAILED`` with ``Resource <ACTION> failed: <why>``. A walk is an `Operation` like
a create or a delete: it claims the stack through the engine (`StackEngine.claim`), writes
through the operation's fenced recorder, and records each transition before its effect,
so a walk whose process died is finished by ``stack recover``: resources already done are
skipped. What differs from a create is only the job each resource gets (an `Effect`) and
Heat's rules for failing (`visit`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stoker.engine import leases
from stoker.engine.failures import failure_reason, timed_out
from stoker.engine.operation import Operation
from stoker.engine.scheduler import Traversal, reverse, traverse
from stoker.engine.state import (
    Action,
    ResourceRecord,
    StackRecord,
    Status,
    WriteBatch,
    live_child,
)
from stoker.errors import OperationRefused, ResourceFailure
from stoker.resources import NestedStackPlugin, ResourceContext

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


async def refuse_in_progress(
    engine: StackEngine, stack: StackRecord, verb: str, allow: tuple[Action, ...] = ()
) -> None:
    """An operation runs (refused, as Heat refuses while the stack is locked) or was
    interrupted (its state is what `stack recover` continues from: not to be overwritten;
    except for the interrupted actions in ``allow``)."""
    if stack.status is not Status.IN_PROGRESS:
        return
    holder = await asyncio.to_thread(leases.live_lease, engine.store, stack.id)
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


def is_nested(engine: StackEngine, record: ResourceRecord) -> bool:
    """Backed by a child stack: it has one, or its type makes one (a group, a provider)."""
    if record.data.get("child_id"):
        return True
    plugin = engine.registry.get(record.type)
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
Effect = Callable[[Operation, ResourceRecord], Awaitable[Done]]


def handler_context(operation: Operation, record: ResourceRecord) -> ResourceContext:
    """What a type's suspend or resume handler sees: the resource as recorded (a walk
    resolves no property: the resource keeps those it was created with)."""
    stack = operation.stack
    return ResourceContext(
        stack_name=stack.name,
        stack_id=stack.id,
        project_id=stack.project,
        resource_name=record.name,
        physical_name=str(record.data.get("physical_name") or record.physical_id or ""),
        properties=record.properties,
        data=dict(record.data),
        physical_id=record.physical_id,
        sleep=operation.engine.sleep,
    )


async def visit(operation: Operation, action: Action, name: str, effect: Effect) -> None:
    """State first: IN_PROGRESS committed, then the effect, then COMPLETE or FAILED.
    The effect sees the resource as it was before (its action and status then)."""
    before = operation.records[name]
    refusal = precheck(action, before)
    if refusal is not None:
        raise Refused(f"Error: resources.{name}: {refusal}")
    record, event = operation.step(before, action, Status.IN_PROGRESS, "state changed")
    try:
        # Inside the outer try: a walk stopped (its time up) while this waits still has
        # the IN_PROGRESS committed (the recorder commits it for every job), and records
        # the failure on top of it, as `Operation.act` does.
        await operation.write(WriteBatch(resources=[record], events=[event]))
        await operation.claim().confirm(operation.engine.store)
        try:
            done = await effect(operation, before)
        except Exception as error:
            reason = failure_reason(name, error)
            shown = getattr(error, "resource_reason", None) or reason
            # on top of the latest record: the effect may have recorded a child's id
            latest = operation.records.get(name, record)
            await asyncio.shield(operation.transition(latest, action, Status.FAILED, shown))
            raise ResourceFailure(reason) from error
    except asyncio.CancelledError:
        latest = operation.records.get(name, record)
        if latest is before:  # stopped before its IN_PROGRESS was in the records
            latest = record
        stopped = timed_out(action)
        await asyncio.shield(operation.transition(latest, action, Status.FAILED, stopped))
        raise
    await operation.transition(record, action, Status.COMPLETE, done.reason, **done.changes)


async def _visit_all(
    operation: Operation,
    action: Action,
    effect: Effect,
    *,
    backwards: bool,
    aggregate: bool,
    skip: Iterable[str],
    untouched: Callable[[ResourceRecord], bool] | None,
) -> Traversal:
    """Visit every resource (dependencies first, or dependents first ``backwards``).
    Without ``aggregate`` the first failure stops new visits (suspend, resume);
    with it every resource is visited and every failure kept (check)."""
    requires = {n: r.requires for n, r in operation.records.items()}
    graph = reverse(requires) if backwards else requires
    failures: dict[str, BaseException] = {}

    async def job(name: str) -> None:
        if untouched is not None and untouched(operation.records[name]):
            return  # left as it is, no transition (Heat's check of an INIT resource)
        if not aggregate:
            await visit(operation, action, name, effect)
            return
        try:
            await visit(operation, action, name, effect)
        except Exception as error:
            failures[name] = error

    operation.restart_clock()
    settings = operation.engine.settings
    try:
        async with operation.time_limit():
            result = await traverse(graph, job, concurrency=settings.concurrency, done=skip)
    except TimeoutError:
        return Traversal(failed={"": TimeoutError(f"{action.value.title()} timed out")})
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


def failure_summary(action: Action, result: Traversal) -> str:
    """Heat's stack reason: ``Resource <ACTION> failed: <the first resource's reason>``
    (a walk's; a create's or a delete's is `Operation.failure_summary`)."""
    error = next(iter(result.failed.values()))
    if isinstance(error, TimeoutError) and "" in result.failed:
        return f"{action.value.title()} timed out"
    return f"Resource {action.value} failed: {error}"


async def child_action(
    operation: Operation,
    record: ResourceRecord,
    verb: str,
    run_child: Callable[[Operation, StackRecord], Awaitable[StackRecord]],
) -> Done:
    """Run the walk's action on the child stack of a nested resource (Heat's
    ``StackResource.handle_<action>``), failing the resource if the child fails."""
    store, project = operation.engine.store, operation.stack.project
    child = await asyncio.to_thread(live_child, store, project, record)
    if child is None:
        raise ResourceFailure(f"Cannot {verb} {record.name}, stack not created")
    result = await run_child(operation, child)
    if result.status is not Status.COMPLETE:
        raise ResourceFailure(
            f"{result.action.value}_{result.status.value}: {result.status_reason}"
        )
    return Done()


async def perform(
    engine: StackEngine,
    stack: StackRecord,
    action: Action,
    effect: Effect,
    *,
    backwards: bool = False,
    aggregate: bool = False,
    parent: Operation | None = None,
    fence: leases.Fence | None = None,
    finish: Callable[[Status, str], str] | None = None,
    completed: Callable[[Operation], Awaitable[None]] | None = None,
    untouched: Callable[[ResourceRecord], bool] | None = None,
) -> StackRecord:
    """Claim ``stack`` (unless ``fence`` is the claim it was written with) and run
    ``action`` over its resources, start to end.

    A stack already ``<ACTION>_IN_PROGRESS`` (its process died, or it was just written
    so) is continued: resources whose action already ended are not visited again.
    ``finish`` may amend the final reason (check's "not fully supported"); ``completed``
    runs under the claim after a COMPLETE end (abandon forgets the stack there)."""
    if fence is None:
        fence = await engine.claim(stack)
    operation = Operation(engine, stack, None, parent)
    operation.attach(fence)
    async with leases.held(engine.store, fence):
        recovering = stack.action is action and stack.status is Status.IN_PROGRESS
        await operation.load_records()
        skip: list[str] = []
        if recovering:
            ended = (Status.COMPLETE, Status.FAILED) if aggregate else (Status.COMPLETE,)
            skip = [
                n for n, r in operation.records.items() if r.action is action and r.status in ended
            ]
        else:
            await operation.set_stack(action, Status.IN_PROGRESS, f"Stack {action.value} started")
        result = await _visit_all(
            operation,
            action,
            effect,
            backwards=backwards,
            aggregate=aggregate,
            skip=skip,
            untouched=untouched,
        )
        if result.failed:
            status, reason = Status.FAILED, failure_summary(action, result)
        else:
            status, reason = Status.COMPLETE, f"Stack {action.value} completed successfully"
        if finish is not None:
            reason = finish(status, reason)
        await operation.set_stack(action, status, reason)
        if completed is not None and status is Status.COMPLETE:
            await completed(operation)  # still under the claim (abandon's forgetting)
        return operation.stack


async def recover(engine: StackEngine, stack: StackRecord) -> StackRecord:
    """Continue an interrupted check, suspend, resume or snapshot of ``stack``. An adopt
    cannot be continued (its document is not stored): it is refused, saying what to do."""
    # here, not at the top: check, snapshots and suspend are walks built on this module
    from stoker.engine import check, snapshots, suspend

    if stack.action is Action.ADOPT:
        raise OperationRefused(
            f"The adopt of stack {stack.name} was interrupted and cannot be continued: "
            f"`stack abandon {stack.name}`, then adopt it again from its document"
        )
    if stack.action is Action.CHECK:
        return await check.run(engine, stack)
    if stack.action is Action.SNAPSHOT:
        return await snapshots.recover(engine, stack)
    return await suspend.run(engine, stack, stack.action)
