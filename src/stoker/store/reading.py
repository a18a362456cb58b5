"""Reading the store: stacks, resources, events, the previous definition, the lease and
snapshots, with sealed hidden values opened. Nothing here writes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import func, select

from stoker.engine.state import (
    EventRecord,
    Lease,
    ResourceRecord,
    SnapshotRecord,
    StackRecord,
    StoredDefinition,
)
from stoker.store import secrets
from stoker.store.base import StoreBase
from stoker.store.bulk import select_events, select_resources
from stoker.store.fence import lease_of
from stoker.store.models import RawTemplate, Resource, Stack
from stoker.store.models import Snapshot as SnapshotRow
from stoker.store.records import (
    SELECT_STACKS,
    SELECT_SUMMARIES,
    event_record,
    resource_record,
    stack_record,
    summary_record,
)


class StoreReads(StoreBase):
    """The store's reads (each in a transaction of its own)."""

    def get_stack(self, name_or_id: str, project: str) -> StackRecord | None:
        """By id (deleted stacks too), else by name among live ones; only in ``project``."""
        in_project = Stack.project == project
        with self._reading() as connection:
            by_id = SELECT_STACKS.where(Stack.id == name_or_id, in_project)
            row = connection.execute(by_id).first()
            if row is None:
                by_name = SELECT_STACKS.where(
                    Stack.name == name_or_id, in_project, Stack.deleted_at.is_(None)
                )
                row = connection.execute(by_name).first()
        return None if row is None else self._stack(row)

    def _stack(self, row: Any) -> StackRecord:
        """A stack row as a record, its sealed values opened."""
        record = stack_record(row)
        sealed = secrets.is_sealed(record.parameters)
        self._sealed_stacks[record.id] = sealed
        if not sealed:
            return record
        unseal = self._sealer.unseal
        return replace(
            record,
            template=unseal(record.template),
            files=unseal(record.files),
            parameters=unseal(record.parameters),
            environment=unseal(record.environment),
            status_reason=self._sealer.unseal_text(record.status_reason),
        )

    def list_stacks(
        self, project: str, *, include_nested: bool = False, include_deleted: bool = False
    ) -> list[StackRecord]:
        """Oldest first."""
        query = SELECT_STACKS.where(Stack.project == project)
        if not include_nested:
            query = query.where(Stack.parent_id.is_(None))
        if not include_deleted:
            query = query.where(Stack.deleted_at.is_(None))
        return self._stacks(query)

    def stack_summaries(
        self, project: str, *, include_nested: bool = False, include_deleted: bool = False
    ) -> list[StackRecord]:
        """`list_stacks` without each stack's definition (its template, environment,
        files and parameters are empty): what a listing shows, at a fraction of the cost."""
        query = SELECT_SUMMARIES.where(Stack.project == project)
        if not include_nested:
            query = query.where(Stack.parent_id.is_(None))
        if not include_deleted:
            query = query.where(Stack.deleted_at.is_(None))
        with self._reading() as connection:
            rows = connection.execute(query.order_by(Stack.created_at, Stack.id)).all()
        unseal = self._sealer.unseal_text
        records = [summary_record(row) for row in rows]
        return [
            r
            if r.status_reason == (text := unseal(r.status_reason))
            else replace(r, status_reason=text)
            for r in records
        ]

    def stacks_in_progress(self) -> list[StackRecord]:
        """Live top-level stacks of every project whose operation is IN_PROGRESS: what a
        starting server looks at to take over the operations of one that died."""
        query = SELECT_STACKS.where(
            Stack.parent_id.is_(None), Stack.deleted_at.is_(None), Stack.status == "IN_PROGRESS"
        )
        return self._stacks(query)

    def child_stacks(self, stack_id: str) -> list[StackRecord]:
        """The live stacks whose parent is ``stack_id``, oldest first."""
        query = SELECT_STACKS.where(Stack.parent_id == stack_id, Stack.deleted_at.is_(None))
        return self._stacks(query)

    def _stacks(self, query: Any) -> list[StackRecord]:
        with self._reading() as connection:
            rows = connection.execute(query.order_by(Stack.created_at, Stack.id)).all()
        return [self._stack(row) for row in rows]

    def count_stacks(self, project: str) -> int:
        """Live top-level stacks of the project: as in Heat, nested stacks do not count
        toward the per-project limit (a TripleO deployment has hundreds)."""
        query = select(func.count()).where(
            Stack.project == project, Stack.deleted_at.is_(None), Stack.parent_id.is_(None)
        )
        with self._reading() as connection:
            return int(connection.execute(query).scalar_one())

    def resources(self, stack_id: str) -> list[ResourceRecord]:
        with self._reading() as connection:
            rows = connection.execute(select_resources(stack_id)).all()
        codec = self._codec
        records = [resource_record(row, codec) for row in rows]
        if records and secrets.is_sealed(records[0].properties):
            unseal = self._sealer.unseal
            unseal_text = self._sealer.unseal_text
            records = [
                replace(
                    r,
                    properties=unseal(r.properties),
                    attributes=unseal(r.attributes),
                    data=unseal(r.data),
                    status_reason=unseal_text(r.status_reason),
                )
                for r in records
            ]
        return records

    def count_resources(self, stack_id: str) -> int:
        query = select(func.count()).where(Resource.stack_id == stack_id)
        with self._reading() as connection:
            return int(connection.execute(query).scalar_one())

    def events(
        self, stack_id: str, *, after_id: int | None = None, limit: int | None = None
    ) -> list[EventRecord]:
        with self._reading() as connection:
            rows = connection.execute(select_events(stack_id, after_id, limit)).all()
        codec = self._codec
        events = [event_record(row, codec) for row in rows]
        prefix, unseal = secrets.TEXT_PREFIX, self._sealer.unseal_text
        return [
            replace(e, reason=unseal(e.reason)) if e.reason.startswith(prefix) else e
            for e in events
        ]

    def previous_definition(self, stack_id: str) -> StoredDefinition | None:
        query = (
            select(
                RawTemplate.template,
                RawTemplate.environment,
                RawTemplate.files,
                Stack.prev_parameters,
                Stack.prev_template_file,
            )
            .join(RawTemplate, RawTemplate.id == Stack.prev_raw_template_id)
            .where(Stack.id == stack_id)
        )
        with self._reading() as connection:
            row = connection.execute(query).first()
        if row is None:
            return None
        template, environment, files, parameters, template_file = row
        if secrets.is_sealed(parameters):
            unseal = self._sealer.unseal
            template, environment = unseal(template), unseal(environment)
            files, parameters = unseal(files), unseal(parameters)
        return StoredDefinition(template, environment, files, parameters or {}, template_file)

    def lease(self, stack_id: str) -> Lease | None:
        """The recorded lease, expired or not (the caller knows what time it is)."""
        with self._reading() as connection:
            return lease_of(connection, stack_id)

    def snapshots(self, stack_id: str) -> list[SnapshotRecord]:
        """The stack's snapshots, oldest first."""
        query = (
            select(SnapshotRow)
            .where(SnapshotRow.stack_id == stack_id)
            .order_by(SnapshotRow.created_at, SnapshotRow.id)
        )
        with self._reading() as connection:
            rows = connection.execute(query).all()
        return [self._snapshot(row) for row in rows]

    def _snapshot(self, row: Any) -> SnapshotRecord:
        data = row.data
        if data is not None and secrets.is_sealed(data):
            data = self._sealer.unseal(data)
        return SnapshotRecord(
            id=row.id,
            stack_id=row.stack_id,
            name=row.name,
            status=row.status,
            status_reason=row.status_reason,
            data=data,
            created_at=row.created_at,
        )
