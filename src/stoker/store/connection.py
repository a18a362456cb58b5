"""Opening a SQLAlchemy engine configured the way the store needs on each backend.

SQLite: every connection gets `stoker.store.pragmas`' settings (WAL, busy timeout,
foreign keys, ``BEGIN`` emitted by the store: ``BEGIN IMMEDIATE`` for a transaction that
will write). PostgreSQL needs nothing special: READ COMMITTED, with conditional UPDATEs
and a unique index where two writers could race.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection
from sqlalchemy.pool import StaticPool

from stoker.store.jsontext import dumps, loads
from stoker.store.pragmas import BUSY_TIMEOUT_S, WRITE, configure_sqlite
from stoker.store.urls import sqlalchemy_url

__all__ = ["BUSY_TIMEOUT_S", "WRITE", "create_store_engine", "in_memory_sqlite"]


def create_store_engine(url: str | URL) -> Engine:
    """An engine for ``url`` with the per-backend settings described above."""
    parsed = sqlalchemy_url(url)
    # hide_parameters: an error never carries a statement's values (hidden ones among them).
    options: dict[str, Any] = {
        "json_serializer": dumps,
        "json_deserializer": loads,
        "hide_parameters": True,
    }
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(parsed, pool_pre_ping=True, **options)
        return engine
    connect_args: dict[str, Any] = {"timeout": BUSY_TIMEOUT_S}
    if in_memory_sqlite(parsed):
        # One database per connection otherwise: share the single connection.
        connect_args["check_same_thread"] = False
        options["poolclass"] = StaticPool
    engine = create_engine(parsed, connect_args=connect_args, **options)
    event.listen(engine, "connect", configure_sqlite)
    event.listen(engine, "begin", _begin_sqlite)
    return engine


def in_memory_sqlite(url: URL) -> bool:
    database = url.database or ""
    return database in ("", ":memory:") or url.query.get("mode") == "memory"


def _begin_sqlite(connection: Connection) -> None:
    write = connection.get_execution_options().get(WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
