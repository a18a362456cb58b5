"""A database that fails: read-only, missing, damaged, or a server that goes away in the
middle of an operation. Each is one line naming the database (password masked), a
non-zero exit, nothing half-written, and an interrupted stack that `stack recover` can
finish. And names longer than 255 characters are stored whole on both backends.

The faults are real: a file made immutable (``chattr +i``, as root ignores file modes) or
unwritable, bytes overwritten on disk, a PostgreSQL backend ended by
``pg_terminate_backend`` from another connection while the operation is stopped at a
chosen point (`stoker.engine.testpoints`), with the database closed to new connections
when it is to stay away.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from sqlalchemy import make_url
from sqlalchemy.dialects import postgresql

from stoker.cli.main import cli
from stoker.engine.state import Action, Status, WriteBatch
from stoker.engine.testpoints import ENV as STOP_AT
from stoker.store import SqlStore, open_store
from stoker.store.bulk import BulkStatements

from . import factories as f

CHAIN = """\
heat_template_version: wallaby
resources:
  a: {type: OS::Heat::TestResource, properties: {value: a}}
  b: {type: OS::Heat::TestResource, depends_on: [a], properties: {value: b}}
  c: {type: OS::Heat::TestResource, depends_on: [b], properties: {value: c}}
  d: {type: OS::Heat::TestResource, depends_on: [c], properties: {value: d}}
"""

LONG = "r" * 300


# -- names longer than 255 characters ------------------------------------------------------


def test_long_resource_names_and_types_are_stored_whole(store: SqlStore) -> None:
    record = f.stack()
    store.create_stack(record, [f.resource(record.id, LONG, type="/" + "t" * 299)], [])
    store.write(WriteBatch(events=[f.event(record.id, LONG)]))
    assert [r.name for r in store.resources(record.id)] == [LONG]
    assert store.resources(record.id)[0].type == "/" + "t" * 299
    assert [e.resource_name for e in store.events(record.id)] == [LONG]


def test_postgresql_bulk_writes_never_cast_to_a_bounded_type() -> None:
    """An explicit ``::VARCHAR(n)[]`` cast cuts a longer value without a word; as text the
    insert itself refuses a value its column cannot hold."""
    statements = BulkStatements(postgresql.dialect())
    for statement in (statements.upsert_resources, statements.insert_events):
        assert "VARCHAR" not in statement.sql.upper(), statement.sql


def test_a_300_character_resource_name_is_created_and_shown_whole(
    store_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(
        "heat_template_version: wallaby\nresources:\n"
        f"  {LONG}: {{type: OS::Heat::TestResource, properties: {{value: a}}}}\n"
        f"  after: {{type: OS::Heat::TestResource, depends_on: [{LONG}]}}\n"
    )
    runner = CliRunner()
    created = runner.invoke(cli, ["--db", store_url, "stack", "create", "s", "-t", str(path)])
    assert created.exit_code == 0, created.output
    listed = runner.invoke(
        cli,
        ["--db", store_url, "stack", "resource", "list", "s", "-f", "value", "-c", "resource_name"],
    )
    assert sorted(listed.stdout.split()) == sorted([LONG, "after"])


# -- SQLite files that cannot be used --------------------------------------------------


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stoker(db: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", db, *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stderr


def _one_line(stderr: str, names: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert names in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def populated(tmp_path: Path) -> Path:
    """A SQLite database holding one complete stack ``s``, closed (no -wal or -shm left)."""
    template = tmp_path / "chain.yaml"
    template.write_text(CHAIN)
    db = tmp_path / "state" / "s.db"
    db.parent.mkdir()
    code, stderr = _stoker(str(db), "stack", "create", "s", "-t", str(template))
    assert code == 0, stderr
    assert not db.with_name("s.db-wal").exists()
    return db


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (and its directory) unwritable for this process, for real."""
    if os.geteuid() == 0:  # root writes through file modes: make the file immutable
        if shutil.which("chattr") is None:
            pytest.skip("running as root without chattr: no way to make a file read-only")
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"chattr +i is not possible here: {made.stderr.strip()}")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        return
    path.chmod(0o400)  # (not verified here: the suite runs as root, which takes the branch above)
    try:
        yield
    finally:
        path.chmod(0o600)


def test_a_read_only_database_file(populated: Path, tmp_path: Path) -> None:
    template = tmp_path / "chain.yaml"
    before = _digest(populated)
    with read_only(populated):
        for command in (
            ["stack", "create", "t", "-t", str(template)],
            ["stack", "delete", "s", "--yes"],
        ):
            code, stderr = _stoker(str(populated), *command)
            assert code == 1, stderr
            line = _one_line(stderr, str(populated))
            assert "read-only" in line or "may you write to it" in line, line
        code, stderr = _stoker(str(populated), "stack", "list")  # reading still works
        assert code == 0, stderr
    assert _digest(populated) == before  # nothing half-written
    with open_store(str(populated)) as store:
        record = store.get_stack("s", "default")
        assert record is not None and record.status is Status.COMPLETE
        assert store.get_stack("t", "default") is None


