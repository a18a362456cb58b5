"""Durable state: the engine's `Store` port on SQLite or PostgreSQL (SQLAlchemy's SQL).

``open_store(url)`` opens a database, migrates it to the newest schema and returns a
`SqlStore`; ``database_url`` picks the URL (explicit, ``$STOKER_DB_URL``, or a SQLite file
in the user's data directory).

The names below are imported from their modules on first use: `stoker.cli.stack` needs
``database_url`` as it starts, and the store only once it is opened, so a stack command
that stops before (its ``--help``, a template refused at load) imports none of it (nor
SQLAlchemy, a large part of a short command).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stoker.lazy import names_from

if TYPE_CHECKING:
    from stoker.store.errors import UnknownStack
    from stoker.store.store import SqlStore, open_store
    from stoker.store.urls import database_url, default_database_url, sqlalchemy_url

_WHERE = {
    "SqlStore": "stoker.store.store",
    "UnknownStack": "stoker.store.errors",
    "database_url": "stoker.store.urls",
    "default_database_url": "stoker.store.urls",
    "open_store": "stoker.store.store",
    "sqlalchemy_url": "stoker.store.urls",
}

__all__ = [
    "SqlStore",
    "UnknownStack",
    "database_url",
    "default_database_url",
    "open_store",
    "sqlalchemy_url",
]


__getattr__ = names_from(__name__, _WHERE)
