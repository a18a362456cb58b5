"""SQLite connection settings: what makes one file safe to share between processes."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from stoker.store import open_store

from . import factories as f


def test_every_connection_is_configured(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'stoker.db'}")
    with store, store.engine.connect() as connection:
        pragma = {
            name: connection.execute(text(f"PRAGMA {name}")).scalar_one()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        }
    assert pragma == {
        "journal_mode": "wal",
        "synchronous": 1,  # NORMAL
        "foreign_keys": 1,
        "busy_timeout": 30000,
    }


def test_an_in_memory_database_works_across_calls() -> None:
    with open_store("sqlite://") as store:
        record = f.stack()
        store.create_stack(record, [], [])
        assert store.get_stack(record.id, "demo") == record


def test_the_database_file_is_created(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with open_store(f"sqlite:///{path}") as store:
        assert store.count_stacks("demo") == 0
    assert path.is_file()
