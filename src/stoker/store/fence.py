"""The fence: every write of an operation is checked, in its own transaction, against the
claim (lease generation) the operation holds, so a process that lost the stack to
another writes nothing more (see `stoker.engine.leases`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from stoker.engine.state import Lease, LeaseToken
from stoker.errors import LeaseLost
from stoker.store.errors import UnknownStack
from stoker.store.models import Stack


class FenceCheck:
    """LeaseLost unless a `LeaseToken` is still the stack's claim, checked inside the
    write's transaction. A no-op UPDATE rather than a SELECT: on PostgreSQL it locks the
    stack row until commit, so a takeover (an UPDATE of the same row) waits for this write
    and is never interleaved with it; on SQLite the transaction already holds the write
    lock (``BEGIN IMMEDIATE``). Compiled once and run on the driver: every transaction of
    an operation pays for it, and SQLAlchemy's per-execution work cost more than the
    statement itself (half of a small write, measured on a chain of 1000)."""

    def __init__(self, dialect: Any) -> None:
        statement = (
            update(Stack)
            .where(
                Stack.id == bindparam("stack_id"),
                Stack.lease_engine_id == bindparam("engine_id"),
                Stack.lease_generation == bindparam("generation"),
            )
            .values(lease_generation=Stack.lease_generation)
            .returning(Stack.cancel_request)
        )
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self.order = tuple(compiled.positiontup or ()) if compiled.positional else None

    def run(self, connection: Connection, fence: LeaseToken) -> str | None:
        """On a SQLAlchemy connection, in its transaction: LeaseLost unless ``fence`` holds,
        else the stack's pending cancel request (None when there is none)."""
        row = connection.exec_driver_sql(self.sql, self._parameters(fence)).first()
        if row is not None:
            return None if row[0] is None else str(row[0])
        lease_lost(connection, fence)
        return None  # not reached: _lease_lost raises

    def holds(self, cursor: Any, fence: LeaseToken) -> tuple[bool, str | None]:
        """On a driver cursor, in its transaction: whether ``fence`` is still the claim,
        and the stack's pending cancel request."""
        cursor.execute(self.sql, self._parameters(fence))
        row = cursor.fetchone()
        if row is None:
            return False, None
        return True, None if row[0] is None else str(row[0])

    def _parameters(self, fence: LeaseToken) -> Any:
        values = {
            "stack_id": fence.stack_id,
            "engine_id": fence.engine_id,
            "generation": fence.generation,
        }
        return values if self.order is None else tuple(values[n] for n in self.order)


def lease_lost(connection: Connection, fence: LeaseToken) -> None:
    holder = lease_of(connection, fence.stack_id)
    if holder is None:
        by = "another process took the stack over since, and has released it"
    else:
        by = f"engine {holder.engine_id} holds it (claim {holder.generation})"
    raise LeaseLost(
        f"this process lost its claim on stack {fence.stack_id} (claim {fence.generation}): "
        f"{by}; it stopped without writing anything more"
    )


def lease_of(connection: Connection, stack_id: str) -> Lease | None:
    query = select(Stack.lease_engine_id, Stack.lease_expires_at, Stack.lease_generation).where(
        Stack.id == stack_id
    )
    row = connection.execute(query).first()
    if row is None:
        raise UnknownStack(stack_id)
    engine_id, expires_at, generation = row
    if engine_id is None or expires_at is None:
        return None
    return Lease(engine_id=engine_id, expires_at=expires_at, generation=int(generation))
