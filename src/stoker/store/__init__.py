"""Durable state: the engine's `Store` port on SQLAlchemy (SQLite or PostgreSQL).

``open_store(url)`` opens a database, migrates it to the newest schema and returns a
`SqlStore`; ``database_url`` picks the URL (explicit, ``$STOKER_DB_URL``, or a SQLite file
in the user's data directory).
"""

from __future__ import annotations

from stoker.store.errors import UnknownStack
from stoker.store.store import SqlStore, open_store
from stoker.store.urls import database_url, default_database_url, sqlalchemy_url

__all__ = [
    "SqlStore",
    "UnknownStack",
    "database_url",
    "default_database_url",
    "open_store",
    "sqlalchemy_url",
]
