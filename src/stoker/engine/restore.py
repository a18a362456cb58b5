"""``stack snapshot restore``: bring a stack back to one of its snapshots, as Heat does.

Heat's ``stack_restore`` is an update to the definition the snapshot stored (template,
environment with its parameters, files), run under the stack action RESTORE
(RESTORE_IN_PROGRESS, then RESTORE_COMPLETE; each changed resource says UPDATE, as in any
update) and never rolled back. A resource whose snippet is the same as now is left alone;
one that changed is updated or replaced like in an update. Heat hands a resource its
snapshot data only through a ``handle_restore`` of its type (servers, volumes, remote
stacks): an ``OS::Heat::RandomString`` has none, so a replaced one gets a new value (the
reference Heat 24.1.2 showed it: same length as in the snapshot, another string).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from stoker.engine import snapshots, update
from stoker.engine.heap import frozen_heap
from stoker.engine.state import Action, StackRecord, Status, StoredDefinition
from stoker.errors import OperationRefused

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine


async def restore(engine: StackEngine, name_or_id: str, snapshot: str) -> StackRecord:
    """Restore stack ``name_or_id`` to ``snapshot`` (its id, or its name when unique).

    An unknown snapshot raises NotFound (Heat's 404), one that did not complete (no
    document stored) or a stack with an operation in progress OperationRefused; all
    before the stack is touched."""
    found = await snapshots.find(engine, name_or_id, snapshot)
    data = found.data
    if found.status != Status.COMPLETE.value or not isinstance(data, dict):
        raise OperationRefused(
            f"Snapshot {found.id} is {found.status}, not COMPLETE: there is nothing to restore"
        )
    stack = await engine.find(name_or_id)
    await snapshots.refuse_busy(engine, stack, "restore")
    environment: dict[str, Any] = dict(data.get("environment") or {})
    parameters = environment.get("parameters")
    restored = StoredDefinition(
        dict(data.get("template") or {}),
        environment,
        dict(data.get("files") or {}),
        dict(parameters) if isinstance(parameters, dict) else {},
        stack.template_file,
    ).on(stack)
    # the snapshot's definition is rebuilt as a stored stack's is (it passed its create)
    definition = await asyncio.to_thread(engine.queries.rebuild, restored)
    request = update.UpdateRequest(
        definition=definition,
        template=restored.template,
        environment=restored.environment,
        parameters=restored.parameters,
        template_file=stack.template_file,
        timeout_mins=stack.timeout_mins,
        disable_rollback=stack.disable_rollback,
        tags=stack.tags,
    )
    with frozen_heap():
        return await update.update(engine, stack, request, Action.RESTORE)
