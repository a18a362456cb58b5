"""Writing the store: a new stack, the engine's group commits, definition changes (update
and rollback), the deleted mark and key rotation.

Stack state changes, resource rows and events are written by one path: the compiled
statements of `stoker.store.bulk`, on the driver's cursor, with the hidden values of
sealed stacks sealed in the rows (`StoreWrites._apply`). The group commit (`write`) runs
it in a transaction of its own; `change_definition` in the transaction that points the
stack at its new template.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

from stoker.engine import (
    DefinitionChange,
    EventRecord,
    Lease,
    LeaseToken,
    ResourceRecord,
    StackExists,
    StackRecord,
    WriteBatch,
)
from stoker.errors import StackLimitReached
from stoker.store import secrets
from stoker.store.base import StoreBase, database_error, stack_exists
from stoker.store.documents import definition_values, lock_for_release, release
from stoker.store.errors import UnknownStack
from stoker.store.executor import Transaction
from stoker.store.fence import lease_lost
from stoker.store.rows import (
    event_row,
    resource_row,
    stack_values,
    state_row,
    stored_resource_row,
)


@dataclass(slots=True)
class _Rows:
    """A batch as driver-ready rows, sealed where its stack is."""

    stacks: list[tuple[Any, ...]] = field(default_factory=list)
    resources: list[tuple[Any, ...]] = field(default_factory=list)
    events: list[tuple[Any, ...]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    states: list[tuple[Any, ...]] = field(default_factory=list)
    #: the records of ``states``, whole (sealed where their stack is): written as
    #: ``resources`` are if a state-only update finds a row missing
    whole: Callable[[], list[tuple[Any, ...]]] | None = None


class StoreWrites(StoreBase):
    """The store's writes."""

    def create_stack(
        self,
        stack: StackRecord,
        resources: Sequence[ResourceRecord],
        events: Sequence[EventRecord],
        claim: Lease | None = None,
        max_stacks: int | None = None,
    ) -> None:
        """Insert the stack, its template, resources and events; StackExists if the name is
        taken by a live stack of the project (checked first; the partial unique index
        catches a concurrent creator on PostgreSQL). With ``claim``, the row is inserted
        claimed by its creator; with ``max_stacks``, refused at the project's limit (see
        `stoker.engine.state.Store.create_stack`)."""
        try:
            with self._writing() as transaction:
                if max_stacks is not None and stack.parent_id is None:
                    self._within_limit(transaction, stack.project, max_stacks)
                live = stack.deleted_at is None
                if live and _live_stack_id(transaction, stack.project, stack.name) is not None:
                    raise _exists(stack)
                sealed = secrets.hides_parameters(stack.template) or (
                    stack.parent_id is not None and self._is_sealed(transaction, stack.parent_id)
                )
                self._sealed_stacks[stack.id] = sealed
                # The template and files are sealed too: a hidden parameter's default,
                # or a file get_file reads, may hold the secret itself.
                definition = definition_values(
                    transaction, self._sealer, stack, sealed=sealed, digests=self._digests
                )
                if sealed:
                    stack = replace(
                        stack,
                        parameters=self._sealer.token(stack.parameters),  # the mark
                        status_reason=self._sealer.seal_text_at(
                            (stack.id, "", "status_reason"), stack.status_reason
                        ),
                    )
                added = transaction.first("insert_raw_template", definition)
                template_id = _first_key(added)
                values = stack_values(stack, template_id)
                if claim is not None:
                    values.update(
                        lease_engine_id=claim.engine_id,
                        lease_expires_at=claim.expires_at,
                        lease_generation=claim.generation,
                    )
                transaction.count("insert_stack", values)
                batch = WriteBatch(resources=list(resources), events=list(events))
                self._know_sealed(transaction, batch)
                with transaction.cursor() as cursor:
                    self._apply(cursor, self._prepare(batch))
        except self._integrity_errors as error:
            with self._reading() as transaction:
                if _live_stack_id(transaction, stack.project, stack.name) is not None:
                    raise _exists(stack) from error
            referenced = {stack.parent_id} | {r.stack_id for r in resources}
            referenced |= {e.stack_id for e in events}
            raise self._write_failed(referenced - {stack.id, None}, error) from None
        except self._driver_errors as error:
            raise database_error(error, self.shown) from None

    def _within_limit(self, transaction: Transaction, project: str, limit: int) -> None:
        """Count the project's live top-level stacks where no other creator of that
        project can insert meanwhile: SQLite's write transactions begin IMMEDIATE (one
        writer at a time); on PostgreSQL a transaction-scoped advisory lock keyed by the
        project serializes its creators (released at commit or rollback) without a lock
        table or a lock on other projects' creates."""
        if not self._sqlite:
            key = int.from_bytes(
                hashlib.blake2b(f"stoker-stacks:{project}".encode(), digest_size=8).digest(),
                "big",
                signed=True,
            )
            transaction.rows("advisory_lock", {"key": key})
        if int(transaction.scalar("count_stacks", {"project": project})) >= limit:
            raise StackLimitReached(limit)

    def mark_deleted(self, stack_id: str, time: datetime, fence: LeaseToken | None = None) -> None:
        """Set ``deleted_at`` once (a second call keeps the first time); fenced as `write`."""
        with self._writing() as transaction:
            if fence is not None:
                self._fence.run(transaction, fence)
            changed = transaction.count("mark_deleted", {"stack_id": stack_id, "time": time})
            if changed == 0 and not stack_exists(transaction, stack_id):
                raise UnknownStack(stack_id)

    def write(self, batch: WriteBatch, fence: LeaseToken | None = None) -> str | None:
        """Stack state changes (``updated_at`` where the change sets it), resource upserts
        and new events, all or nothing. A stack that does not exist raises UnknownStack.
        With ``fence``, the claim is checked first in the same transaction (LeaseLost),
        and the stack's pending cancel request (``stack cancel``) is returned.

        This is the engine's group commit, run once or twice per batch of resource
        transitions (4,000 times for a chain of 1,000), so it goes straight to the driver:
        one transaction on a pooled driver connection runs the fence check, then the
        compiled statements of `stoker.store.bulk`, with hidden values sealed in the
        rows it sends. SQLAlchemy's per-statement machinery cost more than the database's
        own work here (twice as much for a one-resource batch on SQLite).
        """
        if not batch:
            return None
        if batch.release and fence is None:
            raise ValueError("a batch that releases a claim is written under that claim")
        request = None
        self._learn_sealed(_stack_ids(batch))
        rows = self._prepare(batch)
        try:
            with self._plain_errors(), self._executor.driver_transaction() as cursor:
                if fence is not None:
                    held, request = self._fence.holds(cursor, fence)
                    if not held:
                        raise _Fenced
                self._apply(cursor, rows)
                if batch.release and fence is not None:
                    self._fence.release(cursor, fence)
        except _Fenced:
            assert fence is not None
            with self._reading() as transaction:  # after the rollback: who holds it now
                lease_lost(transaction, fence)
        except self._integrity_errors as error:
            named = {r.stack_id for r in batch.resources} | {e.stack_id for e in batch.events}
            named |= {stack_id for stack_id, _ in batch.states}
            raise self._write_failed(named, error) from None
        except self._driver_errors as error:
            raise database_error(error, self.shown) from None
        return request

    def _prepare(self, batch: WriteBatch) -> _Rows:
        """``batch`` as driver-ready rows (which of its stacks are sealed must be known:
        `_learn_sealed`, `_know_sealed`)."""
        sealed = self._sealed_stacks
        seal_at = self._sealer.seal_text_at
        time_in = self._codec.time_in
        stacks = [
            (
                c.action.value,
                c.status.value,
                seal_at((c.stack_id, "", "status_reason"), c.reason)
                if sealed[c.stack_id]
                else c.reason,
                time_in(c.updated_at),
                c.stack_id,
            )
            for c in batch.stacks
        ]
        resources, events, states, whole = self._rows(batch, sealed.__getitem__)
        return _Rows(stacks, resources, events, list(batch.removed), states, whole)

    def _apply(self, cursor: Any, rows: _Rows) -> None:
        """Write ``rows`` on a driver cursor, in its transaction: the one path by which stack
        changes, resource rows and events reach the database."""
        bulk = self._bulk
        for row in rows.stacks:
            if bulk.set_stack_status.execute(cursor, [row]) != 1:
                raise UnknownStack(row[-1])
        if rows.resources:
            bulk.upsert_resources.execute(cursor, rows.resources)
        if rows.states and bulk.set_resource_state.execute(cursor, rows.states) != len(rows.states):
            # A row that is not there (not on the engine's path: it reads its records
            # back first) is written whole, as an upsert would.
            assert rows.whole is not None
            bulk.upsert_resources.execute(cursor, rows.whole())
        if rows.events:
            bulk.insert_events.execute(cursor, rows.events)
        for removed in rows.removed:
            bulk.delete_resource.execute(cursor, [removed])

    def _know_sealed(self, transaction: Transaction, batch: WriteBatch) -> None:
        """Which of the batch's stacks are sealed, read in ``transaction``."""
        for stack_id in _stack_ids(batch):
            self._is_sealed(transaction, stack_id)

    def change_definition(
        self, change: DefinitionChange, batch: WriteBatch, fence: LeaseToken | None = None
    ) -> None:
        """Point the stack at ``change.definition`` and write ``batch``, in one transaction.

        An update (``keep_previous``) keeps the current raw template as the previous one
        and drops the one kept before (no stack refers to it any more); a rollback drops
        the update's raw template and clears the previous one. A dropped raw template's
        documents go with it where no other raw template uses them."""
        try:
            self._change_definition(change, batch, fence)
        except self._integrity_errors as error:
            named = {r.stack_id for r in batch.resources} | {e.stack_id for e in batch.events}
            raise self._write_failed(named | {change.stack_id}, error) from None
        except self._driver_errors as error:
            raise database_error(error, self.shown) from None

    def _change_definition(
        self, change: DefinitionChange, batch: WriteBatch, fence: LeaseToken | None
    ) -> None:
        with self._writing() as transaction:
            if fence is not None:
                self._fence.run(transaction, fence)
            current = transaction.first("current_definition", {"stack_id": change.stack_id})
            if current is None:
                raise UnknownStack(change.stack_id)
            raw_id, prev_id, parameters, template_file = current
            lock_for_release(transaction)
            definition = change.definition
            sealed = self._is_sealed(transaction, change.stack_id) or secrets.hides_parameters(
                definition.template
            )
            values = definition_values(
                transaction, self._sealer, definition, sealed=sealed, digests=self._digests
            )
            stored_parameters: Any = definition.parameters
            if sealed:
                stored_parameters = self._sealer.token(definition.parameters)
                if not secrets.is_sealed(parameters):
                    parameters = self._sealer.token(parameters)
            new_id = _first_key(transaction.first("insert_raw_template", values))
            kept = change.keep_previous  # the current definition, for a rollback
            transaction.count(
                "change_definition",
                {
                    "stack_id": change.stack_id,
                    "new_raw_template_id": new_id,
                    "new_parameters": stored_parameters,
                    "new_template_file": definition.template_file,
                    "new_tags": list(change.tags),
                    "new_timeout_mins": change.timeout_mins,
                    "new_disable_rollback": change.disable_rollback,
                    "new_prev_raw_template_id": raw_id if kept else None,
                    "new_prev_parameters": parameters if kept else None,
                    "new_prev_template_file": template_file if kept else None,
                },
            )
            dropped = [prev_id] if kept else [raw_id, prev_id]
            self._sealed_stacks[change.stack_id] = sealed
            release(transaction, [old for old in dropped if old is not None and old != new_id])
            self._know_sealed(transaction, batch)
            with transaction.cursor() as cursor:
                self._apply(cursor, self._prepare(batch))

    def _sealed_row(self, record: ResourceRecord) -> tuple[Any, ...]:
        """``record``'s row as stored in a sealed stack (its row's tokens reused for values
        that did not change since this store last wrote them: `Sealer.seal_json_at`)."""
        sealer, stack_id, name = self._sealer, record.stack_id, record.name
        return stored_resource_row(
            record,
            sealer.seal_json_at((stack_id, name, "properties"), record.properties),
            sealer.seal_json_at((stack_id, name, "attributes"), record.attributes),
            sealer.seal_json_at((stack_id, name, "data"), record.data),
            sealer.seal_text_at((stack_id, name, "status_reason"), record.status_reason),
            self._codec,
        )

    def rotate_key(self) -> tuple[int, bytes | None]:
        """Encrypt every sealed value again with a new key, in one transaction (all or
        none), and put the key where the old one was. Returns how many values changed, and
        the new key when the old one came from ``$STOKER_SECRET_KEY`` (the caller must
        hand it over: there is nowhere to save it).

        A key file is replaced only after the commit; the new key is saved first beside
        it (``.new``), so a crash in between loses nothing."""
        source = self.key_source
        key = secrets.new_key()
        new = secrets.Sealer(key)
        pending = None
        if source is not None and source.path is not None:
            pending = source.path.with_name(source.path.name + ".new")
            secrets.write_key_file(pending, key)
        with self._sqlalchemy_writing() as connection:
            count = secrets.reseal_all(connection, self._sealer, new)
        self._sealer = new
        if pending is not None and source is not None and source.path is not None:
            os.replace(pending, source.path)
            return count, None
        return count, key

    def _rows(
        self, batch: WriteBatch, sealed: Callable[[str], bool]
    ) -> tuple[
        list[tuple[Any, ...]],
        list[tuple[Any, ...]],
        list[tuple[Any, ...]],
        Callable[[], list[tuple[Any, ...]]] | None,
    ]:
        """Driver-ready rows (resources, events, states, and the states' records whole),
        the hidden values of sealed stacks sealed. One row per (stack_id, name): the last
        record wins, at the first one's place (PostgreSQL refuses to upsert one row twice
        in a statement); a state that follows a full record of its resource in the batch
        is written whole."""
        resources, events = batch.resources, batch.events
        states: list[ResourceRecord] = []
        resource_rows: list[tuple[Any, ...]] = []
        if resources or batch.states:
            latest: dict[tuple[str, str], ResourceRecord] = {}
            for resource in resources:
                latest[resource.stack_id, resource.name] = resource
            if not latest:
                states = list(batch.states.values())
            else:
                for key, state in batch.states.items():
                    if key in latest:
                        latest[key] = state
                    else:
                        states.append(state)
            resource_rows = self._whole(list(latest.values()), sealed)
        state_rows: list[tuple[Any, ...]] = []
        whole = None
        if states:
            seal_at, codec = self._sealer.seal_text_at, self._codec
            state_rows = [
                state_row(
                    r,
                    seal_at((r.stack_id, r.name, "status_reason"), r.status_reason)
                    if sealed(r.stack_id)
                    else r.status_reason,
                    codec,
                )
                for r in states
            ]
            whole = partial(self._whole, states, sealed)
        event_rows: list[tuple[Any, ...]] = []
        if events:
            codec = self._codec
            if any(sealed(stack_id) for stack_id in {e.stack_id for e in events}):
                seal_text = self._sealer.seal_text
                event_rows = [
                    event_row(e, codec, seal_text(e.reason) if sealed(e.stack_id) else None)
                    for e in events
                ]
            else:
                event_rows = [event_row(event, codec) for event in events]
        return resource_rows, event_rows, state_rows, whole

    def _whole(
        self, records: list[ResourceRecord], sealed: Callable[[str], bool]
    ) -> list[tuple[Any, ...]]:
        """Rows of whole records, for the upsert."""
        codec = self._codec
        if any(sealed(stack_id) for stack_id in {r.stack_id for r in records}):
            return [
                self._sealed_row(r) if sealed(r.stack_id) else resource_row(r, codec)
                for r in records
            ]
        return [resource_row(resource, codec) for resource in records]


def _first_key(key: Sequence[Any] | None) -> int:
    """The id a ``RETURNING id`` gave."""
    if not key or key[0] is None:
        raise RuntimeError("the database assigned no id")  # not on SQLite or PostgreSQL
    return int(key[0])


def _live_stack_id(transaction: Transaction, project: str, name: str) -> str | None:
    found: str | None = transaction.scalar("live_stack_id", {"project": project, "name": name})
    return found


class _Fenced(Exception):
    """Inside `SqlStore.write`: the fence check failed (the transaction is rolled back
    before the holder is looked up and LeaseLost raised)."""


def _exists(stack: StackRecord) -> StackExists:
    return StackExists(f"The Stack ({stack.name}) already exists.")


def _stack_ids(batch: WriteBatch) -> set[str]:
    ids = {c.stack_id for c in batch.stacks} | {r.stack_id for r in batch.resources}
    ids |= {stack_id for stack_id, _ in batch.states}
    return ids | {e.stack_id for e in batch.events}
