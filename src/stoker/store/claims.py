"""Claims on stacks (leases: compare-and-swap on the stack row), cancel requests, and
snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from stoker.engine import Lease, SnapshotRecord
from stoker.store.base import StoreBase
from stoker.store.fence import lease_of
from stoker.store.rows import ACTION_SLOTS

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
        # (the swap also clears a cancel request: it was for the operation before)
        swap = {
            "stack_id": stack_id,
            "now": now,
            "engine_id": engine_id,
            "new_engine_id": engine_id,
            "expires_at": expires_at,
        }
        with self._writing() as transaction:
            holder: Lease | None = None
            for _ in range(_LEASE_ATTEMPTS):
                if transaction.count("acquire_lease", swap) == 1:
                    return None
                holder = lease_of(transaction, stack_id)
                if holder is not None and holder.expires_at > now:
                    return holder
            return holder

    def renew_lease(self, stack_id: str, engine_id: str, expires_at: datetime) -> bool:
        """Extend our lease; False if another engine holds it (or nobody does)."""
        values = {"stack_id": stack_id, "engine_id": engine_id, "expires_at": expires_at}
        with self._writing() as transaction:
            return transaction.count("renew_lease", values) == 1

    def release_lease(self, stack_id: str, engine_id: str) -> None:
        """Give the lease up if we hold it; someone else's lease is left alone."""
        with self._writing() as transaction:
            transaction.count("release_lease", {"stack_id": stack_id, "engine_id": engine_id})

    def request_cancel(self, stack_id: str, request: str, actions: Sequence[str]) -> bool:
        """Ask the operation running on the stack to stop (``cancel``) or roll back
        (``rollback``); only while the stack is IN_PROGRESS in one of ``actions`` and a
        claim is held. False (nothing written) otherwise."""
        if len(actions) > ACTION_SLOTS:
            raise ValueError(f"at most {ACTION_SLOTS} actions, not {len(actions)}")
        values: dict[str, str | None] = {"stack_id": stack_id, "request": request}
        for slot in range(ACTION_SLOTS):  # the unused slots NULL: they match nothing
            values[f"action_{slot}"] = actions[slot] if slot < len(actions) else None
        with self._writing() as transaction:
            return transaction.count("request_cancel", values) == 1

    def add_snapshot(self, snapshot: SnapshotRecord) -> None:
        """Insert or replace a snapshot (its data sealed when its stack's values are)."""
        with self._writing() as transaction:
            data = snapshot.data
            if data is not None and self._is_sealed(transaction, snapshot.stack_id):
                data = self._sealer.seal(data)
            values = {
                "snapshot_id": snapshot.id,
                "new_stack_id": snapshot.stack_id,
                "new_name": snapshot.name,
                "new_status": snapshot.status,
                "new_status_reason": snapshot.status_reason,
                "new_data": data,
                "new_created_at": snapshot.created_at,
            }
            if transaction.count("update_snapshot", values) == 0:
                transaction.count("insert_snapshot", values)

    def delete_snapshot(self, snapshot_id: str) -> None:
        with self._writing() as transaction:
            transaction.count("delete_snapshot", {"snapshot_id": snapshot_id})
