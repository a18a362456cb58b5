"""The shipped migrations: they build the models' schema, idempotently and concurrently.

A new database is made without Alembic (`stoker.store.migrate.create_at_head`: the
models' tables and Alembic's version table written through SQLAlchemy): the tests below
check with Alembic itself that this is the database its migrations build, at its head.
"""

from __future__ import annotations

import multiprocessing
import re
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, inspect
from sqlalchemy.schema import CreateTable

from stoker.store import open_store
from stoker.store.connection import create_store_engine
from stoker.store.migrate import (
    HEAD,
    VERSION,
    VERSION_TABLE,
    alembic_config,
    current_revisions,
    upgrade_to_head,
)
from stoker.store.models import ddl_metadata
from stoker.store.urls import sqlalchemy_url

from . import workers


def _head_revisions() -> set[str]:
    """The heads of the shipped migrations, as Alembic reads them."""
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


pytestmark = pytest.mark.heavy

HELLO = str(Path(__file__).parents[2] / "examples" / "hello.yaml")


def _differences(url: str) -> list[object]:
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, ddl_metadata(connection.dialect.name)))
    finally:
        engine.dispose()


def test_the_head_constant_is_the_newest_migration() -> None:
    """A new migration without `HEAD` moved to it fails here (a new database would be
    stamped at the older revision, and Alembic would then replay the new migration over
    tables that already have its change)."""
    assert _head_revisions() == {HEAD}
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == HEAD


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_the_version_table_is_the_one_alembic_makes(dialect: str) -> None:
    """`VERSION` is Alembic's own version table, as its ``version_table_impl`` (the hook
    Alembic makes its table with) declares it, in the DDL of each backend."""
    context = MigrationContext.configure(dialect_name=dialect)
    alembic = context.impl.version_table_impl(
        version_table=VERSION_TABLE, version_table_schema=None, version_table_pk=True
    )
    ddl = CreateTable(VERSION).compile(dialect=context.dialect)
    assert str(ddl) == str(CreateTable(alembic).compile(dialect=context.dialect))
    assert "version_num VARCHAR(32) NOT NULL" in str(ddl)


def test_migrated_schema_matches_the_models(fresh_database_url: str) -> None:
    open_store(fresh_database_url).close()
    assert _differences(fresh_database_url) == []


def test_migrated_database_has_every_table_and_index(fresh_database_url: str) -> None:
    open_store(fresh_database_url).close()
    engine = create_store_engine(fresh_database_url)
    try:
        inspector = inspect(engine)
        tables = set(inspector.get_table_names())
        assert {"stacks", "resources", "events", "raw_templates", "alembic_version"} <= tables
        stack_indexes = {index["name"]: index for index in inspector.get_indexes("stacks")}
        live_names = stack_indexes["uq_stacks_project_name_live"]
        assert live_names["unique"]
        # partial on both backends (the models state the condition for SQLite only: see
        # stoker.store.models), so a deleted stack's name is free again
        where = live_names.get("dialect_options", {}).get(f"{engine.dialect.name}_where")
        assert "deleted_at IS NULL" in str(where), live_names
        unique = inspector.get_unique_constraints("resources")
        assert [u["column_names"] for u in unique] == [["stack_id", "name"]]
    finally:
        engine.dispose()


def test_opening_again_is_a_no_op(fresh_database_url: str) -> None:
    with open_store(fresh_database_url) as store:
        upgrade_to_head(store.engine)  # directly, a second time on the same engine
        with store.engine.connect() as connection:
            assert current_revisions(connection) == _head_revisions() == {HEAD}
    with open_store(fresh_database_url) as store:
        assert store.count_stacks("demo") == 0
    assert _differences(fresh_database_url) == []


