"""Database fixtures: every store test runs on SQLite and on PostgreSQL (and the tests of
tests/store on SQLite through each executor, see tests/store/conftest.py).

Shared by every test folder (the engine tests use them too):
`store_url` names a clean database of each backend, `store` opens it. The key that seals
hidden values lives in one file for the whole session (`secret_key_file`).

PostgreSQL: the server is ``$STOKER_TEST_PG_URL`` or ``postgresql://postgres@127.0.0.1:5432/
postgres``. A throw-away database ``stoker_test_<hex>`` is created for the session, migrated
once, emptied before each test, and dropped at the end. If the server cannot be reached,
the PostgreSQL half is skipped with the reason; the SQLite half still runs.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

from stoker.store import SqlStore, open_store
from stoker.store.executor import EXECUTOR_ENV
from stoker.store.models import metadata
from stoker.store.secrets import KEY_FILE_ENV

PG_ENV = "STOKER_TEST_PG_URL"
PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres"
BACKENDS = ("sqlite", "postgresql")
#: SQLite through SQLAlchemy's executor (`stoker.store.executor`): tests/store's third
SQLITE_SQLALCHEMY = "sqlite-sqlalchemy"


def pg_server_url() -> str:
    """The PostgreSQL server (any database on it) that test databases are made on."""
    return os.environ.get(PG_ENV, "").strip() or PG_DEFAULT


def _libpq(url: str) -> str:
    """A URL psycopg itself accepts (no SQLAlchemy ``+driver`` part)."""
    parsed = make_url(url)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def pg_unreachable_reason(url: str | None = None) -> str | None:
    """None if the server answers, else why the PostgreSQL half is skipped."""
    url = url or pg_server_url()
    try:
        with psycopg.connect(_libpq(url), connect_timeout=3, autocommit=True):
            return None
    except psycopg.Error as error:
        shown = make_url(url).render_as_string(hide_password=True)
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        return (
            f"PostgreSQL not reachable at {shown} ({first_line}): the PostgreSQL half was skipped"
        )


class PgServer:
    """Creates and drops databases on the test server."""

    def __init__(self, url: str) -> None:
        self.url = url

    def create_database(self) -> str:
        name = f"stoker_test_{secrets.token_hex(6)}"
        with psycopg.connect(_libpq(self.url), autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return make_url(self.url).set(database=name).render_as_string(hide_password=False)

    def drop_database(self, url: str) -> None:
        name = make_url(url).database
        assert name is not None and name.startswith("stoker_test_")
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        with psycopg.connect(_libpq(self.url), autocommit=True) as connection:
            connection.execute(drop)


@pytest.fixture(scope="session", autouse=True)
def user_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's data directory (platformdirs: ``$XDG_DATA_HOME``) in a temporary one for
    the session, so no test (nor a process it starts) writes a database or a key file in
    the real one, even one that unsets the key file's variable."""
    path = tmp_path_factory.mktemp("xdg-data")
    saved = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(path)
    try:
        yield path
    finally:
        if saved is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = saved


@pytest.fixture(scope="session", autouse=True)
def secret_key_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One key file for the session's databases, so no test (nor a `stoker` process it
    starts, which inherits the environment) makes one in the user's data directory.
    Tests of where the key lives unset it."""
    path = tmp_path_factory.mktemp("secrets") / "secret.key"
    saved = os.environ.get(KEY_FILE_ENV)
    os.environ[KEY_FILE_ENV] = str(path)
    try:
        yield path
    finally:
        if saved is None:
            os.environ.pop(KEY_FILE_ENV, None)
        else:
            os.environ[KEY_FILE_ENV] = saved


@pytest.fixture(scope="session")
def pg_server() -> PgServer:
    """The PostgreSQL test server; skips the test if it cannot be reached."""
    reason = pg_unreachable_reason()
    if reason is not None:
        pytest.skip(reason)
    return PgServer(pg_server_url())


@pytest.fixture(scope="session")
def pg_database_url(pg_server: PgServer) -> Iterator[str]:
    """A migrated throw-away database for the whole session, dropped at the end."""
    url = pg_server.create_database()
    try:
        open_store(url).close()
        yield url
    finally:
        pg_server.drop_database(url)


def _empty_pg_tables(url: str) -> None:
    tables = sql.SQL(", ").join(sql.Identifier(t.name) for t in metadata.sorted_tables)
    with psycopg.connect(_libpq(url), autocommit=True) as connection:
        connection.execute("SET lock_timeout = '10s'")  # a leaked transaction fails loudly
        connection.execute(sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(tables))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _sqlite_executor(backend: str, request: pytest.FixtureRequest) -> None:
    """``sqlite-sqlalchemy`` (tests/store's third backend): SQLite through SQLAlchemy's
    executor, for this test and the processes it starts."""
    if backend == SQLITE_SQLALCHEMY:
        monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setenv(EXECUTOR_ENV, "sqlalchemy")


@pytest.fixture
def store_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database with no data of each backend: a new SQLite file (not yet created) or the
    session's PostgreSQL database, emptied."""
    if backend.startswith("sqlite"):
        _sqlite_executor(backend, request)
        return f"sqlite:///{tmp_path / 'stoker.db'}"
    url: str = request.getfixturevalue("pg_database_url")
    _empty_pg_tables(url)
    return url


@pytest.fixture
def fresh_database_url(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """An empty database with no schema at all (for migration tests)."""
    if backend.startswith("sqlite"):
        _sqlite_executor(backend, request)
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.create_database()
    try:
        yield url
    finally:
        server.drop_database(url)


@pytest.fixture
def store(store_url: str) -> Iterator[SqlStore]:
    with open_store(store_url) as opened:
        yield opened


@pytest.fixture
def open_stores(store_url: str) -> Iterator[Callable[[], SqlStore]]:
    """Opens more stores on the same database (a second engine, as another process has)."""
    opened: list[SqlStore] = []

    def make() -> SqlStore:
        opened.append(open_store(store_url))
        return opened[-1]

    yield make
    for each in opened:
        each.close()
