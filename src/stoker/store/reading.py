"""Reading the store: stacks, resources, events, the previous definition, the lease and
snapshots, with sealed hidden values opened. Nothing here writes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from stoker.engine import (
    EventRecord,
    Lease,
    ResourceRecord,
    SnapshotRecord,
    StackRecord,
    StoredDefinition,
)
from stoker.store import secrets
from stoker.store.base import StoreBase
from stoker.store.documents import join_environment, open_document, own_sections
from stoker.store.fence import lease_of
from stoker.store.rows import (
    event_record,
    resource_record,
    stack_list_name,
    stack_record,
    summary_record,
)


class StoreReads(StoreBase):
    """The store's reads (each in a transaction of its own)."""

    def get_stack(self, name_or_id: str, project: str) -> StackRecord | None:
        """By id (deleted stacks too), else by name among live ones; only in ``project``."""
        with self._reading() as transaction:
            row = transaction.first("stack_by_id", {"stack_id": name_or_id, "project": project})
            if row is None:
                row = transaction.first("stack_by_name", {"name": name_or_id, "project": project})
        return None if row is None else self._stack(row)

    def _stack(self, row: Any) -> StackRecord:
        """A stack row as a record, its sealed values opened."""
        record = stack_record(row, self._open_document)
        sealed = secrets.is_sealed(record.parameters)
        self._sealed_stacks[record.id] = sealed
        shared, defaults = row[-2], row[-1]
        if not sealed:
            if shared is None:
                return record
            own = own_sections(record.environment, record.parameters)
            return replace(record, environment=self._joined(shared, defaults, own))
        unseal = self._sealer.unseal
        parameters = unseal(record.parameters)
        own = own_sections(unseal(record.environment), parameters)
        return replace(
            record,
            parameters=parameters,
            environment=own if shared is None else self._joined(shared, defaults, own),
            status_reason=self._sealer.unseal_text_at(
                (record.id, "", "status_reason"), record.status_reason
            ),
        )

    def _open_document(self, body: str) -> Any:
        return open_document(self._sealer, body)

    def _joined(self, shared: str, defaults: str | None, own: Any) -> Any:
        """An environment from its documents' bodies and its own sections (opened)."""
        opened = [self._open_document(shared)]
        if defaults is not None:
            opened.append(self._open_document(defaults))
        return join_environment(opened, own)

    def list_stacks(
        self, project: str, *, include_nested: bool = False, include_deleted: bool = False
    ) -> list[StackRecord]:
        """Oldest first."""
        name = stack_list_name(summaries=False, nested=include_nested, deleted=include_deleted)
        return self._stacks(name, {"project": project})

    def stack_summaries(
        self, project: str, *, include_nested: bool = False, include_deleted: bool = False
    ) -> list[StackRecord]:
        """`list_stacks` without each stack's definition (its template, environment,
        files and parameters are empty): what a listing shows, at a fraction of the cost."""
        name = stack_list_name(summaries=True, nested=include_nested, deleted=include_deleted)
        return self._summaries(name, {"project": project})

    def stack_summary(self, stack_id: str, project: str) -> StackRecord | None:
        """`get_stack` by id without the definition (as `stack_summaries`): a stack's
        status, parent and name, without decrypting and decoding its template,
        environment, files and parameters."""
        found = self._summaries("stack_summary_by_id", {"stack_id": stack_id, "project": project})
        return found[0] if found else None

    def tree_summaries(self, stack_id: str) -> list[StackRecord]:
        """The live stacks below ``stack_id`` at any depth (its children, theirs, ...)
        without their definitions, oldest first, in one read: what a walk of
        each stack's live children down the tree finds (a deleted stack's are not)."""
        return self._summaries("tree_summaries", {"stack_id": stack_id})

    def _summaries(self, name: str, values: dict[str, Any]) -> list[StackRecord]:
        with self._reading() as transaction:
            rows = transaction.rows(name, values)
        unseal = self._sealer.unseal_text_at
        records = [summary_record(row) for row in rows]
        return [
            r
            if r.status_reason == (text := unseal((r.id, "", "status_reason"), r.status_reason))
            else replace(r, status_reason=text)
            for r in records
        ]

    def stacks_in_progress(self) -> list[StackRecord]:
        """Live top-level stacks of every project whose operation is IN_PROGRESS: what a
        starting server looks at to take over the operations of one that died."""
        return self._stacks("stacks_in_progress", None)

    def _stacks(self, name: str, values: dict[str, Any] | None) -> list[StackRecord]:
        with self._reading() as transaction:
            rows = transaction.rows(name, values)
        return [self._stack(row) for row in rows]

    def count_stacks(self, project: str) -> int:
        """Live top-level stacks of the project: as in Heat, nested stacks do not count
        toward the per-project limit (a TripleO deployment has hundreds)."""
        with self._reading() as transaction:
            return int(transaction.scalar("count_stacks", {"project": project}))

    def resources(self, stack_id: str) -> list[ResourceRecord]:
        with self._reading() as transaction:
            rows = transaction.rows("resources", {"stack_id": stack_id})
            sealed = bool(rows) and self._read_sealed(transaction, stack_id)
        codec = self._codec
        records = [resource_record(row, codec) for row in rows]
        if sealed:  # by the stack's mark: a value in clear there is an empty one
            unseal = self._sealer.unseal_at
            unseal_text = self._sealer.unseal_text_at
            records = [
                replace(
                    r,
                    properties=unseal((stack_id, r.name, "properties"), r.properties),
                    attributes=unseal((stack_id, r.name, "attributes"), r.attributes),
                    data=unseal((stack_id, r.name, "data"), r.data),
                    status_reason=unseal_text((stack_id, r.name, "status_reason"), r.status_reason),
                )
                for r in records
            ]
        return records

    def count_resources(self, stack_id: str) -> int:
        with self._reading() as transaction:
            return int(transaction.scalar("count_resources", {"stack_id": stack_id}))

    def events(
        self, stack_id: str, *, after_id: int | None = None, limit: int | None = None
    ) -> list[EventRecord]:
        name = "events"
        values: dict[str, Any] = {"stack_id": stack_id}
        if after_id is not None:
            name, values["after_id"] = name + "_after", after_id
        if limit is not None:
            name, values["limit"] = name + "_limit", limit
        with self._reading() as transaction:
            rows = transaction.rows(name, values)
            sealed = bool(rows) and self._read_sealed(transaction, stack_id)
        codec = self._codec
        events = [event_record(row, codec) for row in rows]
        if not sealed:  # by the stack's mark, not by what a reason's text starts with
            return events
        prefix, unseal = secrets.TEXT_PREFIX, self._sealer.unseal_text
        return [
            replace(e, reason=unseal(e.reason)) if e.reason.startswith(prefix) else e
            for e in events
        ]

    def previous_definition(self, stack_id: str) -> StoredDefinition | None:
        with self._reading() as transaction:
            row = transaction.first("previous_definition", {"stack_id": stack_id})
        if row is None:
            return None
        template, environment, shared, defaults, files, parameters, template_file = row
        if secrets.is_sealed(parameters):
            unseal = self._sealer.unseal
            environment, parameters = unseal(environment), unseal(parameters)
        opened = self._open_document
        environment = own_sections(environment, parameters)
        if shared is not None:
            environment = self._joined(shared, defaults, environment)
        return StoredDefinition(
            opened(template), environment, opened(files), parameters or {}, template_file
        )

    def lease(self, stack_id: str) -> Lease | None:
        """The recorded lease, expired or not (the caller knows what time it is)."""
        with self._reading() as transaction:
            return lease_of(transaction, stack_id)

    def snapshots(self, stack_id: str) -> list[SnapshotRecord]:
        """The stack's snapshots, oldest first."""
        with self._reading() as transaction:
            rows = transaction.rows("snapshots", {"stack_id": stack_id})
        return [self._snapshot(row) for row in rows]

    def _snapshot(self, row: Any) -> SnapshotRecord:
        id_, stack_id, name, status, status_reason, data, created_at = row
        if data is not None and secrets.is_sealed(data):
            data = self._sealer.unseal(data)
        return SnapshotRecord(
            id=id_,
            stack_id=stack_id,
            name=name,
            status=status,
            status_reason=status_reason,
            data=data,
            created_at=created_at,
        )
