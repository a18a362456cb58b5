"""The sandbox's state: one SQLite (or any SQLAlchemy) database of its own.

Every backend keeps its objects in one generic table, as documents: a row is
``(kind, id, project_id, data)`` where ``kind`` names the model (``compute.server``,
``image.image``...), ``project_id`` scopes it (``None``: shared by every project, as
flavors and public images are) and ``data`` is the object as the backend models it (a JSON
mapping). Backends own the shape of their documents; the store only keeps them, in
insertion order, so listings come back as the real services list them (oldest first).

SQLAlchemy Core, not the ORM: the sandbox serves one request at a time on its event loop,
each store call is one short statement, and no object identity is wanted.

The database is the record; reads come from a mirror of it in memory. A sandbox owns its
database while it runs (a second sandbox on the same database at the same time is not a
use it has), so every change goes through this store: it writes the row and the mirror
together, and a transaction that fails undoes the mirror's changes as the database rolls
back. Each kind is read from the database once, on first use; after that a listing is a
walk over the mirror in insertion order, and a request costs no SQL to read, which is
what lets one sandbox answer a hundred polling servers (docs/benchmarks.md).

The mirror holds each document decoded, as JSON gives it back (``json.loads`` of the text
written, so a tuple a backend stored reads back as a list, as it does from the database),
and every read hands out a deep copy of its own (`_copy`): a backend may change what it
read without touching the store. Decoding once per write instead of once per read matters:
a poll of a hundred servers read each one's text again, where a copy of the decoded value
is cheaper than decoding, and a filtered listing copies only what it returns.
"""

from __future__ import annotations

import builtins
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs
import sqlalchemy as sa
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.compiler import SQLCompiler

from stoker.errors import DatabaseError
from stoker.private_files import prepare_sqlite_file

Document = dict[str, Any]

#: the JSON containers, copied deeply; every other JSON value is immutable and shared
_CONTAINERS = (dict, list)


def _copy(value: Any) -> Any:
    """A deep copy of a decoded JSON value (``copy.deepcopy`` costs several times as much:
    it keeps a memo and dispatches per type, which JSON's tree-shaped data does not need)."""
    if type(value) is dict:
        return {k: _copy(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) if type(v) in _CONTAINERS else v for v in value]
    return value


def copy_document(document: Mapping[str, Any]) -> Document:
    """A deep copy of a document `SandboxStore.scan` gave, for a reader that will change
    it (or hand it to code that may)."""
    return {k: _copy(v) if type(v) in _CONTAINERS else v for k, v in document.items()}


metadata = sa.MetaData()

objects = sa.Table(
    "sandbox_objects",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(64), nullable=False),
    sa.Column("id", sa.String(255), nullable=False),
    sa.Column("project_id", sa.String(64), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.UniqueConstraint("kind", "id", name="uq_sandbox_objects_kind_id"),
    sa.Index("ix_sandbox_objects_kind_project", "kind", "project_id"),
)

#: the writes, made once with their parameters bound per call: building a statement per
#: write (``insert().values(...)``) cost more than executing it, and a hundred servers
#: with ports make hundreds of writes
_INSERT = objects.insert()
_UPDATE = (
    objects.update()
    .where(objects.c.kind == sa.bindparam("_kind"), objects.c.id == sa.bindparam("_id"))
    .values(data=sa.bindparam("_data"))
)
_DELETE = objects.delete().where(
    objects.c.kind == sa.bindparam("_kind"), objects.c.id == sa.bindparam("_id")
)


class _Write:
    """One of the writes as the database's driver runs it: SQLAlchemy compiles it once for
    the dialect, and each call hands that SQL and its values to a cursor of the connection
    SQLAlchemy's transaction holds (so it commits or rolls back with the rest). Core's
    ``execute`` spends several times the driver's time on its bookkeeping (execution
    context, cache key, result), and a bulk POST of 50 ports makes 150 writes. Its
    columns are text, which neither SQLite's nor psycopg's dialect converts on the way in;
    a driver's error is raised as the driver's, a 500 either way."""

    def __init__(self, statement: sa.ClauseElement, dialect: sa.Dialect, keys: list[str]) -> None:
        compiled = statement.compile(dialect=dialect, column_keys=keys)
        assert isinstance(compiled, SQLCompiler)
        self.sql = str(compiled)
        #: the parameters' order for a positional paramstyle (SQLite's ``?``); None: named
        self.order = tuple(compiled.positiontup or ()) if compiled.positional else None

    def run(self, connection: sa.Connection, values: dict[str, Any]) -> int:
        """Run it; the rows it matched."""
        order = self.order
        parameters = values if order is None else tuple(values[key] for key in order)
        cursor = connection.connection.cursor()
        try:
            cursor.execute(self.sql, parameters)
            return int(cursor.rowcount)
        finally:
            cursor.close()


def default_url() -> str:
    """The sandbox's database when ``--db`` is not given: beside stoker's own store, but a
    file of its own (the sandbox is a cloud, not a part of stoker's state)."""
    directory = platformdirs.user_data_path("stoker", appauthor=False)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: it holds tokens
    return f"sqlite:///{directory / 'sandbox.db'}"


