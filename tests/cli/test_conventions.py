"""Output conventions after python-openstackclient, through the real ``stoker`` command."""

from __future__ import annotations

import csv
import io
import json

import click
import pytest
import yaml

from stoker.cli.main import cli

from .entry import stoker

TEMPLATE = "heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Heat::None}\n"

LISTINGS = [
    ("resource-type", "list"),
    ("template", "version", "list"),
    ("template", "function", "list", "rocky"),
    ("lint", "--list-rules"),
]


@pytest.fixture
def created(tmp_path):
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    result = stoker(
        "--db", "s.db", "stack", "create", "web", "-t", "t.yaml", "--tags", "a,b", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    return tmp_path


def test_a_column_is_named_as_shown_or_by_its_json_key(created) -> None:
    by_heading = stoker(
        "--db", "s.db", "stack", "list", "-f", "value", "-c", "Stack Name", cwd=created
    )
    by_key = stoker("--db", "s.db", "stack", "list", "-f", "value", "-c", "stack_name", cwd=created)
    assert by_heading.stdout == by_key.stdout == "web\n"
    shown = stoker(
        "--db", "s.db", "stack", "show", "web", "-f", "value", "-c", "Stack Status", cwd=created
    )
    assert shown.stdout == "CREATE_COMPLETE\n"


def test_value_format_joins_lists_with_commas(created) -> None:
    result = stoker(
        "--db", "s.db", "stack", "show", "web", "-f", "value", "-c", "tags", cwd=created
    )
    assert result.stdout == "a,b\n"


def test_an_unknown_column_lists_the_choices(created) -> None:
    result = stoker("--db", "s.db", "stack", "list", "-c", "nope", cwd=created)
    assert result.returncode == 2
    assert "unknown column(s) nope; choose from id (Id), stack_name (Stack Name)" in result.stderr


def test_csv_quotes_like_openstackclient(created) -> None:
    result = stoker(
        "--db",
        "s.db",
        "stack",
        "list",
        "-f",
        "csv",
        "-c",
        "stack_name",
        "-c",
        "stack_status",
        cwd=created,
    )
    assert result.stdout == '"Stack Name","Stack Status"\n"web","CREATE_COMPLETE"\n'


def test_a_null_field_prints_as_cliff_prints_it(created) -> None:
    """A stack never updated has a null ``updated_time`` (Heat's): cliff's table and value
    formatters print ``str(None)``, its csv formatter an empty field, json and yaml null."""

    def run(*args: str) -> str:
        result = stoker("--db", "s.db", "stack", *args, cwd=created)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert run("list", "-f", "value", "-c", "stack_name", "-c", "updated_time") == "web None\n"
    assert run("show", "web", "-f", "value", "-c", "updated_time") == "None\n"
    listed = run("list", "-c", "stack_name", "-c", "updated_time").splitlines()
    assert [line.split() for line in listed if "web" in line] == [["│", "web", "│", "None", "│"]]
    shown = run("show", "web", "-c", "updated_time").splitlines()
    assert [line.split() for line in shown if "updated_time" in line] == [
        ["│", "updated_time", "│", "None", "│"]
    ]
    csv_text = run("list", "-f", "csv", "-c", "stack_name", "-c", "updated_time")
    assert csv_text == '"Stack Name","Updated Time"\n"web",""\n'
    assert json.loads(run("show", "web", "-f", "json"))["updated_time"] is None
    assert yaml.safe_load(run("list", "-f", "yaml"))[0]["updated_time"] is None


@pytest.mark.parametrize(
    ("args", "fmt"),
    [(args, "csv") for args in LISTINGS]
    + [(("template", "version", "list"), fmt) for fmt in ("table", "json", "yaml")],
    ids=lambda a: " ".join(a) if isinstance(a, tuple) else a,
)
def test_every_listing_takes_every_format(args, fmt) -> None:
    result = stoker(*args, "-f", fmt)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    if fmt == "json":
        assert isinstance(json.loads(result.stdout), list)
    elif fmt == "yaml":
        assert isinstance(yaml.safe_load(result.stdout), list)
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(result.stdout)))
        assert len({len(row) for row in rows}) == 1 and len(rows) > 1


