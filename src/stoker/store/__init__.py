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
    from stoker.store.secrets import KEY_ENV
    from stoker.store.software import ConfigRecord, DeploymentRecord, SoftwareStore
    from stoker.store.store import SqlStore, open_store
    from stoker.store.trusts import TrustRecord, TrustStore
    from stoker.store.urls import (
        database_url,
        default_database_url,
        redacted,
        sqlalchemy_url,
    )

_WHERE = {
    "ConfigRecord": "stoker.store.software",
    "DeploymentRecord": "stoker.store.software",
    "KEY_ENV": "stoker.store.secrets",
    "SoftwareStore": "stoker.store.software",
    "SqlStore": "stoker.store.store",
    "TrustRecord": "stoker.store.trusts",
    "TrustStore": "stoker.store.trusts",
    "UnknownStack": "stoker.store.errors",
    "database_url": "stoker.store.urls",
    "default_database_url": "stoker.store.urls",
    "open_store": "stoker.store.store",
    "redacted": "stoker.store.urls",
    "sqlalchemy_url": "stoker.store.urls",
}

__all__ = [
    "ConfigRecord",
    "DeploymentRecord",
    "KEY_ENV",
    "SoftwareStore",
    "SqlStore",
    "TrustRecord",
    "TrustStore",
    "UnknownStack",
    "database_url",
    "default_database_url",
    "open_store",
    "redacted",
    "sqlalchemy_url",
]

__getattr__ = names_from(__name__, _WHERE)
