"""The Keystone trust of each stack (``stoker serve`` acting as each stack's owner):
written when the stack is created, read by every operation that outlives its request
(a takeover by another server too), deleted with the stack. The trust's id is sealed at
rest like a hidden value (`stoker.store.secrets`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select

from stoker.store.models import StackTrust as TrustRow
from stoker.store.store import SqlStore


@dataclass(frozen=True, slots=True)
class TrustRecord:
    stack_id: str
    project: str
    trustor_user_id: str
    trust_id: str
    created_at: datetime


class TrustStore:
    """The ``stack_trusts`` table, over an open `SqlStore` (its connections, its sealer)."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def add(self, trust: TrustRecord) -> None:
        values = {
            "id": trust.stack_id,
            "project": trust.project,
            "trustor_user_id": trust.trustor_user_id,
            "trust_id": self.store._sealer.seal_text(trust.trust_id),
            "created_at": trust.created_at,
        }
        with self.store._sqlalchemy_writing() as connection:
            connection.execute(insert(TrustRow).values(**values))

    def get(self, stack_id: str) -> TrustRecord | None:
        with self.store._sqlalchemy_reading() as connection:
            row = connection.execute(select(TrustRow).where(TrustRow.id == stack_id)).first()
        if row is None:
            return None
        return TrustRecord(
            stack_id=row.id,
            project=row.project,
            trustor_user_id=row.trustor_user_id,
            trust_id=self.store._sealer.unseal_text(row.trust_id),
            created_at=row.created_at,
        )

    def remove(self, stack_id: str) -> bool:
        with self.store._sqlalchemy_writing() as connection:
            gone = connection.execute(delete(TrustRow).where(TrustRow.id == stack_id))
        return bool(gone.rowcount)
