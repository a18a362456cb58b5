"""The fence: every write of an operation is checked, in its own transaction, against the
claim (lease generation) the operation holds, so a process that lost the stack to
another writes nothing more (see `stoker.engine.leases`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stoker.engine import Lease, LeaseToken
from stoker.errors import LeaseLost
from stoker.store.errors import UnknownStack

if TYPE_CHECKING:
    from stoker.store.driver import DriverStatement
    from stoker.store.executor import Transaction

#: the fence statement's parameters (`stoker.store.statements.compile_fence`)
FENCE_FIELDS = ("stack_id", "engine_id", "generation")


class FenceCheck:
    """LeaseLost unless a `LeaseToken` is still the stack's claim, checked inside the
    write's transaction. A no-op UPDATE rather than a SELECT: on PostgreSQL it locks the
    stack row until commit, so a takeover (an UPDATE of the same row) waits for this write
    and is never interleaved with it; on SQLite the transaction already holds the write
    lock (``BEGIN IMMEDIATE``). Compiled once (`stoker.store.statements.compile_fence`)
    and run on the driver: every transaction of an operation
    pays for it, and SQLAlchemy's per-execution work cost more than the statement itself
    (half of a small write, measured on a chain of 1000)."""

    def __init__(self, sql: str, order: tuple[str, ...] | None, release: DriverStatement) -> None:
        self.sql = sql
        #: the parameters' order for a positional driver; None: by name
        self.order = order
        #: the catalog's ``release_lease`` (values: stack id, engine id), for an
        #: operation's last write (`WriteBatch.release`), which gives the claim up in its
        #: own transaction
        self.release_statement = release

    def run(self, transaction: Transaction, fence: LeaseToken) -> str | None:
        """In ``transaction``: LeaseLost unless ``fence`` holds, else the stack's pending
        cancel request (None when there is none)."""
        with transaction.cursor() as cursor:
            held, request = self.holds(cursor, fence)
        if held:
            return request
        lease_lost(transaction, fence)
        return None  # not reached: lease_lost raises

    def holds(self, cursor: Any, fence: LeaseToken) -> tuple[bool, str | None]:
        """On a driver cursor, in its transaction: whether ``fence`` is still the claim,
        and the stack's pending cancel request."""
        cursor.execute(self.sql, self._parameters(fence))
        row = cursor.fetchone()
        if row is None:
            return False, None
        return True, None if row[0] is None else str(row[0])

    def release(self, cursor: Any, fence: LeaseToken) -> None:
        """On a driver cursor, in the transaction that checked ``fence``: give the claim up."""
        self.release_statement.execute(cursor, [(fence.stack_id, fence.engine_id)])

    def _parameters(self, fence: LeaseToken) -> Any:
        values = {
            "stack_id": fence.stack_id,
            "engine_id": fence.engine_id,
            "generation": fence.generation,
        }
        return values if self.order is None else tuple(values[n] for n in self.order)


def lease_lost(transaction: Transaction, fence: LeaseToken) -> None:
    holder = lease_of(transaction, fence.stack_id)
    if holder is None:
        by = "another process took the stack over since, and has released it"
    else:
        by = f"engine {holder.engine_id} holds it (claim {holder.generation})"
    raise LeaseLost(
        f"this process lost its claim on stack {fence.stack_id} (claim {fence.generation}): "
        f"{by}; it stopped without writing anything more"
    )


def lease_of(transaction: Transaction, stack_id: str) -> Lease | None:
    row = transaction.first("lease", {"stack_id": stack_id})
    if row is None:
        raise UnknownStack(stack_id)
    engine_id, expires_at, generation = row
    if engine_id is None or expires_at is None:
        return None
    return Lease(engine_id=engine_id, expires_at=expires_at, generation=int(generation))
