"""`SqliteExecutor`: the `stoker.store.executor.Executor` of an up-to-date SQLite file,
on the standard library's ``sqlite3`` with the SQL SQLAlchemy compiled ahead of time
(`stoker.store.compiled_sqlite`). No SQLAlchemy here; and no ``sqlite3`` for a store on
PostgreSQL, which never imports this module."""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from stoker.store import compiled_sqlite
from stoker.store.codec import _sqlite_time_in, _sqlite_time_out
from stoker.store.driver import Bulk, DriverStatement
from stoker.store.executor import Transaction
from stoker.store.fence import FenceCheck
from stoker.store.jsontext import dumps, loads
from stoker.store.pragmas import BUSY_TIMEOUT_S, configure_sqlite

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _null(value: None) -> None:
    return None


# ``sqlite3`` (3.11) binds str, int and float as they are, but sends every other value,
# None included, through its adapter registry first: with no adapter for None that is a
# failed lookup and two attribute lookups that raise, for each NULL (30,000 of them in
# the rows and events of a 10,000-resource create). An adapter that
# gives None back is found at once, and None is still bound as NULL.
sqlite3.register_adapter(type(None), _null)


def _json_out(value: Any) -> Any:
    return None if value is None else loads(value)


def _bool_out(value: Any) -> Any:
    return None if value is None else bool(value)


def _bool_in(value: Any) -> Any:
    return None if value is None else int(bool(value))


# The kinds `stoker.store.precompile` records, as the SQLite dialect converts them.
_IN: dict[str, Callable[[Any], Any]] = {"json": dumps, "time": _sqlite_time_in, "bool": _bool_in}
_OUT: dict[str, Callable[[Any], Any]] = {
    "json": _json_out,
    "time": _sqlite_time_out,
    "bool": _bool_out,
}


class _Statement:
    """A compiled entry: its SQL, how to order and convert its parameters, and how to
    convert the columns of its rows."""

    __slots__ = ("constants", "converters", "names", "results", "sql")

    def __init__(self, sql: str, names: Sequence[str], binds: Sequence[str | None],
                 results: Sequence[str | None], constants: Mapping[str, Any]) -> None:  # fmt: skip
        self.sql = sql
        self.constants = dict(constants)
        self.names = tuple(names)
        self.converters = tuple(None if kind is None else _IN[kind] for kind in binds)
        self.results: tuple[Callable[[Any], Any] | None, ...] | None = (
            tuple(None if kind is None else _OUT[kind] for kind in results)
            if any(kind is not None for kind in results)
            else None
        )

    def parameters(self, values: Mapping[str, Any] | None) -> tuple[Any, ...]:
        if not self.names:
            return ()
        if self.constants:
            values = {**self.constants, **(values or {})}
        assert values is not None
        return tuple(
            values[name] if convert is None else convert(values[name])
            for name, convert in zip(self.names, self.converters, strict=True)
        )

    def convert(self, rows: list[Any]) -> list[Sequence[Any]]:
        converters = self.results
        if converters is None:
            return rows
        return [
            tuple(v if c is None else c(v) for v, c in zip(row, converters, strict=True))
            for row in rows
        ]


_STATEMENTS: dict[str, _Statement] = {}


def _statement(name: str) -> _Statement:
    statement = _STATEMENTS.get(name)
    if statement is None:
        statement = _STATEMENTS[name] = _Statement(*compiled_sqlite.STATEMENTS[name])
    return statement


class SqliteTransaction:
    """A `Transaction` on a ``sqlite3`` connection."""

    __slots__ = ("_connection",)

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def rows(self, name: str, values: Mapping[str, Any] | None = None) -> list[Sequence[Any]]:
        statement = _statement(name)
        cursor = self._connection.execute(statement.sql, statement.parameters(values))
        return statement.convert(cursor.fetchall())

    def first(self, name: str, values: Mapping[str, Any] | None = None) -> Sequence[Any] | None:
        rows = self.rows(name, values)
        return rows[0] if rows else None

    def scalar(self, name: str, values: Mapping[str, Any] | None = None) -> Any:
        row = self.first(name, values)
        return None if row is None else row[0]

    def count(self, name: str, values: Mapping[str, Any] | None = None) -> int:
        statement = _statement(name)
        return self._connection.execute(statement.sql, statement.parameters(values)).rowcount

    @contextmanager
    def cursor(self) -> Iterator[Any]:
        cursor = self._connection.cursor()
        try:
            yield cursor
        finally:
            cursor.close()


