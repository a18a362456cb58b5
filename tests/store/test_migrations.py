"""The shipped migrations: they build the models' schema, idempotently and concurrently."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from stoker.store import open_store
from stoker.store.connection import create_store_engine
from stoker.store.migrate import (
    HEAD,
    alembic_config,
    current_revisions,
    head_revisions,
    upgrade_to_head,
)
from stoker.store.models import ddl_metadata

from . import workers

pytestmark = pytest.mark.heavy

HELLO = str(Path(__file__).parents[2] / "examples" / "hello.yaml")


def _differences(url: str) -> list[object]:
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, ddl_metadata()))
    finally:
        engine.dispose()


def test_the_head_constant_is_the_newest_migration() -> None:
    assert head_revisions() == {HEAD}


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
            assert current_revisions(connection) == head_revisions() == {HEAD}
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
    open_store(made).close()
    server = None
    if backend.startswith("sqlite"):
        migrated = f"sqlite:///{tmp_path / 'migrated.db'}"
    else:
        server = request.getfixturevalue("pg_server")
        migrated = server.create_database()
    try:
        _migrated_step_by_step(migrated)
        assert _schema(made) == _schema(migrated)
        assert _alembic_heads(made) == _alembic_heads(migrated) == head_revisions() == {HEAD}
    finally:
        if server is not None:
            server.drop_database(migrated)
    assert _differences(made) == []
