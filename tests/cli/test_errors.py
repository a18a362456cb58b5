"""One error path: every problem is one ``error:`` line, with the same exit status for the
same problem in every command (run through the real ``stoker`` entry point)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from stoker.errors import (
    EXIT_FAILURE,
    EXIT_USAGE,
    ConfigError,
    DatabaseError,
    OperationRefused,
    ParameterValueError,
    StackNotFound,
    StokerError,
    UsageError,
    exit_status,
)

from .entry import STOKER, installed, stoker

pytestmark = pytest.mark.heavy

TEMPLATE = "heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Heat::None}\n"


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: "), lines
    return lines[0]


def test_a_database_that_does_not_exist_is_one_line(pg_server) -> None:
    from sqlalchemy.engine import make_url

    url = make_url(pg_server.url).set(database="stoker_no_such_db")
    shown = url.render_as_string(hide_password=False)
    result = stoker("--db", shown, "stack", "list")
    assert result.returncode == EXIT_FAILURE
    line = _one_error_line(result)
    assert "stoker_no_such_db" in line and "does not exist" in line and "createdb" in line


def test_a_server_that_is_down_is_one_line_with_the_password_masked() -> None:
    result = stoker("--db", "postgresql://postgres:s3cret@127.0.0.1:9/x", "stack", "list")
    assert result.returncode == EXIT_FAILURE
    line = _one_error_line(result)
    assert "s3cret" not in result.stderr
    assert "postgresql://postgres:***@127.0.0.1:9/x" in line
    assert "Connection refused" in line and "server running" in line


def test_an_unsupported_database_is_one_line() -> None:
    result = stoker("--db", "mysql://x@y/z", "stack", "list")
    assert result.returncode == EXIT_FAILURE
    line = _one_error_line(result)
    assert "mysql://x@y/z" in line and "SQLite or PostgreSQL" in line


def test_a_plain_path_is_a_sqlite_file(tmp_path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    created = stoker("--db", "state/y.db", "stack", "create", "s", "-t", "t.yaml", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    assert (tmp_path / "state" / "y.db").is_file()
    listed = stoker(
        "--db", "state/y.db", "stack", "list", "-f", "value", "-c", "stack_name", cwd=tmp_path
    )
    assert listed.stdout == "s\n"


def test_a_path_in_a_missing_directory_says_what_to_do(tmp_path) -> None:
    result = stoker("--db", "nodir/y.db", "stack", "list", cwd=tmp_path)
    assert result.returncode == EXIT_FAILURE
    line = _one_error_line(result)
    assert "sqlite:///nodir/y.db" in line and "does the directory exist" in line


def test_missing_psycopg_says_how_to_install_it(tmp_path) -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None; "
        "from stoker.cli.main import main; sys.argv = ['stoker', '--db', "
        "'postgresql://u@127.0.0.1/x', 'stack', 'list']; main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == EXIT_FAILURE
    line = _one_error_line(result)
    assert "pip install 'stoker[postgresql]'" in line


@pytest.mark.parametrize(
    "args",
    [
        ("template", "validate", "missing.yaml"),
        ("template", "resolve", "missing.yaml"),
        ("template", "convert", "missing.yaml", "--to", "json"),
        ("lint", "missing.yaml"),
        ("stack", "create", "s", "-t", "missing.yaml"),
        ("template", "capabilities", "-t", "missing.yaml"),
        ("template", "capabilities-find", "--capability", "a=b", "missing.yaml"),
    ],
)
def test_a_missing_file_is_the_same_error_in_every_command(tmp_path, args) -> None:
    result = stoker("--db", "s.db", *args, cwd=tmp_path)
    assert result.returncode == EXIT_USAGE, result.stderr
    assert result.stderr.startswith("error: ") and "missing.yaml" in result.stderr
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("stack", "show", "nope"),
        ("stack", "delete", "nope", "--yes"),
        ("stack", "recover", "nope"),
        ("stack", "resume", "nope"),
        ("stack", "suspend", "nope"),
        ("stack", "check", "nope"),
        ("stack", "cancel", "nope"),
        ("stack", "output", "list", "nope"),
        ("stack", "resource", "list", "nope"),
        ("stack", "event", "list", "nope"),
    ],
)
def test_a_missing_stack_is_the_same_error_in_every_command(tmp_path, args) -> None:
    result = stoker("--db", "s.db", *args, cwd=tmp_path)
    assert result.returncode == EXIT_FAILURE
    assert _one_error_line(result) == "error: The Stack (nope) could not be found."


def test_rejected_templates_and_usage_errors_share_the_prefix(tmp_path) -> None:
    (tmp_path / "bad.yaml").write_text("heat_template_version: 2018-08-31\nresources: 3\n")
    validate = stoker("template", "validate", "bad.yaml", cwd=tmp_path)
    assert validate.returncode == EXIT_FAILURE
    assert validate.stderr.splitlines()[-1].startswith("error: ")
    usage = stoker("stack", "list", "--bogus")
    assert usage.returncode == EXIT_USAGE
    assert usage.stderr.startswith("error: No such option '--bogus'")


def test_one_table_maps_errors_to_exit_statuses() -> None:
    assert exit_status(StackNotFound("x")) == EXIT_FAILURE
    assert exit_status(OperationRefused("x")) == EXIT_FAILURE
    assert exit_status(DatabaseError("x")) == EXIT_FAILURE
    assert exit_status(UsageError("x")) == EXIT_USAGE
    assert exit_status(ConfigError("x")) == EXIT_USAGE
    assert isinstance(ParameterValueError("x"), ValueError | StokerError)


@pytest.mark.slow  # moved out of the default suite: its 90 s budget
def test_every_error_class_lives_in_the_tree() -> None:
    """No module defines its own public exception outside `stoker.errors`."""
    import ast
    import pathlib

    import stoker

    root = pathlib.Path(stoker.__file__).parent
    outside = []
    for path in root.rglob("*.py"):
        if path.name == "errors.py" and path.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if bases & {"Exception", "ValueError", "LookupError", "StokerError"}:
                    outside.append(f"{path.relative_to(root)}:{node.name}")
    # control-flow signals that never leave the function catching them (the sandbox's
    # ApiError and its subclasses are answers of the fake cloud, rendered at its edge;
    # the dashboard's LoginNeeded and Refused become its login page and 403 page at its
    # edge, api/dashboard/render.py, and never reach the engine or the CLI)
    assert sorted(outside) == [
        "api/dashboard/session.py:LoginNeeded",
        "api/dashboard/session.py:Refused",
        "functions/base.py:Unresolved",
        "parameters/checks.py:NotCheckable",
        "sandbox/http_errors.py:ApiError",
    ]


def test_the_entry_point_is_the_installed_script() -> None:
    assert STOKER.endswith("/stoker")


def test_the_installed_script_takes_the_same_error_path(tmp_path) -> None:
    """The console script, in its own process: one line, no traceback, same statuses."""
    down = installed("--db", "postgresql://postgres:s3cret@127.0.0.1:9/x", "stack", "list")
    assert down.returncode == EXIT_FAILURE
    assert down.stderr.startswith("error: cannot open database postgresql://postgres:***@")
    assert "s3cret" not in down.stderr and len(down.stderr.splitlines()) == 1
    missing = installed("lint", "missing.yaml", cwd=tmp_path)
    assert missing.returncode == EXIT_USAGE and missing.stderr.startswith("error: ")


def test_an_output_file_that_cannot_be_written_is_one_line(tmp_path) -> None:
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    result = stoker("lint", "t.yaml", "-o", "no/such/dir/report.txt", cwd=tmp_path)
    assert result.returncode == EXIT_FAILURE
    assert result.stderr == "error: no/such/dir/report.txt: No such file or directory\n"


def test_postgresql_support_is_an_optional_extra() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("psycopg") for d in project["dependencies"])
    assert any(d.startswith("psycopg") for d in project["optional-dependencies"]["postgresql"])
    bootstrap = (Path(__file__).parents[2] / "scripts" / "bootstrap.sh").read_text()
    assert '".[dev,postgresql]"' in bootstrap  # the README's two commands test PostgreSQL
