"""Executors: what `StoreBase` runs the statements of the catalog
(`stoker.store.statements`) on, by name, inside a transaction.

Two of them, chosen by `stoker.store.store.open_store`:

- `stoker.store.sqlite_executor.SqliteExecutor` (no SQLAlchemy): an up-to-date SQLite
  file, on the standard library's ``sqlite3``, with the SQL that SQLAlchemy compiled
  ahead of time (`stoker.store.compiled_sqlite`). SQLAlchemy's import is a large part of
  a short command; with this executor the stack commands never import it.
- `stoker.store.sa_executor.SqlAlchemyExecutor`: PostgreSQL, an in-memory SQLite
  database, or a SQLite file whose schema is not the head of the migrations (or when
  ``$STOKER_STORE_EXECUTOR`` is ``sqlalchemy``). It runs the catalog's constructs.

Both take and give the values SQLAlchemy's column types take and give (JSON as Python
data, aware UTC datetimes, booleans): the stdlib one converts them as the SQLite dialect and
`stoker.store.types.UTCDateTime` do, driven by the kind of each parameter and result
column recorded with the compiled SQL, so the store's code is the same over both. The
stdlib executor raises the driver's own exceptions (``sqlite3.Error``), which
`stoker.store.base.plain_errors` turns into the same one-line errors as SQLAlchemy's.

Transactions are the same on both: ``BEGIN`` for reads, ``BEGIN IMMEDIATE`` for writes
on SQLite, on connections with `stoker.store.pragmas`' settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from stoker.store.driver import Bulk
from stoker.store.fence import FenceCheck

if TYPE_CHECKING:
    from sqlalchemy import Engine

#: ``sqlalchemy`` makes every store use SQLAlchemy's executor (the other is ``auto``)
EXECUTOR_ENV = "STOKER_STORE_EXECUTOR"


class Transaction(Protocol):
    """Statements of the catalog, by name, in one transaction."""

    def rows(self, name: str, values: Mapping[str, Any] | None = None) -> list[Sequence[Any]]:
        """The rows a query (or a statement with RETURNING) gives."""
        ...

    def first(self, name: str, values: Mapping[str, Any] | None = None) -> Sequence[Any] | None: ...

    def scalar(self, name: str, values: Mapping[str, Any] | None = None) -> Any:
        """The first column of the first row, None if there is no row."""
        ...

    def count(self, name: str, values: Mapping[str, Any] | None = None) -> int:
        """Run a statement that changes rows; how many it matched."""
        ...

    def cursor(self) -> AbstractContextManager[Any]:
        """A driver cursor in this transaction (the bulk statements and the fence)."""
        ...


class Executor(Protocol):
    """One per store: its connections, transactions and compiled statements."""

    #: the backend: ``sqlite`` or ``postgresql``
    dialect_name: str
    #: what the driver raises for a broken constraint (and SQLAlchemy's wrapper of it)
    integrity_errors: tuple[type[Exception], ...]
    #: what the driver raises on the driver-cursor path
    driver_errors: tuple[type[Exception], ...]
    #: the driver's errors that `plain_errors` turns into one line (SQLAlchemy's
    #: executor: none, its wrappers are)
    plain_errors: tuple[type[Exception], ...]

    def reading(self) -> AbstractContextManager[Transaction]: ...

    def writing(self) -> AbstractContextManager[Transaction]: ...

    def driver_transaction(self) -> AbstractContextManager[Any]:
        """A write transaction as a bare driver cursor: committed if the block ends
        normally, else rolled back."""
        ...

    @property
    def bulk(self) -> Bulk: ...

    @property
    def fence(self) -> FenceCheck: ...

    @property
    def engine(self) -> Engine:
        """A SQLAlchemy engine on the same database (for what the catalog does not hold:
        key rotation, software configs, and tests)."""
        ...

    def dispose(self) -> None: ...
