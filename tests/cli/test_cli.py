"""The ``stoker template`` commands, run as a user runs them (exit codes, output)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.template.loader import load_document
from stoker.template.nodes import plain

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "hello.yaml")
EXAMPLE_ENV = str(ROOT / "examples" / "hello-env.yaml")
SECRET = "correct-horse-battery"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_validate_example_json_has_heat_validate_shape():
    result = run("template", "validate", EXAMPLE, "-e", EXAMPLE_ENV, "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["Description"].startswith("A small web tier")
    site = data["Parameters"]["site_name"]
    assert site["Type"] == "String" and site["Default"] == "demo" and site["Value"] == "shop"
    assert site["Label"] == "Site name" and site["MinLength"] == 3
    # parameter_defaults replace the default and give no Value (Heat 24.1.2)
    port = data["Parameters"]["port"]
    assert port["Default"] == 8443 and "Value" not in port
    assert data["Parameters"]["db_password"]["NoEcho"] == "true"
    assert [g["label"] for g in data["ParameterGroups"]] == ["Site", "Secrets"]
    assert SECRET not in result.output


def test_validate_table_and_yaml_formats():
    table = run("template", "validate", EXAMPLE, "-e", EXAMPLE_ENV)
    assert table.exit_code == 0 and "site_name" in table.stdout and SECRET not in table.output
    as_yaml = run("template", "validate", EXAMPLE, "-f", "yaml")
    assert as_yaml.exit_code == 0 and "Parameters" in yaml.safe_load(as_yaml.stdout)


def test_validate_errors_exit_1_with_locations(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "heat_template_version: rocky\nparameters:\n"
        "  n: {type: number, default: x, constraints: [{range: {min: 1}}]}\n"
        "resources:\n  r: {type: X, properties: {a: {get_resource: nope}}}\n"
    )
    result = run("template", "validate", str(path))
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert any(line.startswith(f"{path}:3:30: parameters.n.default: ") for line in lines), lines
    assert any(
        line.startswith(f"{path}:5:33: resources.r.properties.a.get_resource: ") for line in lines
    ), lines
    assert lines[-1] == "error: 2 errors: the template was rejected"


BAD_VALUES = ("port=80", "site_name=Bad Name", "db_password=short")


def test_parameter_values_are_checked_at_create_as_heat_does(tmp_path):
    """Heat's validate does not check parameter values; its create refuses them."""
    given = [arg for value in BAD_VALUES for arg in ("--parameter", value)]
    validate = run("template", "validate", EXAMPLE, *given)
    assert validate.exit_code == 0, validate.output
    assert "port" in validate.stderr and "site_name" in validate.stderr  # as warnings
    assert "its create refuses it" in validate.stderr
    database = str(tmp_path / "s.db")
    for command in (("template", "resolve", EXAMPLE), ("stack", "create", "s", "-t", EXAMPLE)):
        result = run("--db", database, *command, *given)
        assert result.exit_code == 1, (command, result.output)
        assert "Parameter 'port' is invalid" in result.stderr
        assert "site_name" in result.stderr
        for output in (validate.stderr, validate.stdout, result.stderr, result.stdout):
            assert "short" not in output  # a hidden value never appears, even when invalid
    listed = run("--db", database, "stack", "list", "-f", "json")
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []  # nothing started


def test_parameter_file(tmp_path):
    secret = tmp_path / "pw.txt"
    secret.write_text("from-a-file-123")
    result = run("template", "resolve", EXAMPLE, "--parameter-file", f"db_password={secret}")
    assert result.exit_code == 0, result.output
    assert "from-a-file-123" not in result.output


def test_usage_errors_exit_2():
    assert run("template", "validate", EXAMPLE, "--parameter", "novalue").exit_code == 2
    assert run("template", "validate").exit_code == 2
    assert run("template", "nonsense").exit_code == 2


def test_missing_file_is_a_clear_error_not_a_traceback(tmp_path):
    result = run("template", "validate", str(tmp_path / "none.yaml"))
    assert result.exit_code == 2 and "does not exist" in result.stderr
    assert result.stderr.startswith("error: ")


def test_resolve_example():
    result = run("template", "resolve", EXAMPLE, "-e", EXAMPLE_ENV, "--stack-name", "demo")
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    assert data["parameters"]["db_password"] == "******"
    assert data["parameters"]["backends"] == "10.0.0.11,10.0.0.12"
    assert SECRET not in result.output
    names = [r["name"] for r in data["resources"]]
    assert names == ["admin_password", "config", "database", "site"]
    assert data["disabled_resources"] == ["banner"]
    site = next(r for r in data["resources"] if r["name"] == "site")
    assert site["properties"]["value"]["url"] == "http://shop.example.com:8443/"
    assert site["properties"]["value"]["banner"] is None
    database = next(r for r in data["resources"] if r["name"] == "database")
    assert database["properties"]["value"] == "<sensitive>"
    config = next(r for r in data["resources"] if r["name"] == "config")
    assert config["properties"]["config"]["str_replace"]["params"]["$ADMIN"] == {
        "get_attr": ["admin_password", "value"]
    }
    assert data["outputs"]["url"] == {"get_attr": ["site", "value", "url"]}


