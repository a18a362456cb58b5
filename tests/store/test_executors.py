"""The two executors (`stoker.store.executor`): which one a store gets, the SQL compiled
ahead of time for SQLite kept equal to what SQLAlchemy compiles now, and both giving the
same rows from the same database."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from stoker.engine.state import (
    DefinitionChange,
    SnapshotRecord,
    Status,
    StoredDefinition,
    WriteBatch,
)
from stoker.store import compiled_sqlite, open_store
from stoker.store.executor import EXECUTOR_ENV
from stoker.store.migrate import HEAD, head_revisions
from stoker.store.precompile import TARGET, render
from stoker.store.sa_executor import SqlAlchemyExecutor
from stoker.store.sqlite_executor import SqliteExecutor
from stoker.store.statements import CATALOG

from . import factories as f


def test_the_compiled_module_is_what_the_catalog_compiles_to() -> None:
    """Regenerate with ``python -m stoker.store.precompile`` when this fails."""
    assert TARGET.read_text() == render()


def test_the_compiled_module_is_for_the_newest_migration() -> None:
    assert compiled_sqlite.HEAD == HEAD
    assert head_revisions() == {HEAD}
    assert set(compiled_sqlite.STATEMENTS) == set(CATALOG)


def test_an_up_to_date_file_is_opened_without_sqlalchemy(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    with open_store(url) as first:  # new: made through SQLAlchemy, then used without
        assert isinstance(first.executor, SqliteExecutor)
    with open_store(url) as again:
        assert isinstance(again.executor, SqliteExecutor)
        assert again.count_stacks("demo") == 0


def test_memory_postgresql_and_the_switch_use_sqlalchemy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store("sqlite://") as memory:
        assert isinstance(memory.executor, SqlAlchemyExecutor)
    monkeypatch.setenv(EXECUTOR_ENV, "sqlalchemy")
    with open_store(f"sqlite:///{tmp_path / 'b.db'}") as chosen:
        assert isinstance(chosen.executor, SqlAlchemyExecutor)


def test_a_file_not_at_the_head_is_migrated_then_used_without_sqlalchemy(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    open_store(url).close()
    with sqlite3.connect(path) as connection:  # pretend the schema is older
        connection.execute("UPDATE alembic_version SET version_num = 'not-the-head'")
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (
            "not-the-head",
        )
    # an unknown revision: Alembic refuses it, through SQLAlchemy (not the stdlib path)
    with pytest.raises(Exception, match="not-the-head"):
        open_store(url)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = ?", (HEAD,))
    with open_store(url) as store:
        assert isinstance(store.executor, SqliteExecutor)


def _populate(url: str) -> str:
    """A stack of each kind: plain with resources, events, a snapshot and a lease; sealed
    (a hidden parameter); nested; deleted. Returns the plain stack's id."""
    now = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    with open_store(url) as store:
        plain = f.stack(name="plain", id="stack-plain", tags=("t",), timeout_mins=3)
        store.create_stack(
            plain,
            [f.resource(plain.id, "a"), f.resource(plain.id, "b", requires=("a",))],
            [f.event(plain.id, "a"), f.event(plain.id, "b")],
        )
        store.acquire_lease(plain.id, "engine-1", now + timedelta(minutes=5), now)
        store.add_snapshot(
            SnapshotRecord("snap", plain.id, "s", "COMPLETE", "", {"x": [1, None]}, now)
        )
        sealed = f.stack(
            id="stack-sealed",
            name="sealed",
            template={"parameters": {"p": {"type": "string", "hidden": True}}},
            parameters={"p": "secret"},
        )
        store.create_stack(sealed, [f.resource(sealed.id, "r")], [f.event(sealed.id, "r")])
        child = f.stack(id="stack-child", name="child", parent_id=plain.id, parent_resource="a")
        store.create_stack(child, [], [])
        gone = f.stack(id="stack-gone", name="gone")
        store.create_stack(gone, [], [])
        store.mark_deleted(gone.id, now)
        store.write(WriteBatch(stacks=[f.status(plain.id, Status.COMPLETE, "done", now)]))
        # an update keeps the definition before it; a second one drops the one kept
        for number in (1, 2):
            new = StoredDefinition({"v": number}, {"e": number}, {}, {"p": number}, "t.yaml")
            change = DefinitionChange(plain.id, new, ("u",), number, False)
            store.change_definition(change, WriteBatch(resources=[f.resource(plain.id, "c")]))
        rollback = DefinitionChange(child.id, StoredDefinition({}, {}, {}, {}), keep_previous=False)
        store.change_definition(rollback, WriteBatch())
        store.renew_lease(plain.id, "engine-1", now + timedelta(minutes=9))
        store.request_cancel(plain.id, "cancel", ["CREATE", "UPDATE"])
        store.acquire_lease(sealed.id, "engine-2", now, now)
        store.release_lease(sealed.id, "engine-2")
    return plain.id


def _reads(url: str, stack_id: str) -> list[object]:
    with open_store(url) as store:
        found: list[object] = []
        for nested in (False, True):
            for deleted in (False, True):
                flags = {"include_nested": nested, "include_deleted": deleted}
                found.append(store.list_stacks("demo", **flags))
                found.append(store.stack_summaries("demo", **flags))
        found += [
            store.get_stack(stack_id, "demo"),
            store.get_stack("sealed", "demo"),
            store.stacks_in_progress(),
            store.child_stacks(stack_id),
            store.count_stacks("demo"),
            store.resources(stack_id),
            store.count_resources(stack_id),
            store.events(stack_id),
            store.events(stack_id, after_id=1),
            store.events(stack_id, limit=1),
            store.events(stack_id, after_id=1, limit=1),
            store.previous_definition(stack_id),
            store.lease(stack_id),
            store.snapshots(stack_id),
        ]
        return found


def test_both_executors_read_the_same_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'same.db'}"
    stack_id = _populate(url)
    stdlib = _reads(url, stack_id)
    monkeypatch.setenv(EXECUTOR_ENV, "sqlalchemy")
    through_sqlalchemy = _reads(url, stack_id)
    assert stdlib == through_sqlalchemy
    assert all(stdlib)  # every read found something


def test_both_executors_write_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same writes through each executor leave the same values in every table, as
    the driver reads them (sealed values aside: each encryption differs)."""
    dumps = {}
    for name in ("stdlib", "sqlalchemy"):
        if name == "sqlalchemy":
            monkeypatch.setenv(EXECUTOR_ENV, "sqlalchemy")
        url = f"sqlite:///{tmp_path / (name + '.db')}"
        open_store(url).close()  # made (by SQLAlchemy); then written through `name`
        _populate(url)
        with open_store(url) as store, store.engine.connect() as connection:
            assert (name == "stdlib") == isinstance(store.executor, SqliteExecutor)
            dumps[name] = {
                table: connection.execute(
                    text(f"SELECT * FROM {table} ORDER BY 1")  # noqa: S608
                ).all()
                for table in ("stacks", "raw_templates", "resources", "events", "snapshots")
            }
    assert _unsealed(dumps["stdlib"]) == _unsealed(dumps["sqlalchemy"])
    assert all(dumps["stdlib"].values())


def _unsealed(tables: dict[str, list[Any]]) -> dict[str, list[tuple[Any, ...]]]:
    def plain(value: Any) -> Any:
        sealed = isinstance(value, str) and "stoker_sealed" in value
        return "<sealed>" if sealed else value

    return {name: [tuple(map(plain, row)) for row in rows] for name, rows in tables.items()}
