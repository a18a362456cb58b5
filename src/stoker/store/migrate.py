"""Bringing a database to the newest schema, safely when several processes open it at once.

`upgrade_to_head` first looks (without locking) whether the database is already at
`HEAD`, the common case. Otherwise it takes the database's migration lock and, inside one
transaction, creates a new database's schema at the head in one step or upgrades an older
one through Alembic's migrations. PostgreSQL's lock is a transaction-scoped advisory
lock, SQLite's ``BEGIN IMMEDIATE`` (its write lock). Both backends have transactional DDL,
so a second opener waits, then finds the schema at head and does nothing, and a failed
upgrade leaves the database as it was.

A new database is made without Alembic: the models' ``create_all`` (as Alembic's cookbook
builds an up-to-date database from scratch) and the head revision written into Alembic's
version table. Alembic is imported only to upgrade an older database. Every entry point
of Alembic, its ``command.stamp`` and ``MigrationContext`` included, first runs the
package's ``__init__``, which imports its whole runtime with Mako, Pygments and all of
SQLAlchemy's dialects: more than the rest of a first command's start-up, for one row.
So the version table is written here through SQLAlchemy Core, in the layout Alembic
documents and makes itself (`VERSION`); tests/store/test_migrations.py keeps it honest on
both backends: a database made here and one migrated step by step by Alembic have the
same schema (the version table's included), Alembic reads the new one as at its head
and its upgrade then does nothing, and `HEAD` is the head of Alembic's script directory.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import (
    Column,
    Engine,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    insert,
    inspect,
    text,
)
from sqlalchemy.engine import Connection

from stoker.errors import DatabaseError
from stoker.store.connection import WRITE
from stoker.store.models import ddl_metadata

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
# The newest revision in migrations/versions; a test checks it against Alembic's view.
HEAD = "0011"
VERSION_TABLE = "alembic_version"
#: Alembic's version table, as its default ``version_table_impl`` declares it: one
#: ``version_num VARCHAR(32) NOT NULL`` column, the primary key ``alembic_version_pkc``.
VERSION = Table(
    VERSION_TABLE,
    MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name=f"{VERSION_TABLE}_pkc"),
)
# An arbitrary constant: the advisory lock all stoker processes take to migrate.
_PG_LOCK_KEY = 0x5707_4E12


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def current_revisions(connection: Connection, tables: Collection[str] | None = None) -> set[str]:
    """The revisions the database is at (empty for a new database); ``tables``, the
    database's table names when the caller has them already."""
    if tables is None:
        if not inspect(connection).has_table(VERSION_TABLE):
            return set()
    elif VERSION_TABLE not in tables:
        return set()
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
    return {row[0] for row in rows}


def upgrade_to_head(engine: Engine) -> None:
    """Migrate the database behind ``engine`` to the newest revision (idempotent)."""
    with engine.connect() as connection:
        if current_revisions(connection) == {HEAD}:
            return
    _migrate(engine)


def _migrate(engine: Engine) -> None:
    """The migration under the database's lock (see the module's docstring)."""
    with engine.connect() as connection:
        connection.execution_options(**{WRITE: True})
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            _sqlite_foreign_keys(connection, on=False)
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    lock = text("SELECT pg_advisory_xact_lock(:key)")
                    connection.execute(lock, {"key": _PG_LOCK_KEY})
                tables = inspect(connection).get_table_names()
                current = current_revisions(connection, tables)
                if current == {HEAD}:
                    return  # another process migrated it while this one waited
                if not tables:
                    create_at_head(connection)
                    return
                _upgrade(connection)
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise DatabaseError(
                        "upgrading the database's schema would break a reference between "
                        "its tables; nothing was changed"
                    )
        finally:
            if sqlite:
                _sqlite_foreign_keys(connection, on=True)


def create_at_head(connection: Connection) -> None:
    """Make an empty database's schema at `HEAD` in one step: the models' tables, and
    Alembic's version table holding `HEAD` (what ``alembic stamp head`` writes), in the
    caller's transaction. The database has no tables (the caller looked): each is created
    without first asking the database whether it exists."""
    ddl_metadata(connection.dialect.name).create_all(connection, checkfirst=False)
    VERSION.create(connection, checkfirst=False)
    connection.execute(insert(VERSION).values(version_num=HEAD))


def _upgrade(connection: Connection) -> None:
    """Alembic's upgrade to the head, on ``connection`` (in its transaction)."""
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _sqlite_foreign_keys(connection: Connection, *, on: bool) -> None:
    """SQLite alters a table by building a new one and dropping the old (Alembic's batch
    mode), and with foreign keys enforced, dropping ``stacks`` fails as soon as a resource
    refers to it: a database with stacks could not be upgraded. Enforcement is switched
    off around the upgrade (on the driver's connection: the pragma does nothing inside a
    transaction, and SQLAlchemy would begin one), and ``foreign_key_check`` before the
    commit makes sure the new tables still hold together."""
    dbapi = connection.connection.dbapi_connection
    assert dbapi is not None
    dbapi.execute(f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}")
