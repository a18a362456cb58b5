"""`SqlStore`: the engine's `Store` port on SQLAlchemy Core, for SQLite and PostgreSQL.

Every public method is one transaction. Transactions that write start as writers (on
SQLite, ``BEGIN IMMEDIATE``: see `stoker.store.connection`), so checks made before a write
cannot be invalidated by another process in between. Stacks and leases go through
SQLAlchemy Core with the models' types; the many rows of resources and events go through
`stoker.store.bulk` (resources upserted with the dialect's ``INSERT ... ON CONFLICT
(stack_id, name) DO UPDATE``). The parts: `stoker.store.reading`, `stoker.store.writing`,
`stoker.store.claims` (leases, cancel requests, snapshots), on `stoker.store.base`.
"""

from __future__ import annotations

import os

from sqlalchemy.exc import ArgumentError, DBAPIError

from stoker.store import failures, secrets
from stoker.store.base import plain_errors
from stoker.store.claims import StoreClaims
from stoker.store.connection import create_store_engine, in_memory_sqlite
from stoker.store.migrate import upgrade_to_head
from stoker.store.reading import StoreReads
from stoker.store.urls import database_url, redacted, sqlalchemy_url
from stoker.store.writing import StoreWrites

SUPPORTED_BACKENDS = ("sqlite", "postgresql")


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
        with plain_errors(shown):
            sealer = secrets.open_sealer(engine, sqlite_file, in_memory)
    except BaseException:
        engine.dispose()
        raise
    store = SqlStore(engine, sealer, shown)
    store.key_source = secrets.key_source(sqlite_file)
    return store


class SqlStore(StoreWrites, StoreReads, StoreClaims):
    """The `stoker.engine.state.Store` on a migrated database; `close` when done."""

    def __enter__(self) -> SqlStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