def connect_sqlite(path: str) -> sqlite3.Connection:
    """A connection to the file at ``path``, configured as every store connection is."""
    connection = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    try:
        configure_sqlite(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def schema_version(connection: sqlite3.Connection) -> str | None:
    """The migration the database is at; None for one without Alembic's table (new)."""
    has_table = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
    ).fetchone()
    if has_table is None:
        return None
    versions = [row[0] for row in connection.execute("SELECT version_num FROM alembic_version")]
    return versions[0] if len(versions) == 1 else None


def open_at_head(path: str, url: str) -> SqliteExecutor | None:
    """A `SqliteExecutor` for the SQLite file at ``path`` if its schema is the one
    `stoker.store.compiled_sqlite` was compiled for; else None (nothing left open). The
    driver's errors (a file that cannot be opened, or is not a database) are raised."""
    connection = connect_sqlite(path)
    try:
        version = schema_version(connection)
    except BaseException:
        connection.close()
        raise
    if version != compiled_sqlite.HEAD:
        connection.close()
        return None
    return SqliteExecutor(path, url, connection)


class SqliteExecutor:
    """The `Executor` of an up-to-date SQLite file, on ``sqlite3``: a pool of connections
    (one per thread using the store at once), each transaction begun by the store."""

    dialect_name = "sqlite"
    integrity_errors: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)
    driver_errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    plain_errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, path: str, url: str, first: sqlite3.Connection | None = None) -> None:
        self.path = path
        self.url = url
        self._lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = [first] if first is not None else []
        self._bulk: Bulk | None = None
        self._fence: FenceCheck | None = None
        self._engine: Engine | None = None
        self._finalizer = weakref.finalize(self, _close_all, self._idle, self._lock)

    def _take(self) -> sqlite3.Connection:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return connect_sqlite(self.path)

    def _give(self, connection: sqlite3.Connection) -> None:
        try:
            usable = not connection.in_transaction
        except sqlite3.ProgrammingError:  # closed
            return
        if not usable or not self._finalizer.alive:
            connection.close()
            return
        with self._lock:
            self._idle.append(connection)

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[sqlite3.Connection]:
        connection = self._take()
        try:
            connection.execute(begin)
            try:
                yield connection
            except BaseException:
                try:
                    connection.rollback()
                except sqlite3.Error:
                    connection.close()  # not given back: in_transaction or unusable
                raise
            connection.commit()
        finally:
            self._give(connection)

    @contextmanager
    def reading(self) -> Iterator[Transaction]:
        with self._transaction("BEGIN") as connection:
            yield SqliteTransaction(connection)

    @contextmanager
    def writing(self) -> Iterator[Transaction]:
        with self._transaction("BEGIN IMMEDIATE") as connection:
            yield SqliteTransaction(connection)

    @contextmanager
    def driver_transaction(self) -> Iterator[Any]:
        with self._transaction("BEGIN IMMEDIATE") as connection:
            cursor = connection.cursor()
            try:
                yield cursor
            finally:
                cursor.close()

    @property
    def bulk(self) -> Bulk:
        if self._bulk is None:
            self._bulk = Bulk(
                **{
                    name: DriverStatement(sql, tuple(fields), False)
                    for name, (sql, fields) in compiled_sqlite.BULK.items()
                }
            )
        return self._bulk

    @property
    def fence(self) -> FenceCheck:
        if self._fence is None:
            sql, order = compiled_sqlite.FENCE
            self._fence = FenceCheck(sql, tuple(order))
        return self._fence

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from stoker.store.connection import create_store_engine

            self._engine = create_store_engine(self.url)
        return self._engine

    def dispose(self) -> None:
        self._finalizer()
        if self._engine is not None:
            self._engine.dispose()


def _close_all(idle: list[sqlite3.Connection], lock: threading.Lock) -> None:
    with lock:
        connections = list(idle)
        idle.clear()
    for connection in connections:
        connection.close()