def test_a_missing_directory(tmp_path: Path) -> None:
    db = tmp_path / "no" / "such" / "dir" / "s.db"
    code, stderr = _stoker(str(db), "stack", "list")
    assert code == 1
    _one_line(stderr, str(db))
    assert not (tmp_path / "no").exists()  # nothing made on the way


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated", "zeroed-pages", "garbage-in-a-page"],
)
def test_a_damaged_sqlite_file(populated: Path, damage: str) -> None:
    noise = random.Random(f"{damage}-11").randbytes  # the same damage on every run
    size = populated.stat().st_size
    pages = size // 4096
    if damage == "garbage":
        populated.write_bytes(noise(size))
    elif damage == "truncated":
        with populated.open("r+b") as handle:
            handle.truncate(size // 2)
    elif damage == "zeroed-pages":  # blocks never written: every page after the schema's
        with populated.open("r+b") as handle:
            for page in range(2, pages):
                handle.seek(page * 4096)
                handle.write(b"\0" * 4096)
    else:
        # Noise from past the page header to the page's end, where a b-tree page keeps its
        # cells: damage only in the middle of a page can land in free space alone (it did
        # once the schema grew), and then there is nothing damaged for SQLite to notice.
        with populated.open("r+b") as handle:
            for page in range(2, pages):
                handle.seek(page * 4096 + 200)
                handle.write(noise(4096 - 200))
    before = _digest(populated)
    template = populated.parent.parent / "chain.yaml"
    for command in (
        ["stack", "list"],
        ["stack", "show", "s"],
        ["stack", "event", "list", "s"],
        ["stack", "create", "t", "-t", str(template)],
        ["stack", "delete", "s", "--yes"],
    ):
        code, stderr = _stoker(str(populated), *command)
        if code == 0:  # a damaged page the command never reads: only reads may pass
            assert command[1] in {"list", "show"}, (command, stderr)
            continue
        assert code == 1, stderr
        _one_line(stderr, str(populated))
    assert _digest(populated) == before  # nothing written into a damaged file


# -- a PostgreSQL server that goes away mid-operation ---------------------------------


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def own_pg_database(pg_server) -> Iterator[str]:
    """A database of its own (it is closed to connections in a test), with a password in
    its URL (trust authentication ignores it) so the error must mask it."""
    url = pg_server.create_database()
    try:
        yield make_url(url).set(password="hunter2-secret").render_as_string(hide_password=False)
    finally:
        pg_server.drop_database(url)


def _stack_process(url: str, point: str, *args: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "stoker", "--db", url, "stack", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, STOP_AT: point},
    )
    _, status = os.waitpid(process.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), f"the process ended before {point}"
    return process


def _end_connections(server_url: str, database: str, *, close: bool) -> int:
    with psycopg.connect(_libpq(server_url), autocommit=True) as connection:
        if close:
            connection.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        query = (
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()"
        )
        row = connection.execute(query, (database,)).fetchone()
        return int(row[0]) if row else 0


def _reopen(server_url: str, database: str) -> None:
    with psycopg.connect(_libpq(server_url), autocommit=True) as connection:
        connection.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')


def _assert_each_created_once(store: SqlStore, name: str) -> None:
    record = store.get_stack(name, "default")
    assert record is not None
    assert (record.action, record.status) == (Action.CREATE, Status.COMPLETE)
    completions = collections.Counter(
        e.resource_name
        for e in store.events(record.id)
        if (e.action, e.status) == (Action.CREATE, Status.COMPLETE)
        and e.resource_type != "OS::Heat::Stack"
    )
    assert completions == dict.fromkeys("abcd", 1)


@pytest.mark.slow
@pytest.mark.parametrize("point", ["before_handler:2", "after_complete:2"])
def test_a_postgresql_server_that_goes_away_mid_create(
    own_pg_database: str, pg_server, tmp_path: Path, point: str
) -> None:
    """The server ends the create's connections and accepts no new ones: the create stops
    with one line naming the database (password masked), the stack stays
    CREATE_IN_PROGRESS, and once the server is back `stack recover` finishes it, each
    resource created once."""
    url = own_pg_database
    database = make_url(url).database
    assert database is not None
    template = tmp_path / "chain.yaml"
    template.write_text(CHAIN)
    process = _stack_process(url, point, "create", "s", "-t", str(template))
    try:
        assert _end_connections(pg_server.url, database, close=True) >= 1
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGCONT)
    _, stderr = process.communicate(timeout=120)
    try:
        assert process.returncode == 1, stderr
        line = [x for x in stderr.splitlines() if x.startswith("error: ")]
        assert len(line) == 1 and "Traceback" not in stderr, stderr
        assert "hunter2-secret" not in stderr
        assert "on postgresql://postgres:***@" in line[0] and database in line[0], line[0]
        assert "stack recover" in line[0], line[0]
    finally:
        _reopen(pg_server.url, database)
    with open_store(url) as store:
        record = store.get_stack("s", "default")
        assert record is not None
        assert (record.action, record.status) == (Action.CREATE, Status.IN_PROGRESS)
        resumed = subprocess.run(
            [sys.executable, "-m", "stoker", "--db", url, "stack", "recover", "s"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert resumed.returncode == 0, resumed.stderr
        _assert_each_created_once(store, "s")


@pytest.mark.slow
def test_a_postgresql_connection_ended_mid_create_is_replaced(
    own_pg_database: str, pg_server, tmp_path: Path
) -> None:
    """The server ends the connection but stays up: the create carries on with a new
    connection and completes, nothing written twice."""
    url = own_pg_database
    database = make_url(url).database
    assert database is not None
    template = tmp_path / "chain.yaml"
    template.write_text(CHAIN)
    process = _stack_process(url, "before_handler:2", "create", "s", "-t", str(template))
    try:
        assert _end_connections(pg_server.url, database, close=False) >= 1
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGCONT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    with open_store(url) as store:
        _assert_each_created_once(store, "s")