@pytest.mark.parametrize(
    ("args", "column", "first"),
    [
        (("resource-type", "list"), "Resource Type", "OS::Heat::CloudConfig"),
        (("template", "version", "list"), "version", "AWSTemplateFormatVersion.2010-09-09"),
        (("lint", "--list-rules"), "ID", "E0100"),
        (("template", "function", "list", "rocky"), "Functions", "contains"),
    ],
)
def test_every_listing_takes_columns(args, column, first) -> None:
    result = stoker(*args, "-f", "value", "-c", column)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == first
    assert " " not in result.stdout.splitlines()[0]


def test_resource_type_show_takes_formats_and_columns() -> None:
    result = stoker(
        "resource-type", "show", "OS::Heat::RandomString", "-f", "json", "-c", "resource_type"
    )
    assert json.loads(result.stdout) == {"resource_type": "OS::Heat::RandomString"}


def test_resource_type_show_prints_support_status_as_heat_does() -> None:
    known = stoker("resource-type", "show", "OS::Heat::None")
    assert known.stdout.splitlines()[0] == "OS::Heat::None (SUPPORTED since 5.0.0)"
    no_version = stoker("resource-type", "show", "OS::Nova::Server")
    assert "since None" not in no_version.stdout
    assert no_version.stdout.splitlines()[0] == "OS::Nova::Server (SUPPORTED)"


def test_template_capabilities_takes_templates_with_t_and_format_with_f(tmp_path) -> None:
    (tmp_path / "c.yaml").write_text(
        "heat_template_version: 2015-10-15\ncapabilities: {deployment: puppet}\nresources: {}\n"
    )
    result = stoker(
        "template",
        "capabilities",
        "-t",
        "c.yaml",
        "--template",
        "c.yaml",
        "-f",
        "json",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["capabilities"] == {"deployment": ["puppet"]}
    found = stoker(
        "template",
        "capabilities-find",
        "--capability",
        "deployment=puppet",
        "-f",
        "value",
        "-c",
        "file",
        "c.yaml",
        cwd=tmp_path,
    )
    assert found.stdout == "c.yaml\n"


def _options(command: click.Command, path: list[str]):
    for param in command.params:
        if isinstance(param, click.Option):
            yield " ".join(path), param
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _options(sub, [*path, name])


def test_every_option_has_help_and_f_is_always_the_format() -> None:
    missing = [f"{where} {p.opts}" for where, p in _options(cli, ["stoker"]) if not p.help]
    assert missing == []
    for where, param in _options(cli, ["stoker"]):
        if "-f" in param.opts:
            assert "--format" in param.opts, where
        if "-c" in param.opts:
            assert "--column" in param.opts, where


def test_tables_are_not_squeezed_when_piped(created) -> None:
    long_name = "x" * 150
    (created / "t2.yaml").write_text(TEMPLATE)
    made = stoker(
        "--db",
        "s.db",
        "stack",
        "create",
        long_name,
        "-t",
        "t2.yaml",
        cwd=created,
        env={"COLUMNS": "80"},
    )
    assert made.returncode == 0, made.stderr
    listed = stoker(
        "--db", "s.db", "stack", "list", "-c", "stack_name", cwd=created, env={"COLUMNS": "80"}
    )
    assert any(long_name in line for line in listed.stdout.splitlines())


def test_nested_paths_are_shown_relative_as_the_top_was_given(tmp_path) -> None:
    (tmp_path / "sub" / "child").mkdir(parents=True)
    (tmp_path / "sub" / "top.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  c: {type: child/c.yaml}\n"
    )
    (tmp_path / "sub" / "child" / "c.yaml").write_text(
        "heat_template_version: 2018-08-31\nresources:\n  x:\n    type: OS::Heat::None\n"
        "    depends_on: nope\n"
    )
    result = stoker("template", "validate", "sub/top.yaml", cwd=tmp_path)
    # Heat's validate does not look inside nested templates: a warning, not a refusal
    assert result.returncode == 0
    assert result.stderr.startswith("sub/child/c.yaml:5:17: resources.x.depends_on: ")
