"""`Executor`: what `stoker.store.base.StoreBase` runs the statements of the catalog
(`stoker.store.statements`) on, by name, inside a transaction: SQLAlchemy Core on the
store's engine, with the models' column types converting values (JSON as Python data,
aware UTC datetimes, booleans) on SQLite and PostgreSQL alike.

Each entry of the catalog is built once per store and then found in SQLAlchemy's own
compiled cache (the engine's ``query_cache_size``) on every later execution.
Transactions: ``BEGIN`` for reads, ``BEGIN IMMEDIATE`` for writes on SQLite (see
`stoker.store.pragmas`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import Any

from sqlalchemy import ClauseElement, Engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from stoker.store.bulk import BulkStatements
from stoker.store.driver import Bulk
from stoker.store.fence import FenceCheck
from stoker.store.pragmas import WRITE
from stoker.store.statements import CATALOG, POSTGRESQL_ONLY, compile_fence


class Transaction:
    """Statements of the catalog, by name, in one transaction (a SQLAlchemy connection)."""

    __slots__ = ("_connection", "_statements")

    def __init__(self, connection: Connection, statements: dict[str, ClauseElement]) -> None:
        self._connection = connection
        self._statements = statements

    @property
    def connection(self) -> Connection:
        return self._connection

    def _execute(self, name: str, values: Mapping[str, Any] | None) -> Any:
        statement = self._statements.get(name)
        if statement is None:
            statement = self._statements[name] = _build(name)
        return self._connection.execute(statement, dict(values) if values else {})  # type: ignore[call-overload]

    def rows(self, name: str, values: Mapping[str, Any] | None = None) -> list[Sequence[Any]]:
        """The rows a query (or a statement with RETURNING) gives."""
        return list(self._execute(name, values).all())

    def first(self, name: str, values: Mapping[str, Any] | None = None) -> Sequence[Any] | None:
        row: Sequence[Any] | None = self._execute(name, values).first()
        return row

    def scalar(self, name: str, values: Mapping[str, Any] | None = None) -> Any:
        """The first column of the first row, None if there is no row."""
        row = self.first(name, values)
        return None if row is None else row[0]

    def count(self, name: str, values: Mapping[str, Any] | None = None) -> int:
        """Run a statement that changes rows; how many it matched."""
        return int(self._execute(name, values).rowcount)

    @contextmanager
    def cursor(self) -> Iterator[Any]:
        """A driver cursor in this transaction (the bulk statements and the fence)."""
        cursor = self._connection.connection.cursor()
        try:
            yield cursor
        finally:
            cursor.close()


def _build(name: str) -> ClauseElement:
    builder = CATALOG.get(name) or POSTGRESQL_ONLY[name]
    return builder()


class Executor:
    """One per store: its engine, transactions and statements."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE: True})
        self._statements: dict[str, ClauseElement] = {}
        #: the backend: ``sqlite`` or ``postgresql``
        self.dialect_name: str = engine.dialect.name
        dbapi: Any = engine.dialect.dbapi
        #: what the driver raises for a broken constraint, and SQLAlchemy's wrapper of it
        self.integrity_errors: tuple[type[Exception], ...] = (
            IntegrityError,
            dbapi.IntegrityError,
        )
        #: what the driver raises on the driver-cursor path (bulk writes, the fence)
        self.driver_errors: tuple[type[Exception], ...] = (dbapi.Error,)

    @property
    def engine(self) -> Engine:
        return self._engine

    @contextmanager
    def reading(self) -> Iterator[Transaction]:
        with self._engine.connect() as connection, connection.begin():
            yield Transaction(connection, self._statements)

    @contextmanager
    def writing(self) -> Iterator[Transaction]:
        with self._writer.begin() as connection:
            yield Transaction(connection, self._statements)

    @contextmanager
    def driver_transaction(self) -> Iterator[Any]:
        """A write transaction on a pooled driver connection: ``BEGIN IMMEDIATE`` on
        SQLite (as `writing`: the write lock before anything is read), the driver's own
        ``BEGIN`` on PostgreSQL. Committed if the block ends normally, else rolled back."""
        connection = self._engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                if self.dialect_name == "sqlite":
                    cursor.execute("BEGIN IMMEDIATE")
                yield cursor
                connection.commit()
            except BaseException:
                connection.rollback()
                raise
            finally:
                cursor.close()
        finally:
            connection.close()  # back to the pool

    # Compiled when first needed: a reading command (``stack list``) never writes, and
    # compiling them would lengthen its start-up.
    @cached_property
    def bulk(self) -> Bulk:
        return BulkStatements(self._engine.dialect).as_bulk()

    @cached_property
    def fence(self) -> FenceCheck:
        return compile_fence(self._engine.dialect)

    def dispose(self) -> None:
        self._engine.dispose()
