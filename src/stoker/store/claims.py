"""Claims on stacks (leases: compare-and-swap on the stack row), cancel requests, and
snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, insert, or_, update

from stoker.engine.state import Lease, SnapshotRecord
from stoker.store.base import StoreBase
from stoker.store.fence import lease_of
from stoker.store.models import Snapshot as SnapshotRow
from stoker.store.models import Stack

# Under READ COMMITTED a lease can change between a failed swap and the look at who holds
# it; the swap is retried this many times before the holder seen is reported.
_LEASE_ATTEMPTS = 5


class StoreClaims(StoreBase):
    """Leases, cancel requests and snapshots."""

    def acquire_lease(
        self, stack_id: str, engine_id: str, expires_at: datetime, now: datetime
    ) -> Lease | None:
        """Compare-and-swap: take the lease if it is free, expired (``expires_at <= now``)
        or already ours, with the next generation (the fencing token: a write of the
        previous holder then fails). None on success, else the live lease in the way."""
        claimable = or_(
            Stack.lease_engine_id.is_(None),
            Stack.lease_expires_at <= now,
            Stack.lease_engine_id == engine_id,
        )
        swap = (
            update(Stack)
            .where(Stack.id == stack_id, claimable)
            .values(
                lease_engine_id=engine_id,
                lease_expires_at=expires_at,
                lease_generation=Stack.lease_generation + 1,
                cancel_request=None,  # a request was for the operation that held it before
            )
        )
        with self._writing() as connection:
            holder: Lease | None = None
            for _ in range(_LEASE_ATTEMPTS):
                if connection.execute(swap).rowcount == 1:
                    return None
                holder = lease_of(connection, stack_id)
                if holder is not None and holder.expires_at > now:
                    return holder
            return holder

    def renew_lease(self, stack_id: str, engine_id: str, expires_at: datetime) -> bool:
        """Extend our lease; False if another engine holds it (or nobody does)."""
        with self._writing() as connection:
            result = connection.execute(
                update(Stack)
                .where(Stack.id == stack_id, Stack.lease_engine_id == engine_id)
                .values(lease_expires_at=expires_at)
            )
            return result.rowcount == 1

    def release_lease(self, stack_id: str, engine_id: str) -> None:
        """Give the lease up if we hold it; someone else's lease is left alone."""
        with self._writing() as connection:
            connection.execute(
                update(Stack)
                .where(Stack.id == stack_id, Stack.lease_engine_id == engine_id)
                .values(lease_engine_id=None, lease_expires_at=None)
            )

    def request_cancel(self, stack_id: str, request: str, actions: Sequence[str]) -> bool:
        """Ask the operation running on the stack to stop (``cancel``) or roll back
        (``rollback``); only while the stack is IN_PROGRESS in one of ``actions`` and a
        claim is held. False (nothing written) otherwise."""
        with self._writing() as connection:
            result = connection.execute(
                update(Stack)
                .where(
                    Stack.id == stack_id,
                    Stack.status == "IN_PROGRESS",
                    Stack.action.in_(list(actions)),
                    Stack.lease_engine_id.is_not(None),
                )
                .values(cancel_request=request)
            )
            return result.rowcount == 1

    def add_snapshot(self, snapshot: SnapshotRecord) -> None:
        """Insert or replace a snapshot (its data sealed when its stack's values are)."""
        with self._writing() as connection:
            data = snapshot.data
            if data is not None and self._is_sealed(connection, snapshot.stack_id):
                data = self._sealer.seal(data)
            values = {
                "stack_id": snapshot.stack_id,
                "name": snapshot.name,
                "status": snapshot.status,
                "status_reason": snapshot.status_reason,
                "data": data,
                "created_at": snapshot.created_at,
            }
            changed = connection.execute(
                update(SnapshotRow).where(SnapshotRow.id == snapshot.id).values(**values)
            )
            if changed.rowcount == 0:
                connection.execute(insert(SnapshotRow).values(id=snapshot.id, **values))

    def delete_snapshot(self, snapshot_id: str) -> None:
        with self._writing() as connection:
            connection.execute(delete(SnapshotRow).where(SnapshotRow.id == snapshot_id))
