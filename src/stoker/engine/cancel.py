"""``stack cancel``: stop an operation that another process is running, as Heat does.

Heat's two requests (``cancel_update`` and ``cancel_without_rollback``) become one durable
request on the stack row (``cancel`` or ``rollback``), because the operation may run in any
process on any machine that shares the database. The running operation reads the request
with the fencing check every one of its writes makes (no extra statement) and observes it
at its next step (`observe`, before it starts a resource): it starts nothing more, lets
the resources in flight finish, and ends FAILED (``Stack UPDATE cancelled``, ``Stack
CREATE cancelled``, as Heat's convergence engine says). What it does then is that
engine's: a cancelled create is not rolled back, even with rollback enabled; ``rollback``
on an update is for the update to roll back (it raises `OperationCancelled` with
``with_rollback``).

Allowed, as in Heat 24.1.2: cancel with rollback only while an update runs (a create in
progress is refused: ``Cancelling update when stack is CREATE_IN_PROGRESS is not
supported.``), cancel without rollback while a create or an update runs. A stack whose
operation has no live process (it died) has nothing to cancel: recover or delete it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from stoker.engine import leases
from stoker.engine.state import Action, StackRecord, Status
from stoker.errors import OperationCancelled, OperationRefused

if TYPE_CHECKING:
    from stoker.engine.stacks import StackEngine

CANCEL = "cancel"
ROLLBACK = "rollback"


def observe(fence: leases.Fence | None) -> None:
    """Raise `OperationCancelled` if a cancel request reached this operation."""
    if fence is not None and fence.cancel_request is not None:
        raise OperationCancelled(with_rollback=fence.cancel_request == ROLLBACK)


async def cancel(engine: StackEngine, name_or_id: str, rollback: bool = True) -> StackRecord:
    """Ask the process running the stack's create or update to stop; returns the stack."""
    stack = await engine.find(name_or_id)
    await engine.refuse_nested(stack, "cancel")
    allowed = (Action.UPDATE,) if rollback else (Action.UPDATE, Action.CREATE)
    if not (stack.status is Status.IN_PROGRESS and stack.action in allowed):
        raise OperationRefused(
            f"Cancelling update when stack is {stack.action.value}_{stack.status.value} "
            "is not supported."
        )
    if await asyncio.to_thread(leases.live_lease, engine.store, stack.id) is None:
        raise OperationRefused(
            f"No process is running the {stack.action.value} of stack {stack.name} (it "
            f"was interrupted): continue it with `stack recover {stack.name}` or delete it"
        )
    request = ROLLBACK if rollback else CANCEL
    actions = [a.value for a in allowed]
    if not await asyncio.to_thread(engine.store.request_cancel, stack.id, request, actions):
        raise OperationRefused(
            f"Stack {stack.name} is no longer {stack.action.value}_IN_PROGRESS: nothing to cancel"
        )
    return stack
