"""`SqlStore`: the engine's `Store` port on SQLAlchemy Core, for SQLite and PostgreSQL.

Every public method is one transaction. Transactions that write start as writers (on
SQLite, ``BEGIN IMMEDIATE``: see `stoker.store.connection`), so checks made before a write
cannot be invalidated by another process in between. Stacks and leases go through
SQLAlchemy Core with the models' types; the many rows of resources and events go through
`stoker.store.bulk` (resources upserted with the dialect's ``INSERT ... ON CONFLICT
(stack_id, name) DO UPDATE``).
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, StatementError

from stoker.engine.state import (
    DefinitionChange,
    EventRecord,
    Lease,
    LeaseToken,
    ResourceRecord,
    SnapshotRecord,
    StackExists,
    StackRecord,
    StoredDefinition,
    WriteBatch,
)
from stoker.errors import DatabaseError, LeaseLost
from stoker.store import failures, secrets
from stoker.store.bulk import BulkStatements, select_events, select_resources
from stoker.store.codec import CODECS
from stoker.store.connection import WRITE, create_store_engine, in_memory_sqlite
from stoker.store.errors import UnknownStack
from stoker.store.migrate import upgrade_to_head
from stoker.store.models import RawTemplate, Resource, Stack
from stoker.store.models import Snapshot as SnapshotRow
from stoker.store.records import (
    SELECT_STACKS,
    SELECT_SUMMARIES,
    event_record,
    event_row,
    resource_record,
    resource_row,
    stack_record,
    stack_values,
    summary_record,
    template_values,
    template_values_of,
)
from stoker.store.urls import database_url, redacted, sqlalchemy_url

SUPPORTED_BACKENDS = ("sqlite", "postgresql")
# Under READ COMMITTED a lease can change between a failed swap and the look at who holds
# it; the swap is retried this many times before the holder seen is reported.
_LEASE_ATTEMPTS = 5


def open_store(url: str | None = None, *, migrate: bool = True) -> SqlStore:
    """Open (creating if needed) and migrate the database at ``url`` (see
    `stoker.store.urls.database_url` for the default), with the key for its hidden values
    (`stoker.store.secrets`); safe to call concurrently. A new SQLite file is made 0600.
    ``migrate=False`` is for a long-lived server whose start-up already migrated the
    database in another process: it keeps Alembic (~20 MB) out of the server's memory.

    A database that cannot be used raises `DatabaseError` with one line a user can act on.
    """
    url = database_url(url)
    try:
        parsed = sqlalchemy_url(url)
    except ArgumentError:
        raise failures.unsupported(url) from None
    shown = redacted(url)  # as the user wrote it (no +driver), password masked
    if parsed.get_backend_name() not in SUPPORTED_BACKENDS:
        raise failures.unsupported(shown)
    sqlite_file = None
    in_memory = False
    if parsed.get_backend_name() == "sqlite":
        in_memory = in_memory_sqlite(parsed)
        if not in_memory and parsed.database:
            sqlite_file = os.path.abspath(parsed.database)
            secrets.prepare_sqlite_file(sqlite_file)
    try:
        engine = create_store_engine(parsed)
    except ModuleNotFoundError:
        raise failures.missing_driver(shown) from None
    try:
        try:
            if migrate:
                upgrade_to_head(engine)
        except DBAPIError as error:
            raise failures.cannot_open(shown, error) from None
        with _plain_errors(shown):
            sealer = secrets.open_sealer(engine, sqlite_file, in_memory)
    except BaseException:
        engine.dispose()
        raise
    store = SqlStore(engine, sealer, shown)
    store.key_source = secrets.key_source(sqlite_file)
    return store


class SqlStore:
    """The `stoker.engine.state.Store` on a migrated database; `close` when done."""

    def __init__(self, engine: Engine, sealer: secrets.Sealer, shown: str | None = None) -> None:
        #: the database as errors name it (the URL as given, password masked)
        self.shown = shown or engine.url.render_as_string(hide_password=True)
        self._engine = engine
        self._sealer = sealer
        #: stack id -> whether its hidden values are sealed (a stack's never changes)
        self._sealed_stacks: dict[str, bool] = {}
        #: where the key came from (set by `open_store`), for `rotate_key`
        self.key_source: secrets.KeySource | None = None
        # A store dropped without close() still closes its connections (else each one
        # warns, or holds a PostgreSQL backend until the process ends).
        self._finalizer = weakref.finalize(self, engine.dispose)
        self._writer = engine.execution_options(**{WRITE: True})
        self._codec = CODECS[engine.dialect.name]
        self._sqlite = engine.dialect.name == "sqlite"
        dbapi: Any = engine.dialect.dbapi
        # what the driver itself raises, on the cursor `write` uses
        self._integrity_errors: tuple[type[Exception], ...] = (IntegrityError, dbapi.IntegrityError)
        self._driver_errors: tuple[type[Exception], ...] = (dbapi.Error,)

    # The statements writes run, compiled when first needed: a reading command (``stack
    # list``) never writes, and compiling them costs ~3 ms of its start-up.
    @functools.cached_property
    def _bulk(self) -> BulkStatements:
        return BulkStatements(self._engine.dialect)

    @functools.cached_property
    def _fence(self) -> _FenceCheck:
        return _FenceCheck(self._engine.dialect)

    @property
    def engine(self) -> Engine:
        return self._engine

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with _plain_errors(self.shown), self._engine.connect() as connection, connection.begin():
            yield connection

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        with _plain_errors(self.shown), self._writer.begin() as connection:
            yield connection

    # -- stacks ------------------------------------------------------------------------

    def create_stack(
        self,
        stack: StackRecord,
        resources: Sequence[ResourceRecord],
        events: Sequence[EventRecord],
        claim: Lease | None = None,
    ) -> None:
        """Insert the stack, its template, resources and events; StackExists if the name is
        taken by a live stack of the project (checked first; the partial unique index
        catches a concurrent creator on PostgreSQL). With ``claim``, the row is inserted
        claimed by its creator (see `stoker.engine.state.Store.create_stack`)."""
        try:
            with self._writing() as connection:
                live = stack.deleted_at is None
                if live and _live_stack_id(connection, stack.project, stack.name) is not None:
                    raise _exists(stack)
                sealed = secrets.hides_parameters(stack.template) or (
                    stack.parent_id is not None and self._is_sealed(connection, stack.parent_id)
                )
                self._sealed_stacks[stack.id] = sealed
                if sealed:
                    seal = self._sealer.seal
                    # The template and files too: a hidden parameter's default, or a file
                    # get_file reads, may hold the secret itself.
                    stack = replace(
                        stack,
                        template=seal(stack.template),
                        files=seal(stack.files),
                        parameters=seal(stack.parameters),
                        environment=seal(stack.environment),
                        status_reason=self._sealer.seal_text(stack.status_reason),
                    )
                added = connection.execute(insert(RawTemplate).values(template_values(stack)))
                template_id = _first_key(added.inserted_primary_key)
                values = stack_values(stack, template_id)
                if claim is not None:
                    values.update(
                        lease_engine_id=claim.engine_id,
                        lease_expires_at=claim.expires_at,
                        lease_generation=claim.generation,
                    )
                connection.execute(insert(Stack).values(values))
                self._write_rows(connection, resources, events)
        except IntegrityError as error:
            with self._reading() as connection:
                if _live_stack_id(connection, stack.project, stack.name) is not None:
                    raise _exists(stack) from error
            referenced = {stack.parent_id} | {r.stack_id for r in resources}
            referenced |= {e.stack_id for e in events}
            self._raise_unknown(referenced - {stack.id, None}, error)
            raise _database_error(error, self.shown) from None

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

    def _is_sealed(self, connection: Connection, stack_id: str) -> bool:
        sealed = self._sealed_stacks.get(stack_id)
        if sealed is None:
            query = select(Stack.parameters).where(Stack.id == stack_id)
            sealed = secrets.is_sealed(connection.execute(query).scalar_one_or_none())
            self._sealed_stacks[stack_id] = sealed
        return sealed

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

    def mark_deleted(self, stack_id: str, time: datetime, fence: LeaseToken | None = None) -> None:
        """Set ``deleted_at`` once (a second call keeps the first time); fenced as `write`."""
        with self._writing() as connection:
            if fence is not None:
                self._fence.run(connection, fence)
            result = connection.execute(
                update(Stack)
                .where(Stack.id == stack_id, Stack.deleted_at.is_(None))
                .values(deleted_at=time)
            )
            if result.rowcount == 0 and not _stack_exists(connection, stack_id):
                raise UnknownStack(stack_id)

    # -- resources and events ----------------------------------------------------------

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

    def write(self, batch: WriteBatch, fence: LeaseToken | None = None) -> str | None:
        """Stack state changes (``updated_at`` becomes the change's time), resource upserts
        and new events, all or nothing. A stack that does not exist raises UnknownStack.
        With ``fence``, the claim is checked first in the same transaction (LeaseLost),
        and the stack's pending cancel request (``stack cancel``) is returned.

        This is the engine's group commit, run once or twice per batch of resource
        transitions (4,000 times for a chain of 1,000), so it goes straight to the driver:
        one transaction on a pooled driver connection runs the fence check, then the
        precompiled statements of `stoker.store.bulk`, with hidden values sealed in the
        rows it sends. SQLAlchemy's per-statement machinery cost more than the database's
        own work here (0.18 ms against 0.075 ms for a one-resource batch on SQLite).
        """
        if not batch:
            return None
        request = None
        stack_ids = {c.stack_id for c in batch.stacks} | {r.stack_id for r in batch.resources}
        stack_ids |= {e.stack_id for e in batch.events}
        self._learn_sealed(stack_ids)
        sealed = self._sealed_stacks
        seal_text = self._sealer.seal_text
        time_in = self._codec.time_in
        stacks = [
            (
                c.action.value,
                c.status.value,
                seal_text(c.reason) if sealed[c.stack_id] else c.reason,
                time_in(c.time),
                c.stack_id,
            )
            for c in batch.stacks
        ]
        resources, events = self._rows(batch.resources, batch.events, sealed.__getitem__)
        bulk = self._bulk
        try:
            with _plain_errors(self.shown), self._driver_transaction() as cursor:
                if fence is not None:
                    held, request = self._fence.holds(cursor, fence)
                    if not held:
                        raise _Fenced
                for row in stacks:
                    if bulk.set_stack_status.execute(cursor, [row]) != 1:
                        raise UnknownStack(row[-1])
                if resources:
                    bulk.upsert_resources.execute(cursor, resources)
                if events:
                    bulk.insert_events.execute(cursor, events)
                for removed in batch.removed:
                    bulk.delete_resource.execute(cursor, [removed])
        except _Fenced:
            assert fence is not None
            with self._reading() as connection:  # after the rollback: who holds it now
                _lease_lost(connection, fence)
        except self._integrity_errors as error:
            named = {r.stack_id for r in batch.resources} | {e.stack_id for e in batch.events}
            self._raise_unknown(named, error)
            raise _database_error(error, self.shown) from None
        except self._driver_errors as error:
            raise _database_error(error, self.shown) from None
        return request

    def _learn_sealed(self, stack_ids: Iterable[str]) -> None:
        """Fill the cache of which stacks are sealed, in a read of its own (whether a stack
        is sealed never changes, so this need not share the write's transaction). The
        engine reads or creates a stack before writing to it, so this rarely reads."""
        missing = [i for i in stack_ids if i not in self._sealed_stacks]
        if missing:
            with self._reading() as connection:
                for stack_id in missing:
                    self._is_sealed(connection, stack_id)

    @contextmanager
    def _driver_transaction(self) -> Iterator[Any]:
        """A write transaction on a pooled driver connection: ``BEGIN IMMEDIATE`` on
        SQLite (as `_writing`: the write lock before anything is read), the driver's own
        ``BEGIN`` on PostgreSQL. Committed if the block ends normally, else rolled back."""
        connection = self._engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                if self._sqlite:
                    cursor.execute("BEGIN IMMEDIATE")
                yield cursor
                connection.commit()
            except BaseException:
                connection.rollback()
                raise
            finally:
                cursor.close()
        finally:
            connection.close()  # back to the pool

    def _write_stack_changes(self, connection: Connection, batch: WriteBatch) -> None:
        for change in batch.stacks:
            result = connection.execute(
                update(Stack)
                .where(Stack.id == change.stack_id)
                .values(
                    action=change.action.value,
                    status=change.status.value,
                    status_reason=self._sealer.seal_text(change.reason)
                    if self._is_sealed(connection, change.stack_id)
                    else change.reason,
                    updated_at=change.time,
                )
            )
            if result.rowcount != 1:
                raise UnknownStack(change.stack_id)

    @staticmethod
    def _remove_rows(connection: Connection, removed: Sequence[tuple[str, str]]) -> None:
        for stack_id, name in removed:
            connection.execute(
                delete(Resource).where(Resource.stack_id == stack_id, Resource.name == name)
            )

    # -- definitions (update and rollback) ---------------------------------------------

    def change_definition(
        self, change: DefinitionChange, batch: WriteBatch, fence: LeaseToken | None = None
    ) -> None:
        """Point the stack at ``change.definition`` and write ``batch``, in one transaction.

        An update (``keep_previous``) keeps the current raw template as the previous one
        and drops the one kept before (no stack refers to it any more); a rollback drops
        the update's raw template and clears the previous one."""
        with self._writing() as connection:
            if fence is not None:
                self._fence.run(connection, fence)
            current = connection.execute(
                select(
                    Stack.raw_template_id,
                    Stack.prev_raw_template_id,
                    Stack.parameters,
                    Stack.template_file,
                ).where(Stack.id == change.stack_id)
            ).first()
            if current is None:
                raise UnknownStack(change.stack_id)
            raw_id, prev_id, parameters, template_file = current
            definition = change.definition
            sealed = self._is_sealed(connection, change.stack_id) or secrets.hides_parameters(
                definition.template
            )
            values = template_values_of(definition)
            stored_parameters: Any = definition.parameters
            if sealed:
                seal = self._sealer.seal
                values = {key: seal(value) for key, value in values.items()}
                stored_parameters = seal(definition.parameters)
                if not secrets.is_sealed(parameters):
                    parameters = seal(parameters)
            added = connection.execute(insert(RawTemplate).values(values))
            new_id = _first_key(added.inserted_primary_key)
            if change.keep_previous:
                previous: dict[str, Any] = {
                    "prev_raw_template_id": raw_id,
                    "prev_parameters": parameters,
                    "prev_template_file": template_file,
                }
                dropped = [prev_id]
            else:
                previous = {
                    "prev_raw_template_id": None,
                    "prev_parameters": None,
                    "prev_template_file": None,
                }
                dropped = [raw_id, prev_id]
            connection.execute(
                update(Stack)
                .where(Stack.id == change.stack_id)
                .values(
                    raw_template_id=new_id,
                    parameters=stored_parameters,
                    template_file=definition.template_file,
                    tags=list(change.tags),
                    timeout_mins=change.timeout_mins,
                    disable_rollback=change.disable_rollback,
                    **previous,
                )
            )
            self._sealed_stacks[change.stack_id] = sealed
            for old in dropped:
                if old is not None and old != new_id:
                    connection.execute(delete(RawTemplate).where(RawTemplate.id == old))
            self._write_stack_changes(connection, batch)
            self._write_rows(connection, batch.resources, batch.events)
            self._remove_rows(connection, batch.removed)

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

    def _seal_resource(self, record: ResourceRecord) -> ResourceRecord:
        seal = self._sealer.seal
        return replace(
            record,
            properties=seal(record.properties),
            attributes=seal(record.attributes),
            data=seal(record.data),
            status_reason=self._sealer.seal_text(record.status_reason),
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
        with self._writing() as connection:
            count = secrets.reseal_all(connection, self._sealer, new)
        self._sealer = new
        if pending is not None and source is not None and source.path is not None:
            os.replace(pending, source.path)
            return count, None
        return count, key

    def _raise_unknown(self, stack_ids: Iterable[str | None], error: Exception) -> None:
        """After a failed write: UnknownStack if one of the stacks it named is missing."""
        with self._reading() as connection:
            for stack_id in sorted(i for i in stack_ids if i is not None):
                if not _stack_exists(connection, stack_id):
                    raise UnknownStack(stack_id) from error

    def _write_rows(
        self,
        connection: Connection,
        resources: Sequence[ResourceRecord],
        events: Sequence[EventRecord],
    ) -> None:
        def sealed(stack_id: str) -> bool:
            return self._is_sealed(connection, stack_id)

        resource_rows, event_rows = self._rows(resources, events, sealed)
        if resource_rows:
            self._bulk.upsert_resources.run(connection, resource_rows)
        if event_rows:
            self._bulk.insert_events.run(connection, event_rows)

    def _rows(
        self,
        resources: Sequence[ResourceRecord],
        events: Sequence[EventRecord],
        sealed: Callable[[str], bool],
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Driver-ready rows, the hidden values of sealed stacks sealed. One row per
        (stack_id, name): the last record wins, at the first one's place (PostgreSQL
        refuses to upsert one row twice in a statement)."""
        codec = self._codec
        resource_rows: list[tuple[Any, ...]] = []
        if resources:
            latest: dict[tuple[str, str], ResourceRecord] = {}
            for resource in resources:
                latest[resource.stack_id, resource.name] = resource
            records: Sequence[ResourceRecord] = list(latest.values())
            if any(sealed(stack_id) for stack_id in {stack_id for stack_id, _ in latest}):
                records = [self._seal_resource(r) if sealed(r.stack_id) else r for r in records]
            resource_rows = [resource_row(resource, codec) for resource in records]
        event_rows: list[tuple[Any, ...]] = []
        if events:
            if any(sealed(stack_id) for stack_id in {e.stack_id for e in events}):
                seal_text = self._sealer.seal_text
                events = [
                    replace(e, reason=seal_text(e.reason)) if sealed(e.stack_id) else e
                    for e in events
                ]
            event_rows = [event_row(event, codec) for event in events]
        return resource_rows, event_rows

    # -- leases ------------------------------------------------------------------------

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
                holder = _lease(connection, stack_id)
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

    def lease(self, stack_id: str) -> Lease | None:
        """The recorded lease, expired or not (the caller knows what time it is)."""
        with self._reading() as connection:
            return _lease(connection, stack_id)

    # -- cancel requests and snapshots (stoker.engine.cancel, stoker.engine.snapshots) ---

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

    def delete_snapshot(self, snapshot_id: str) -> None:
        with self._writing() as connection:
            connection.execute(delete(SnapshotRow).where(SnapshotRow.id == snapshot_id))


@contextmanager
def _plain_errors(shown: str) -> Iterator[None]:
    """Bad values (a naive time, NaN in JSON) raise the ValueError or TypeError that found
    them, not SQLAlchemy's wrapper of it. Database errors become one-line DatabaseErrors
    without the statement or its parameters (they may hold hidden values), except
    integrity errors, which the methods that expect them translate (else `_database_error`)."""
    try:
        yield
    except StatementError as error:
        if not isinstance(error, DBAPIError) and isinstance(error.orig, ValueError | TypeError):
            raise error.orig from error
        if isinstance(error, IntegrityError):
            raise
        raise _database_error(error, shown) from None


def _database_error(error: Exception, shown: str) -> DatabaseError:
    """One line: the driver's error class, the database (``shown``: password masked), and
    the first line of the driver's message (PostgreSQL puts the values of a failing row on
    a DETAIL line after it), with what to do when that is known. ``error`` is SQLAlchemy's
    wrapper or, on the driver-cursor write path, the driver's own exception."""
    orig = getattr(error, "orig", None) or error
    return failures.during_use(shown, type(orig).__name__, failures.driver_reason(orig))


def _first_key(key: Sequence[Any] | None) -> int:
    if not key or key[0] is None:
        raise RuntimeError("the database assigned no id")  # not on SQLite or PostgreSQL
    return int(key[0])


def _live_stack_id(connection: Connection, project: str, name: str) -> str | None:
    query = select(Stack.id).where(
        Stack.project == project, Stack.name == name, Stack.deleted_at.is_(None)
    )
    return connection.execute(query).scalar_one_or_none()


def _stack_exists(connection: Connection, stack_id: str) -> bool:
    return connection.execute(select(Stack.id).where(Stack.id == stack_id)).first() is not None


def _lease(connection: Connection, stack_id: str) -> Lease | None:
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


class _FenceCheck:
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
        _lease_lost(connection, fence)
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


class _Fenced(Exception):
    """Inside `SqlStore.write`: the fence check failed (the transaction is rolled back
    before the holder is looked up and LeaseLost raised)."""


def _lease_lost(connection: Connection, fence: LeaseToken) -> None:
    holder = _lease(connection, fence.stack_id)
    if holder is None:
        by = "another process took the stack over since, and has released it"
    else:
        by = f"engine {holder.engine_id} holds it (claim {holder.generation})"
    raise LeaseLost(
        f"this process lost its claim on stack {fence.stack_id} (claim {fence.generation}): "
        f"{by}; it stopped without writing anything more"
    )


def _exists(stack: StackRecord) -> StackExists:
    return StackExists(f"The Stack ({stack.name}) already exists.")
