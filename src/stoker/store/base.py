"""What every part of `SqlStore` shares: the executor and its transactions, the key that
seals hidden values, which stacks are sealed, and how database errors reach the user.

Every public method of the store is one transaction. Transactions that write start as
writers (on SQLite, ``BEGIN IMMEDIATE``: see `stoker.store.connection`), so checks made
before a write cannot be invalidated by another process in between. The store is split
by what it does: `stoker.store.reading`, `stoker.store.writing` (stack changes, resource
rows and events: one path, on the driver's cursor) and `stoker.store.claims` (leases,
cancel requests, snapshots), joined in `stoker.store.store.SqlStore`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, StatementError

from stoker.errors import DatabaseError
from stoker.store import failures, secrets
from stoker.store.codec import CODECS
from stoker.store.documents import DocumentDigests
from stoker.store.driver import Bulk
from stoker.store.errors import UnknownStack
from stoker.store.executor import Executor, Transaction
from stoker.store.fence import FenceCheck
from stoker.store.pragmas import WRITE


class StoreBase:
    """The state and helpers the reading, writing and claiming parts share."""

    def __init__(self, executor: Executor, sealer: secrets.Sealer, shown: str) -> None:
        #: the database as errors name it (the URL as given, password masked)
        self.shown = shown
        self._executor = executor
        self._sealer = sealer
        #: stack id -> whether its hidden values are sealed (a stack's never changes)
        self._sealed_stacks: dict[str, bool] = {}
        #: the digests of documents lately written or found (`put_documents`)
        self._digests = DocumentDigests()
        #: where the key came from (set by `open_store`), for `rotate_key`
        self.key_source: secrets.KeySource | None = None
        # A store dropped without close() still closes its connections (else each one
        # warns, or holds a PostgreSQL backend until the process ends).
        self._finalizer = weakref.finalize(self, executor.dispose)
        self._codec = CODECS[executor.dialect_name]
        self._sqlite = executor.dialect_name == "sqlite"
        # what the driver itself raises, on the cursor the writes use
        self._integrity_errors = executor.integrity_errors
        self._driver_errors = executor.driver_errors

    # The statements writes run, compiled when first needed (a reading command never
    # writes, and compiling them would lengthen its start-up).
    @property
    def _bulk(self) -> Bulk:
        return self._executor.bulk

    @property
    def _fence(self) -> FenceCheck:
        return self._executor.fence

    @property
    def executor(self) -> Executor:
        return self._executor

    @property
    def engine(self) -> Engine:
        """The store's SQLAlchemy engine: for what the catalog does not hold."""
        return self._executor.engine

    def close(self) -> None:
        self._finalizer()

    def _plain_errors(self) -> Any:
        return plain_errors(self.shown)

    @contextmanager
    def _reading(self) -> Iterator[Transaction]:
        with self._plain_errors(), self._executor.reading() as transaction:
            yield transaction

    @contextmanager
    def _writing(self) -> Iterator[Transaction]:
        with self._plain_errors(), self._executor.writing() as transaction:
            yield transaction

    @contextmanager
    def _sqlalchemy_writing(self) -> Iterator[Any]:
        """A SQLAlchemy connection in a write transaction (``BEGIN IMMEDIATE`` on SQLite),
        for the few writes outside the catalog (key rotation, software configs)."""
        engine = self.engine.execution_options(**{WRITE: True})
        with plain_errors(self.shown), engine.begin() as connection:
            yield connection

    @contextmanager
    def _sqlalchemy_reading(self) -> Iterator[Any]:
        with plain_errors(self.shown), self.engine.connect() as connection, connection.begin():
            yield connection

    def _is_sealed(self, transaction: Transaction, stack_id: str) -> bool:
        sealed = self._sealed_stacks.get(stack_id)
        if sealed is None:
            parameters = transaction.scalar("stack_parameters", {"stack_id": stack_id})
            sealed = secrets.is_sealed(parameters)
            self._sealed_stacks[stack_id] = sealed
        return sealed

    def _read_sealed(self, transaction: Transaction, stack_id: str) -> bool:
        """`_is_sealed` for a read, which goes by it to open what it reads: a stack known
        sealed stays so, but one known plain is looked at again (another process's update
        that adds a hidden parameter seals it from then on)."""
        if self._sealed_stacks.get(stack_id):
            return True
        self._sealed_stacks.pop(stack_id, None)
        return self._is_sealed(transaction, stack_id)

    def _learn_sealed(self, stack_ids: Iterable[str]) -> None:
        """Fill the cache of which stacks are sealed, in a read of its own (whether a stack
        is sealed never changes, so this need not share the write's transaction). The
        engine reads or creates a stack before writing to it, so this rarely reads."""
        missing = [i for i in stack_ids if i not in self._sealed_stacks]
        if missing:
            with self._reading() as transaction:
                for stack_id in missing:
                    self._is_sealed(transaction, stack_id)

    def _write_failed(self, stack_ids: Iterable[str | None], error: Exception) -> DatabaseError:
        """After a write failed on an integrity error: UnknownStack if one of the stacks it
        named is missing, else the DatabaseError to raise."""
        with self._reading() as transaction:
            for stack_id in sorted(i for i in stack_ids if i is not None):
                if not stack_exists(transaction, stack_id):
                    raise UnknownStack(stack_id) from error
        return database_error(error, self.shown)


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


def stack_exists(transaction: Transaction, stack_id: str) -> bool:
    return transaction.first("stack_exists", {"stack_id": stack_id}) is not None
