"""Migration 0011: a stack's ``updated_at`` is Heat's ``updated_time`` (NULL until an update,
rollback, delete or restore began), taken from the stack's events for stacks written
before it; the downgrade puts back the old meaning (the time of the last change of state)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from alembic import command
from click.testing import CliRunner
from sqlalchemy import select

from stoker.cli.main import cli
from stoker.engine.state import Action, StackRecord, Status
from stoker.store import open_store
from stoker.store.connection import create_store_engine
from stoker.store.migrate import alembic_config
from stoker.store.models import Stack

pytestmark = pytest.mark.heavy

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  v: {type: string, default: one}
resources:
  a: {type: OS::Heat::Value, properties: {value: {get_param: v}}}
"""


def _stoker(url: str, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--db", url, "stack", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _stacks(url: str) -> dict[str, StackRecord]:
    with open_store(url) as store:
        return {s.name: s for s in store.list_stacks("default", include_deleted=True)}


def _stored(url: str) -> dict[str, datetime | None]:
    """Each stack's ``updated_at`` as the database holds it, read without opening a store
    (which would upgrade the database to the head)."""
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(select(Stack.name, Stack.updated_at))
            return {name: updated for name, updated in rows}
    finally:
        engine.dispose()


def _last_events(url: str, stacks: dict[str, StackRecord]) -> dict[str, datetime]:
    """Each stack's last event of its own (a change of state)."""
    with open_store(url) as store:
        return {
            name: max(e.time for e in store.events(s.id) if e.physical_id == s.id)
            for name, s in stacks.items()
        }


def _starts(url: str, stacks: dict[str, StackRecord]) -> dict[str, datetime | None]:
    """When each stack's last update or delete began (its ``IN_PROGRESS`` event)."""
    with open_store(url) as store:
        return {
            name: max(
                (
                    e.time
                    for e in store.events(s.id)
                    if e.physical_id == s.id
                    and e.action in (Action.UPDATE, Action.DELETE)
                    and e.status is Status.IN_PROGRESS
                ),
                default=None,
            )
            for name, s in stacks.items()
        }


def _migrate(url: str, to: str) -> None:
    engine = create_store_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            if to == "head":
                command.upgrade(config, to)
            else:
                command.downgrade(config, to)
    finally:
        engine.dispose()


def test_updated_time_down_and_up_again(fresh_database_url: str, tmp_path: Path) -> None:
    url = fresh_database_url
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    for name in ("created", "updated", "suspended", "deleted", "updated_then_checked"):
        _stoker(url, "create", name, "-t", str(template))
    _stoker(url, "update", "updated", "--existing", "--parameter", "v=two")
    _stoker(url, "suspend", "suspended")
    _stoker(url, "delete", "deleted", "-y")
    _stoker(url, "update", "updated_then_checked", "--existing", "--parameter", "v=two")
    _stoker(url, "check", "updated_then_checked")
    written = _stacks(url)
    starts = _starts(url, written)
    assert {n: s.updated_at for n, s in written.items()} == starts
    assert [n for n, s in written.items() if s.updated_at is None] == ["created", "suspended"]

    last = _last_events(url, written)
    _migrate(url, "0010")
    assert _stored(url) == last
    _migrate(url, "head")
    assert _stored(url) == starts
    assert {n: s.updated_at for n, s in _stacks(url).items()} == starts
