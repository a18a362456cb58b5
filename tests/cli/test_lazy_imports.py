"""Each command imports what it uses: start-up time is the user's first impression.

Each case runs ``stoker`` in a fresh interpreter (this test process has imported
everything already) and lists the modules it loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from stoker.cli.main import COMMANDS, cli
from stoker.store import open_store
from stoker.store.secrets import KEY_FILE_ENV

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "hello.yaml")

_PROBE = """
import json, sys
from stoker.cli.main import main
status = 0
try:
    main()
except SystemExit as exit:
    status = exit.code
sys.__stdout__.write("\\n" + json.dumps([status, sorted(sys.modules)]) + "\\n")
"""


def modules_loaded(*args: str, env: dict[str, str] | None = None) -> set[str]:
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    status, modules = json.loads(completed.stdout.strip().splitlines()[-1])
    assert status in (0, None), completed.stderr  # the command really ran, and succeeded
    return set(modules)


def _loaded(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


HEAVY = ("sqlalchemy", "alembic", "yaql", "stoker.lint", "stoker.engine.stacks", "stoker.store")


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_no_library(args: list[str]) -> None:
    modules = modules_loaded(*args)
    assert _loaded(modules, *HEAVY, "stoker.definition", "rich") == []


def test_template_validate_imports_no_store_linter_or_yaql() -> None:
    modules = modules_loaded("template", "validate", EXAMPLE)
    assert "stoker.definition.stack" in modules  # the probe really validated
    assert _loaded(modules, *HEAVY) == []


def test_stack_list_imports_no_engine_linter_or_yaql(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'list.db'}"
    open_store(url).close()  # a new database is made at head once, by its first opener
    # the key the test session's stores use (tests/conftest.py), so the database opens
    env = {"STOKER_DB_URL": url, "PATH": "", KEY_FILE_ENV: os.environ[KEY_FILE_ENV]}
    create = ["stack", "create", "s1", "-t", EXAMPLE, "--parameter", "db_password=pw-12345"]
    created = CliRunner().invoke(cli, ["--db", url, *create])
    assert created.exit_code == 0, created.output
    modules = modules_loaded("stack", "list", env=env)
    assert "stoker.store.store" in modules
    assert _loaded(modules, "yaql", "alembic", "stoker.lint", "stoker.engine.stacks") == []
    assert _loaded(modules, "stoker.definition", "stoker.resources") == []
    # the store is SQLAlchemy Core: no ORM, and no PostgreSQL dialect for a SQLite file
    assert _loaded(modules, "sqlalchemy.orm", "sqlalchemy.dialects.postgresql") == []
    # a table needs no YAML dumper
    assert _loaded(modules, "yaml") == []
    # the database and its key file are named: no user data directory to look up
    assert _loaded(modules, "platformdirs") == []


def test_stack_commands_on_an_up_to_date_sqlite_store_import_no_alembic(
    tmp_path: Path,
) -> None:
    """On a SQLite file at the head of the migrations, the store is opened without
    Alembic (`stoker.store.migrate`), for reads and writes alike."""
    url = f"sqlite:///{tmp_path / 'head.db'}"
    open_store(url).close()  # made (through SQLAlchemy) by its first opener
    env = {"STOKER_DB_URL": url, "PATH": "", KEY_FILE_ENV: os.environ[KEY_FILE_ENV]}
    secret = ["--parameter", "db_password=pw-12345"]
    for command in (
        ["stack", "create", "s1", "-t", EXAMPLE, *secret],
        ["stack", "list"],
        ["stack", "show", "s1"],
        ["stack", "event", "list", "s1"],
        ["stack", "update", "s1", "-t", EXAMPLE, "--parameter", "db_password=pw-67890"],
        ["stack", "delete", "s1", "--yes"],
    ):
        modules = modules_loaded(*command, env=env)
        assert "stoker.store.store" in modules, command  # the store was opened
        assert _loaded(modules, "alembic") == [], command
    with open_store(url) as store:  # and the commands did their work
        assert store.list_stacks("default", include_deleted=True)[0].deleted_at is not None


def test_the_first_command_on_a_new_sqlite_store_imports_no_alembic(tmp_path: Path) -> None:
    """A new database's schema is made at the head without Alembic (whose package
    imports Mako, Pygments and every SQLAlchemy dialect), nor the PostgreSQL dialect."""
    url = f"sqlite:///{tmp_path / 'new.db'}"
    env = {"STOKER_DB_URL": url, "PATH": "", KEY_FILE_ENV: os.environ[KEY_FILE_ENV]}
    modules = modules_loaded("stack", "list", env=env)
    assert "stoker.store.store" in modules  # the store was opened (and the database made)
    assert _loaded(modules, "alembic", "mako", "pygments", "sqlalchemy.dialects.postgresql") == []
    assert (tmp_path / "new.db").exists()


def test_stack_help_and_a_refused_template_import_no_store(tmp_path: Path) -> None:
    """SQLAlchemy (~40 % of a short command's instructions) comes with the store, opened
    only once a command needs it: not for ``stack --help``, nor for a create whose
    template is refused at load."""
    modules = modules_loaded("stack", "--help")
    assert _loaded(modules, "sqlalchemy", "stoker.store.store") == []
    refused = tmp_path / "refused.yaml"
    refused.write_text("heat_template_version: 2018-08-31\nresources: {a: {type: 7}}\n")
    env = {**os.environ, "STOKER_DB_URL": f"sqlite:///{tmp_path / 'none.db'}"}
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, "stack", "create", "s", "-t", str(refused)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    status, loaded = json.loads(completed.stdout.strip().splitlines()[-1])
    assert status != 0 and "rejected" in completed.stderr  # refused, as meant
    assert _loaded(set(loaded), "sqlalchemy", "stoker.store.store") == []
    assert not (tmp_path / "none.db").exists()


# After the command line's own start-up: each collection that starts while a module of
# stoker is being imported (importlib marks a module's spec while it executes).


def test_help_lists_each_group_with_its_own_first_line() -> None:
    """The help written in main.py (so ``--help`` imports nothing) is each group's own."""
    for name, (_, _, first_line) in COMMANDS.items():
        command = cli.get_command(click.Context(cli), name)
        assert command is not None
        assert (command.help or "").splitlines()[0] == first_line, name
    output = CliRunner().invoke(cli, ["--help"]).output
    assert all(name in output for name in COMMANDS)
