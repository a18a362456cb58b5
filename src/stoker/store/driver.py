"""A statement handed straight to the driver, with values already converted: the form of
the bulk writes (`stoker.store.bulk`), compiled by SQLAlchemy once per store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.engine import Dialect


@dataclass(frozen=True, slots=True)
class DriverStatement:
    """SQL text that takes rows of values in ``fields`` order: by ``executemany`` of
    tuples, or (``columnar``) in one execution with one list per field. ``named``: the
    driver wants each row as a mapping (psycopg's ``%(name)s``), not a tuple."""

    sql: str
    fields: tuple[str, ...]
    columnar: bool
    named: bool = False

    def execute(self, cursor: Any, rows: Sequence[tuple[Any, ...]]) -> int:
        """On a driver cursor (see `stoker.store.writing.StoreWrites._apply`); the row count."""
        if self.columnar:
            cursor.execute(self.sql, self._columns(rows))
        elif len(rows) == 1:
            cursor.execute(self.sql, self._rows(rows)[0])
        else:
            cursor.executemany(self.sql, self._rows(rows))
        return int(cursor.rowcount)

    def _rows(self, rows: Sequence[tuple[Any, ...]]) -> list[Any]:
        if self.named:
            return [dict(zip(self.fields, row, strict=True)) for row in rows]
        return list(rows)

    def _columns(self, rows: Sequence[tuple[Any, ...]]) -> dict[str, list[Any]]:
        columns = [list(column) for column in zip(*rows, strict=True)]
        return dict(zip(self.fields, columns, strict=True))


def one_row(statement: Any, dialect: Dialect, fields: Sequence[str]) -> DriverStatement:
    """``statement`` compiled for ``dialect`` as a one-row `DriverStatement` whose values
    come as a tuple in ``fields`` order (as a mapping for a driver with named
    placeholders, such as psycopg's ``%(name)s``)."""
    compiled = statement.compile(dialect=dialect)
    if compiled.positional and tuple(compiled.positiontup or ()) != tuple(fields):
        raise AssertionError(f"bind order {compiled.positiontup} is not {tuple(fields)}")
    return DriverStatement(compiled.string, tuple(fields), False, named=not compiled.positional)


@dataclass(frozen=True, slots=True)
class Bulk:
    """The bulk statements of one backend (`stoker.store.bulk.BulkStatements` builds
    them with SQLAlchemy)."""

    upsert_resources: DriverStatement
    insert_events: DriverStatement
    set_stack_status: DriverStatement
    delete_resource: DriverStatement
    set_resource_state: DriverStatement
