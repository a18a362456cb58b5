"""What every part of `SqlStore` shares: the engine and its connections, the key that
seals hidden values, which stacks are sealed, and how database errors reach the user.

Every public method of the store is one transaction. Transactions that write start as
writers (on SQLite, ``BEGIN IMMEDIATE``: see `stoker.store.connection`), so checks made
before a write cannot be invalidated by another process in between. The store is split
by what it does: `stoker.store.reading`, `stoker.store.writing` (stack changes, resource
rows and events: one path, on the driver's cursor) and `stoker.store.claims` (leases,
cancel requests, snapshots), joined in `stoker.store.store.SqlStore`.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError, StatementError

from stoker.errors import DatabaseError
from stoker.store import failures, secrets
from stoker.store.bulk import BulkStatements
from stoker.store.codec import CODECS
from stoker.store.connection import WRITE
from stoker.store.errors import UnknownStack
from stoker.store.fence import FenceCheck
from stoker.store.models import Stack


class StoreBase:
    """The state and helpers the reading, writing and claiming parts share."""

    def __init__(self, engine: Engine, sealer: secrets.Sealer, shown: str | None = None) -> None:
        #: the database as errors name it (the URL as given, password masked)
        self.shown = shown or engine.url.render_as_string(hide_password=True)
        self._engine = engine
        self._sealer = sealer
        #: stack id -> whether its hidden values are sealed (a stack's never changes)
        self._sealed_stacks: dict[str, bool] = {}
        #: where the key came from (set by `open_store`), for `rotate_key`
        self.key_source: secrets.KeySource | None = None
        # A store dropped without close() still closes its connections (else each one
        # warns, or holds a PostgreSQL backend until the process ends).
        self._finalizer = weakref.finalize(self, engine.dispose)
        self._writer = engine.execution_options(**{WRITE: True})
        self._codec = CODECS[engine.dialect.name]
        self._sqlite = engine.dialect.name == "sqlite"
        dbapi: Any = engine.dialect.dbapi
        # what the driver itself raises, on the cursor the writes use
        self._integrity_errors: tuple[type[Exception], ...] = (IntegrityError, dbapi.IntegrityError)
        self._driver_errors: tuple[type[Exception], ...] = (dbapi.Error,)

    # The statements writes run, compiled when first needed: a reading command (``stack
    # list``) never writes, and compiling them costs ~3 ms of its start-up.
    @functools.cached_property
    def _bulk(self) -> BulkStatements:
        return BulkStatements(self._engine.dialect)

    @functools.cached_property
    def _fence(self) -> FenceCheck:
        return FenceCheck(self._engine.dialect)

    @property
    def engine(self) -> Engine:
        return self._engine

    def close(self) -> None:
        self._finalizer()

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with plain_errors(self.shown), self._engine.connect() as connection, connection.begin():
            yield connection

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        with plain_errors(self.shown), self._writer.begin() as connection:
            yield connection

    @contextmanager
    def _driver_transaction(self) -> Iterator[Any]:
        """A write transaction on a pooled driver connection: ``BEGIN IMMEDIATE`` on
        SQLite (as `_writing`: the write lock before anything is read), the driver's own
        ``BEGIN`` on PostgreSQL. Committed if the block ends normally, else rolled back."""
        connection = self._engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                if self._sqlite:
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

    def _is_sealed(self, connection: Connection, stack_id: str) -> bool:
        sealed = self._sealed_stacks.get(stack_id)
        if sealed is None:
            query = select(Stack.parameters).where(Stack.id == stack_id)
            sealed = secrets.is_sealed(connection.execute(query).scalar_one_or_none())
            self._sealed_stacks[stack_id] = sealed
        return sealed

    def _learn_sealed(self, stack_ids: Iterable[str]) -> None:
        """Fill the cache of which stacks are sealed, in a read of its own (whether a stack
        is sealed never changes, so this need not share the write's transaction). The
        engine reads or creates a stack before writing to it, so this rarely reads."""
        missing = [i for i in stack_ids if i not in self._sealed_stacks]
        if missing:
            with self._reading() as connection:
                for stack_id in missing:
                    self._is_sealed(connection, stack_id)

    def _raise_unknown(self, stack_ids: Iterable[str | None], error: Exception) -> None:
        """After a failed write: UnknownStack if one of the stacks it named is missing."""
        with self._reading() as connection:
            for stack_id in sorted(i for i in stack_ids if i is not None):
                if not stack_exists(connection, stack_id):
                    raise UnknownStack(stack_id) from error


@contextmanager
def plain_errors(shown: str) -> Iterator[None]:
    """Bad values (a naive time, NaN in JSON) raise the ValueError or TypeError that found
    them, not SQLAlchemy's wrapper of it. Database errors become one-line DatabaseErrors
    without the statement or its parameters (they may hold hidden values), except
    integrity errors, which the methods that expect them translate (else `_database_error`)."""
    try:
        yield
    except StatementError as error:
        if not isinstance(error, DBAPIError) and isinstance(error.orig, ValueError | TypeError):
            raise error.orig from error
        if isinstance(error, IntegrityError):
            raise
        raise database_error(error, shown) from None


def database_error(error: Exception, shown: str) -> DatabaseError:
    """One line: the driver's error class, the database (``shown``: password masked), and
    the first line of the driver's message (PostgreSQL puts the values of a failing row on
    a DETAIL line after it), with what to do when that is known. ``error`` is SQLAlchemy's
    wrapper or, on the driver-cursor write path, the driver's own exception."""
    orig = getattr(error, "orig", None) or error
    return failures.during_use(shown, type(orig).__name__, failures.driver_reason(orig))


def stack_exists(connection: Connection, stack_id: str) -> bool:
    return connection.execute(select(Stack.id).where(Stack.id == stack_id)).first() is not None