def test_the_demo_shows_the_sites_url(tmp_path: Path) -> None:
    """What scripts/demo.sh shows last: the site's URL in clear (it is not built from the
    hidden password, which stays masked in its own resource)."""
    db = str(tmp_path / "demo.db")
    created = run("--db", db, "stack", "create", "demo", "-t", EXAMPLE, "-e", EXAMPLE_ENV)
    assert created.exit_code == 0, created.output
    shown = run("--db", db, "stack", "output", "show", "demo", "--all")
    assert shown.exit_code == 0, shown.output
    assert "http://shop.example.com:8443/" in shown.stdout
    assert "<sensitive>" not in shown.stdout and SECRET not in shown.output
    database = run("--db", db, "stack", "resource", "show", "demo", "database", "-f", "json")
    assert SECRET not in database.stdout


def test_resolve_requires_every_parameter():
    result = run("template", "resolve", EXAMPLE)
    assert result.exit_code == 1
    assert "The Parameter (db_password) was not provided." in result.stderr


def test_convert_json_to_yaml_and_back(tmp_path):
    source = tmp_path / "t.json"
    source.write_text(
        json.dumps(
            {
                "AWSTemplateFormatVersion": "2010-09-09",
                "Resources": {
                    "r": {"Type": "X", "Properties": {"UserData": "#!/bin/sh\necho hi\n"}}
                },
            }
        )
    )
    as_yaml = run("template", "convert", str(source), "--to", "yaml")
    assert as_yaml.exit_code == 0 and "UserData: |" in as_yaml.stdout
    assert plain(load_document(as_yaml.stdout).data) == json.loads(source.read_text())
    target = tmp_path / "t.yaml"
    assert run("template", "convert", str(source), "--to", "yaml", "-o", str(target)).exit_code == 0
    back = run("template", "convert", str(target), "--to", "json")
    assert json.loads(back.stdout) == json.loads(source.read_text())


def test_version_list():
    result = run("template", "version", "list", "-f", "json")
    rows = json.loads(result.stdout)
    assert {
        "version": "heat_template_version.2016-10-14",
        "type": "hot",
        "aliases": ["heat_template_version.newton"],
    } in rows
    assert {"version": "AWSTemplateFormatVersion.2010-09-09", "type": "cfn", "aliases": []} in rows
    assert len(rows) == 13


def test_function_list():
    rocky = json.loads(run("template", "function", "list", "rocky", "-f", "json").stdout)
    names = [row["functions"] for row in rocky]
    assert "yaql" in names and "Fn::Select" not in names and "equals" not in names
    assert all(row["description"] for row in rocky)
    with_conditions = run(
        "template",
        "function",
        "list",
        "heat_template_version.2018-08-31",
        "--with-condition-func",
        "-f",
        "json",
    )
    assert "equals" in [row["functions"] for row in json.loads(with_conditions.stdout)]
    old = json.loads(run("template", "function", "list", "2013-05-23", "-f", "json").stdout)
    assert "Fn::Join" in [row["functions"] for row in old]
    assert run("template", "function", "list", "1999-01-01").exit_code == 1


