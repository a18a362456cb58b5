"""Bringing a database to the newest schema, safely when several processes open it at once.

`upgrade_to_head` first looks (without locking, and without importing Alembic, which a
short CLI command would notice) whether the database is already at `HEAD`, the common
case. Otherwise it takes the database's migration lock and, inside one transaction,
creates a new database's schema at the head in one step (stamped by Alembic) or upgrades
an older one through the migrations. PostgreSQL's lock is a transaction-scoped advisory
lock, SQLite's ``BEGIN IMMEDIATE`` (its write lock). Both backends have transactional DDL,
so a second opener waits, then finds the schema at head and does nothing, and a failed
upgrade leaves the database as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import Connection

from stoker.collector import collector_paused
from stoker.engine import keep_loaded
from stoker.errors import DatabaseError
from stoker.store.connection import WRITE
from stoker.store.models import ddl_metadata

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
# The newest revision in migrations/versions; a test checks it against Alembic's view.
HEAD = "0008"
VERSION_TABLE = "alembic_version"
# An arbitrary constant: the advisory lock all stoker processes take to migrate.
_PG_LOCK_KEY = 0x5707_4E12


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head_revisions() -> set[str]:
    """The heads of the shipped migrations, as Alembic reads them."""
    from alembic.script import ScriptDirectory

    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def current_revisions(connection: Connection) -> set[str]:
    """The revisions the database is at (empty for a new database)."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return set()
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))
    return {row[0] for row in rows}


def upgrade_to_head(engine: Engine) -> None:
    """Migrate the database behind ``engine`` to the newest revision (idempotent).

    A new database (no table at all) gets the models' tables in one step and Alembic's
    stamp of the head revision, instead of Alembic replaying every migration: the models
    state the head schema, and a test checks on both backends that both ways build the
    same tables, columns, indexes and keys. Any other database is upgraded by the
    migrations."""
    with engine.connect() as connection:
        if current_revisions(connection) == {HEAD}:
            return
    # Importing Alembic (with Mako and Pygments, which it imports) makes a great many
    # long-lived objects and almost no cyclic garbage: the collector is paused meanwhile
    # and, in a single command's process, what is loaded is kept for the command
    # (`keep_loaded`) before it runs again; otherwise its passes, a full one among them,
    # walk those modules while they load (the first command on a new database).
    with collector_paused():
        try:
            _migrate(engine)
        finally:
            keep_loaded()


def _migrate(engine: Engine) -> None:
    """The migration under the database's lock (see the module's docstring)."""
    from alembic import command

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
                current = current_revisions(connection)
                if current == {HEAD}:
                    return  # another process migrated it while this one waited
                config = alembic_config()
                config.attributes["connection"] = connection
                if not current and not inspect(connection).get_table_names():
                    ddl_metadata().create_all(connection)
                    command.stamp(config, "head")
                    return
                command.upgrade(config, "head")
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise DatabaseError(
                        "upgrading the database's schema would break a reference between "
                        "its tables; nothing was changed"
                    )
        finally:
            if sqlite:
                _sqlite_foreign_keys(connection, on=True)


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