def _engine_for(url: str) -> sa.Engine:
    if "://" not in url:  # a plain file path, as stoker's --db accepts
        url = f"sqlite:///{Path(url).expanduser()}"
    if url in ("sqlite://", "sqlite:///:memory:"):
        # one connection shared by every thread: an in-memory database exists per connection
        return sa.create_engine(
            "sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    if url.startswith("sqlite"):
        # a new file is made 0600 first: SQLite would make it with the umask's mode
        prepare_sqlite_file(sa.engine.make_url(url).database or "")
        return sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
    parsed = sa.engine.make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        # psycopg 3, the driver stoker depends on (SQLAlchemy's default is psycopg2)
        parsed = parsed.set(drivername="postgresql+psycopg")
    return sa.create_engine(parsed)


def _redacted(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return url


class SandboxStore:
    """Documents by kind and id; see the module docstring."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            self.engine = _engine_for(url)
            metadata.create_all(self.engine)
        except (sa.exc.SQLAlchemyError, ImportError, ValueError) as error:
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            shown = _redacted(url)
            raise DatabaseError(f"cannot open the sandbox database {shown}: {reason}") from None
        dialect = self.engine.dialect
        self._insert = _Write(_INSERT, dialect, ["kind", "id", "project_id", "data"])
        self._update = _Write(_UPDATE, dialect, ["_kind", "_id", "_data"])
        self._delete = _Write(_DELETE, dialect, ["_kind", "_id"])
        self._connection: sa.Connection | None = None
        #: kind -> id -> (project_id, the document decoded), in insertion order; never
        #: handed out (reads copy it)
        self._mirror: dict[str, dict[str, tuple[str | None, Document]]] = {}
        self._lock = threading.RLock()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group a backend's writes: all of them happen or none (an operation that fails
        half way, a port that cannot be allocated say, leaves nothing behind). The mirror
        is dropped when one fails: read again, it is what the database kept."""
        with self._lock:
            if self._connection is not None:
                yield
                return
            try:
                with self.engine.begin() as connection:
                    self._connection = connection
                    try:
                        yield
                    finally:
                        self._connection = None
            except BaseException:
                self._mirror.clear()
                raise

    @contextmanager
    def _conn(self) -> Iterator[sa.Connection]:
        if self._connection is not None:
            yield self._connection
        else:
            with self.engine.begin() as connection:
                yield connection

    def _kind(self, kind: str) -> dict[str, tuple[str | None, Document]]:
        """The mirror of ``kind``, read from the database on first use."""
        known = self._mirror.get(kind)
        if known is None:
            query = (
                sa.select(objects.c.id, objects.c.project_id, objects.c.data)
                .where(objects.c.kind == kind)
                .order_by(objects.c.seq)
            )
            with self._conn() as connection:
                rows = connection.execute(query).all()
            known = self._mirror[kind] = {
                row.id: (row.project_id, json.loads(row.data)) for row in rows
            }
        return known

    def insert(self, kind: str, id: str, data: Mapping[str, Any], project_id: str | None) -> None:
        text = json.dumps(data)
        with self._lock, self._conn() as connection:
            self._insert.run(
                connection, {"kind": kind, "id": id, "project_id": project_id, "data": text}
            )
            self._kind(kind)[id] = (project_id, json.loads(text))

    def put(self, kind: str, id: str, data: Mapping[str, Any]) -> None:
        """Replace an existing document (its project and place in listings stay)."""
        text = json.dumps(data)
        with self._lock, self._conn() as connection:
            self._update.run(connection, {"_kind": kind, "_id": id, "_data": text})
            documents = self._kind(kind)
            known = documents.get(id)
            if known is not None:
                documents[id] = (known[0], json.loads(text))

    def get(self, kind: str, id: str) -> Document | None:
        with self._lock:
            known = self._kind(kind).get(id)
        return None if known is None else copy_document(known[1])

    def project_of(self, kind: str, id: str) -> str | None:
        with self._lock:
            known = self._kind(kind).get(id)
        return None if known is None else known[0]

    def list(
        self,
        kind: str,
        *,
        project_id: str | None = None,
        where: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> list[Document]:
        """Documents of ``kind`` in insertion order: of ``project_id``, or of every project
        when it is None; with ``where``, those it passes. ``where`` sees the mirror's own
        document, so it must only read it (only what it passes is copied: a filter over
        many documents that keeps few costs little)."""
        entries = self.scan(kind, project_id=project_id)
        return [copy_document(document) for document in entries if where is None or where(document)]

    def scan(self, kind: str, *, project_id: str | None = None) -> builtins.list[Mapping[str, Any]]:
        """The documents `list` would give (without ``where``), but the mirror's own, not
        copies: for a read that only looks, as a listing rendered into a response does, so
        that a poll of a hundred servers copies none of them. Never change one (a change
        goes through `put`, with a document of the caller's)."""
        with self._lock:
            entries = builtins.list(self._kind(kind).values())
        if project_id is None:
            return [document for _, document in entries]
        return [document for owner, document in entries if owner == project_id]

    def count(self, kind: str, *, project_id: str | None = None) -> int:
        with self._lock:
            entries = self._kind(kind).values()
            if project_id is None:
                return len(entries)
            return sum(1 for e in entries if e[0] == project_id)

    def delete(self, kind: str, id: str) -> bool:
        with self._lock, self._conn() as connection:
            deleted = self._delete.run(connection, {"_kind": kind, "_id": id})
            if deleted:
                self._kind(kind).pop(id, None)
        return bool(deleted)

    def close(self) -> None:
        self.engine.dispose()