def test_hidden_json_value_is_masked_wherever_it_flows(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: rocky\n"
        "parameters:\n  creds: {type: json, hidden: true}\n"
        "resources:\n  r:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {get_param: creds}\n"
        "      text: {list_join: ['', ['token=', {get_param: [creds, token]}]]}\n"
    )
    result = run(
        "template",
        "resolve",
        str(path),
        "--parameter",
        'creds={"token": "tok-9f8e7d", "user": "ops-admin"}',
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert "tok-9f8e7d" not in result.output and "ops-admin" not in result.output
    data = json.loads(result.stdout)
    assert data["parameters"]["creds"] == "******"


def test_resolve_drops_what_a_false_two_argument_if_omits(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: wallaby\nresources:\n  s: {type: OS::Heat::None}\n"
        "  r:\n    type: OS::Heat::Value\n    properties:\n"
        "      value:\n        known: [1, {if: [false, 2]}, 3]\n"
        "        live: [{get_resource: s}, {if: [false, x]}]\n"
        "        gone: {if: [false, y]}\n"
    )
    result = run("template", "resolve", str(path), "-f", "json")
    assert result.exit_code == 0, result.output
    value = json.loads(result.stdout)["resources"][1]["properties"]["value"]
    assert value == {"known": [1, 3], "live": [{"get_resource": "s"}]}


TRIPLEO = ROOT / "tests" / "fixtures" / "tripleo"


def test_validate_checks_the_whole_tree_and_shows_nested_parameters():
    result = run(
        "template",
        "validate",
        str(TRIPLEO / "overcloud.yaml"),
        "-e",
        str(TRIPLEO / "environments" / "default.yaml"),
        "--show-nested",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    nested = json.loads(result.stdout)["NestedParameters"]
    controller = nested["Controller"]["NestedParameters"]["0"]
    # Type as the template names it (Heat's), Template the file it resolved to
    assert controller["Type"] == "OS::TripleO::Controller"
    assert controller["Template"].endswith("roles/controller.yaml")
    assert controller["Parameters"]["Index"]["Value"] == "0"
    ntp = controller["NestedParameters"]["Ntp"]
    assert ntp["Template"].endswith("services/puppet/ntp.yaml")  # chosen through requires
    assert ntp["Parameters"]["NtpServer"]["Default"] == "pool.ntp.org"  # parameter_defaults
    assert set(nested["Compute"]["NestedParameters"]) == {"0", "1"}
    # the same warning from a template used three times is printed once
    warnings = [line for line in result.stderr.splitlines() if "capabilities section" in line]
    assert len(warnings) == 1


def test_validate_reports_problems_inside_the_tree(tmp_path):
    (tmp_path / "role.yaml").write_text(
        "heat_template_version: rocky\nparameters:\n  name: {type: string}\n"
        "resources:\n  r: {type: OS::Heat::None, properties: {x: {get_param: missing}}}\n"
    )
    (tmp_path / "top.yaml").write_text(
        "heat_template_version: rocky\nresources:\n"
        "  a: {type: role.yaml, properties: {name: x, colour: blue}}\n"
    )
    result = run("template", "validate", str(tmp_path / "top.yaml"))
    assert result.exit_code == 1
    assert f"{tmp_path / 'top.yaml'}:3:54: resources.a.properties.colour: " in result.stderr
    assert "colour" in result.stderr and "the provider template is" in result.stderr
    # Heat's validate does not look inside nested templates: shown, as a warning
    assert (
        f"{tmp_path / 'role.yaml'}:5:46: resources.r.properties.x.get_param: warning: "
        "The Parameter (missing) was not defined in template." in result.stderr
    )
    assert "its create fails" in result.stderr
    (tmp_path / "loop.yaml").write_text(
        "heat_template_version: rocky\nresources:\n  again: {type: loop.yaml}\n"
    )
    looped = run("template", "validate", str(tmp_path / "loop.yaml"))
    assert looped.exit_code == 1 and "includes itself: loop.yaml -> loop.yaml" in looped.stderr


def test_resolve_shows_a_wholly_omitted_value_as_null(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: 2021-04-16\nresources:\n"
        "  r: {type: OS::Heat::None, properties: {if: [false, {a: 1}]}}\n"
        "outputs:\n  o: {value: {if: [false, 1]}}\n"
    )
    for fmt in ("yaml", "json"):
        result = CliRunner().invoke(cli, ["template", "resolve", str(path), "-f", fmt])
        assert result.exit_code == 0, result.output
        assert "OMIT" not in result.output and "Ellipsis" not in result.output
    data = yaml.safe_load(run("template", "resolve", str(path), "-f", "yaml").output)
    assert data["outputs"] == {"o": None}
    assert "properties" not in data["resources"][0]


def test_resolve_prints_a_mapping_value_read_from_the_template_as_yaml(tmp_path):
    """Found by fuzzing: Fn::FindInMap hands back the template's own (position-keeping)
    mapping, which the YAML printer did not know; JSON printed it."""
    path = tmp_path / "t.yaml"
    path.write_text(
        "AWSTemplateFormatVersion: 2010-09-09\n"
        "Mappings:\n  m:\n    k:\n      v: {a: [1, {b: c}]}\n"
        "Outputs:\n  o: {Value: {'Fn::FindInMap': [m, k, v]}}\n"
    )
    for fmt, read in (("yaml", yaml.safe_load), ("json", json.loads)):
        result = run("template", "resolve", str(path), "-f", fmt)
        assert result.exit_code == 0, result.output
        assert read(result.output)["outputs"] == {"o": {"a": [1, {"b": "c"}]}}


def test_a_parameter_value_that_is_not_utf8_is_a_usage_error(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("heat_template_version: 2021-04-16\nparameters:\n  p: {type: string}\n")
    value = b"a\xff".decode("utf-8", "surrogateescape")  # what Python makes of such argv
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    for args in (
        ["template", "validate", str(path)],
        ["--db", db, "stack", "create", "s", "-t", str(path)],
    ):
        result = CliRunner().invoke(cli, [*args, "--parameter", f"p={value}"])
        assert result.exit_code == 2, result.output
        assert "not valid UTF-8" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
