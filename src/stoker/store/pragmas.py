"""How every SQLite connection of the store is set up (a ``connect`` listener of the
SQLAlchemy engine, `stoker.store.connection`).

The file is shared by processes (the CLI, a service, a second CLI), so each connection
turns on WAL (readers never block the writer), ``synchronous=NORMAL`` (durable at
checkpoints, and fast), a busy timeout (writers queue instead of failing at once) and
foreign keys (off by default in SQLite). The Python driver's own transaction handling is
switched off and the store emits ``BEGIN`` itself: a transaction that will write starts
with ``BEGIN IMMEDIATE`` and so takes the write lock before it reads. Otherwise two
writers that read first (the name check of `create_stack`, a lease compare-and-swap)
would both hold read snapshots and one of them would fail at its first write with
``SQLITE_BUSY``, which no busy timeout retries.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

BUSY_TIMEOUT_S = 30.0
WRITE = "stoker_write"  # execution option: this transaction will write


def configure_sqlite(dbapi_connection: Any, _record: Any = None) -> None:
    dbapi_connection.isolation_level = None  # the store emits BEGIN itself
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _use_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _use_wal(cursor: Any) -> None:
    """Switch the file to WAL, waiting out other connections doing the same.

    The mode is stored in the file, so only the first connection to a new database switches
    it; but several processes opening a new file at once race for the exclusive lock the
    switch needs, and SQLite answers "database is locked" there without calling the busy
    handler. So: read the mode first, and retry the switch until the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
                return
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