def test_downgrade_to_nothing_and_up_again(fresh_database_url: str) -> None:
    open_store(fresh_database_url).close()
    engine = create_store_engine(fresh_database_url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
    open_store(fresh_database_url).close()
    assert _differences(fresh_database_url) == []


@pytest.mark.slow  # moved out of the default suite: its 90 s budget
def test_concurrent_openers_of_a_new_database(fresh_database_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(3)
    results = context.Queue()
    processes = [
        context.Process(target=workers.open_and_report, args=(fresh_database_url, barrier, results))
        for _ in range(3)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert outcomes == [("ok", 0)] * 3
    assert _differences(fresh_database_url) == []


def test_a_sqlite_database_with_stacks_upgrades_from_an_older_schema(tmp_path) -> None:
    """SQLite alters a table by rebuilding it: with foreign keys enforced, dropping
    ``stacks`` under its resources failed, so a database holding stacks could not be
    upgraded (found on a database made at revision 0003)."""
    import subprocess
    import sys

    from sqlalchemy import create_engine

    db = tmp_path / "stoker.db"
    url = f"sqlite:///{db}"
    made = subprocess.run(
        [sys.executable, "-m", "stoker", "--db", url, "stack", "create", "s", "-t", HELLO]
        + ["--parameter", "db_password=s3cret-value"],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    plain = create_engine(url)  # no enforced foreign keys: take the file back to 0002
    try:
        with plain.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0002")
    finally:
        plain.dispose()
    with open_store(url) as store:  # upgrades to head
        (stack,) = store.list_stacks("default")
        assert len(store.resources(stack.id)) == 4
    assert _differences(url) == []


def _schema(url: str) -> dict[str, object]:
    """Every table's columns, keys, indexes and constraints, as SQLAlchemy reads them."""
    engine = create_store_engine(url)
    try:
        inspector = inspect(engine)
        return {
            table: {
                # by name: columns a migration added come last in a migrated table
                "columns": sorted(
                    (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                    for c in inspector.get_columns(table)
                ),
                "primary_key": inspector.get_pk_constraint(table),
                "foreign_keys": sorted(
                    inspector.get_foreign_keys(table), key=lambda f: str(f["name"])
                ),
                "indexes": sorted(
                    (
                        {
                            **i,
                            "dialect_options": {
                                k: str(v) for k, v in i.get("dialect_options", {}).items()
                            },
                        }
                        for i in inspector.get_indexes(table)
                    ),
                    key=lambda i: str(i["name"]),
                ),
                "unique": sorted(
                    inspector.get_unique_constraints(table), key=lambda u: str(u["name"])
                ),
                "checks": sorted(
                    inspector.get_check_constraints(table), key=lambda c: str(c["name"])
                ),
            }
            for table in sorted(inspector.get_table_names())
        }
    finally:
        engine.dispose()


def _migrated_step_by_step(url: str) -> None:
    """Alembic's upgrade of an empty database through every migration, one by one."""
    engine = create_store_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()


def _alembic_heads(url: str) -> set[str]:
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            return set(MigrationContext.configure(connection).get_current_heads())
    finally:
        engine.dispose()


def test_a_new_database_is_made_at_head_as_the_migrations_make_it(
    fresh_database_url: str, backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A new store gets the models' tables in one step, stamped at head by Alembic,
    without replaying the migrations; the result is the schema the migrations build step
    by step (tables, columns and their types, nullability and defaults, keys, indexes and
    constraints, as SQLAlchemy's inspection reads them), on each backend."""
    made = fresh_database_url
    open_store(made).close()  # a new database: made at head without Alembic
    server = None
    if backend.startswith("sqlite"):
        migrated = f"sqlite:///{tmp_path / 'migrated.db'}"
    else:
        server = request.getfixturevalue("pg_server")
        migrated = server.create_database()
    try:
        _migrated_step_by_step(migrated)
        assert _schema(made) == _schema(migrated)  # the version table's included
        assert _alembic_heads(made) == _alembic_heads(migrated) == _head_revisions() == {HEAD}
        # the models are what the migrations build, as Alembic's autogenerate compares
        assert _differences(migrated) == []
    finally:
        if server is not None:
            server.drop_database(migrated)
    assert _differences(made) == []


def test_alembic_sees_a_new_database_at_its_head_and_upgrades_nothing(
    fresh_database_url: str,
) -> None:
    """After a new database is made without Alembic, Alembic reads it as at the head of
    its scripts, and its ``upgrade head`` runs no migration: no statement that would
    create, alter or write anything, and the schema is as it was."""
    open_store(fresh_database_url).close()
    before = _schema(fresh_database_url)
    engine = create_store_engine(fresh_database_url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, sql, *_: statements.append(sql))
    try:
        with engine.begin() as connection:
            context = MigrationContext.configure(connection)
            script = ScriptDirectory.from_config(alembic_config())
            assert context.get_current_revision() == script.get_current_head() == HEAD
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()
    assert statements  # the listener saw Alembic's statements
    writes = re.compile(r"\s*(CREATE|ALTER|DROP|INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
    assert [sql for sql in statements if writes.match(sql)] == []
    assert _schema(fresh_database_url) == before
    assert _alembic_heads(fresh_database_url) == {HEAD}


_OPEN_AND_LIST_MODULES = """
import sys
from stoker.store import open_store
with open_store(sys.argv[1]) as store:
    assert store.count_stacks("demo") == 0
print(" ".join(sorted(sys.modules)))
"""


def test_a_new_database_is_made_without_importing_alembic(fresh_database_url: str) -> None:
    """Alembic's package imports its whole runtime (with Mako and every SQLAlchemy
    dialect) whichever part of it is used: the first opener of a new database does
    without it, and imports no other backend's dialect either."""
    made = subprocess.run(
        [sys.executable, "-c", _OPEN_AND_LIST_MODULES, fresh_database_url],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    modules = made.stdout.split()
    backend = sqlalchemy_url(fresh_database_url).get_backend_name()
    other = {"sqlite": "postgresql", "postgresql": "sqlite"}[backend]
    assert f"sqlalchemy.dialects.{backend}" in modules  # the probe lists what it should
    prefixes = ("alembic", "mako", f"sqlalchemy.dialects.{other}")
    assert [m for m in modules if m.startswith(prefixes)] == []
    assert _alembic_heads(fresh_database_url) == {HEAD}
