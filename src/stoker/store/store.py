"""`SqlStore`: the engine's `Store` port, for SQLite and PostgreSQL.

Every public method is one transaction. Transactions that write start as writers (on
SQLite, ``BEGIN IMMEDIATE``: see `stoker.store.pragmas`), so checks made before a write
cannot be invalidated by another process in between. Statements are named entries of the
catalog (`stoker.store.statements`) that an executor runs (`stoker.store.executor`: the
stdlib ``sqlite3`` for an up-to-date SQLite file, with the SQL SQLAlchemy compiled ahead
of time; SQLAlchemy itself otherwise); the many rows of resources and events go through
the bulk statements (`stoker.store.bulk`) on the driver's cursor. The parts:
`stoker.store.reading`, `stoker.store.writing`, `stoker.store.claims` (leases, cancel
requests, snapshots), on `stoker.store.base`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from stoker.private_files import prepare_sqlite_file
from stoker.store import failures, secrets
from stoker.store.base import plain_errors
from stoker.store.claims import StoreClaims
from stoker.store.executor import EXECUTOR_ENV, Executor
from stoker.store.reading import StoreReads
from stoker.store.urls import database_url, plain_sqlite_file
from stoker.store.writing import StoreWrites

if TYPE_CHECKING:
    from sqlalchemy import Engine

SUPPORTED_BACKENDS = ("sqlite", "postgresql")


def open_store(url: str | None = None, *, migrate: bool = True) -> SqlStore:
    """Open (creating if needed) and migrate the database at ``url`` (see
    `stoker.store.urls.database_url` for the default), with the key for its hidden values
    (`stoker.store.secrets`); safe to call concurrently. A new SQLite file is made 0600.
    ``migrate=False`` is for a long-lived server whose start-up already migrated the
    database in another process: it keeps Alembic (~20 MB) out of the server's memory.

    A SQLite file already at the head of the migrations is opened without SQLAlchemy
    (`stoker.store.sqlite_executor.SqliteExecutor`); ``$STOKER_STORE_EXECUTOR=sqlalchemy``
    makes every store use SQLAlchemy's executor.

    A database that cannot be used raises `DatabaseError` with one line a user can act on.
    """
    url = database_url(url)
    stdlib = os.environ.get(EXECUTOR_ENV, "").strip().lower() != "sqlalchemy"
    path = plain_sqlite_file(url) if stdlib else None
    executor: Executor | None = None
    if path is not None:
        sqlite_file = os.path.abspath(path)
        prepare_sqlite_file(sqlite_file)
        executor = _at_head(sqlite_file, url, url)
        if executor is not None:
            return _with_sealer(executor, url, sqlite_file, in_memory=False)
    return _open_with_sqlalchemy(url, migrate=migrate, stdlib=stdlib)


def _at_head(sqlite_file: str, url: str, shown: str) -> Executor | None:
    """The stdlib executor if the file's schema is at the head, else None; a file that
    cannot be opened raises the same one line as through SQLAlchemy."""
    import sqlite3

    from stoker.store.sqlite_executor import open_at_head

    try:
        return open_at_head(sqlite_file, url)
    except sqlite3.Error as error:
        raise failures.cannot_open(shown, error) from None


def _open_with_sqlalchemy(url: str, *, migrate: bool, stdlib: bool) -> SqlStore:
    """A new database, one not at the head of the migrations, PostgreSQL, or a URL only
    SQLAlchemy reads: opened, and migrated, through SQLAlchemy. A SQLite file at the head
    once migrated is then used through the stdlib executor all the same."""
    from sqlalchemy.exc import ArgumentError, DBAPIError

    from stoker.store import models  # noqa: F401  (a new SQLite file is made from them)
    from stoker.store.connection import create_store_engine, in_memory_sqlite
    from stoker.store.migrate import upgrade_to_head
    from stoker.store.sa_executor import SqlAlchemyExecutor
    from stoker.store.urls import redacted, sqlalchemy_url

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
            prepare_sqlite_file(sqlite_file)
    try:
        engine: Engine = create_store_engine(parsed)
    except ModuleNotFoundError:
        raise failures.missing_driver(shown) from None
    try:
        try:
            if migrate:
                upgrade_to_head(engine)
        except DBAPIError as error:
            raise failures.cannot_open(shown, error) from None
    except BaseException:
        engine.dispose()
        raise
    executor: Executor | None = None
    if stdlib and sqlite_file is not None and plain_sqlite_file(url) is not None:
        executor = _at_head(sqlite_file, url, shown)
        if executor is not None:
            engine.dispose()
    if executor is None:
        executor = SqlAlchemyExecutor(engine)
    return _with_sealer(executor, shown, sqlite_file, in_memory)


def _with_sealer(
    executor: Executor, shown: str, sqlite_file: str | None, in_memory: bool
) -> SqlStore:
    try:
        with plain_errors(shown, executor.plain_errors, executor.integrity_errors):
            sealer = secrets.open_sealer(executor, sqlite_file, in_memory)
    except BaseException:
        executor.dispose()
        raise
    store = SqlStore(executor, sealer, shown)
    store.key_source = secrets.key_source()
    return store


class SqlStore(StoreWrites, StoreReads, StoreClaims):
    """The `stoker.engine.state.Store` on a migrated database; `close` when done."""

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
