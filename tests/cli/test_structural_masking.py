"""Hidden parameters are masked structurally: where they are shown *as parameters*, and
outputs derived from them in the table view only; no string is rewritten elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

TEMPLATE = """\
heat_template_version: rocky
parameters:
  secret: {type: string, hidden: true}
  visible: {type: string, default: seven}
resources:
  holder:
    type: OS::Heat::Value
    properties:
      value: {list_join: ['-', [x, {get_param: secret}]]}
  plain:
    type: OS::Heat::Value
    properties:
      value: {get_param: visible}
outputs:
  direct:
    value: {get_param: secret}
  through_resource:
    value: {get_attr: [holder, value]}
  harmless:
    value: {get_attr: [plain, value]}
"""


@pytest.fixture
def stack(store_url: str, tmp_path: Path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)

    def run(*args: str):
        return CliRunner().invoke(cli, ["--db", store_url, "stack", *args], catch_exceptions=False)

    created = run("create", "s", "-t", str(path), "--parameter", "secret=e", "-f", "json")
    assert created.exit_code == 0, created.output
    return run


def test_a_one_letter_secret_leaves_keys_and_other_values_intact(stack) -> None:
    result = stack("show", "s", "-f", "json")
    data = json.loads(result.stdout)
    assert "stack_name" in data and "stack_status" in data
    assert data["stack_status"] == "CREATE_COMPLETE"
    assert data["parameters"]["secret"] == "******"
    assert data["parameters"]["visible"] == "seven"
    assert data["parameters"]["OS::stack_name"] == "s"
    assert "******tack" not in result.stdout


def test_json_yaml_and_value_show_a_derived_output_as_heat_does(stack) -> None:
    outputs = {
        o["output_key"]: o["output_value"]
        for o in json.loads(stack("show", "s", "-f", "json").stdout)["outputs"]
    }
    assert outputs == {"direct": "e", "through_resource": "x-e", "harmless": "seven"}
    value = stack("output", "show", "s", "direct", "-f", "value", "-c", "output_value")
    assert value.stdout.strip() == "e"
    assert "x-e" in stack("output", "list", "s", "--all", "-f", "yaml").stdout


def test_table_view_shows_sensitive_for_derived_outputs(stack) -> None:
    listed = stack("output", "list", "s", "--all").stdout
    assert listed.count("<sensitive>") == 2
    assert "seven" in listed and "x-e" not in listed
    shown = stack("show", "s").stdout
    assert shown.count("<sensitive>") == 2 and "x-e" not in shown
    one = stack("output", "show", "s", "through_resource").stdout
    assert "<sensitive>" in one and "x-e" not in one


def test_show_secrets_reveals_in_the_table_view(stack) -> None:
    listed = stack("output", "list", "s", "--all", "--show-secrets").stdout
    assert "<sensitive>" not in listed and "x-e" in listed
    assert "x-e" in stack("show", "s", "--show-secrets").stdout


def test_environment_show_masks_hidden_names_only(stack) -> None:
    data = json.loads(stack("environment", "show", "s", "-f", "json").stdout)
    assert data["parameters"]["secret"] == "******"
    assert "parameters" in data and "resource_registry" in data


def test_resource_show_masks_properties_that_read_a_hidden_parameter(stack) -> None:
    holder = json.loads(stack("resource", "show", "s", "holder", "-f", "json").stdout)
    assert holder["properties"]["value"] == "<sensitive>"
    assert holder["resource_name"] == "holder"
    plain = json.loads(stack("resource", "show", "s", "plain", "-f", "json").stdout)
    assert plain["properties"]["value"] == "seven"


def test_property_errors_from_a_hidden_value_do_not_quote_it(
    store_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "heat_template_version: rocky\n"
        "parameters:\n  secret: {type: string, hidden: true}\n"
        "resources:\n"
        "  v:\n    type: OS::Heat::Value\n"
        "    properties: {type: number, value: {get_param: secret}}\n"
        "  w:\n    type: OS::Heat::RandomString\n"
        "    properties: {length: {get_param: secret}}\n"
    )
    result = CliRunner().invoke(
        cli,
        [
            "--db",
            store_url,
            "stack",
            "create",
            "s",
            "-t",
            str(path),
            "--parameter",
            "secret=topsecretval",
        ],
    )
    assert result.exit_code != 0
    assert "topsecretval" not in result.output
    assert "resources.w.properties.length" in result.output  # still says where
    assert "read from a hidden parameter" in result.output


def test_template_resolve_masks_parameters_and_calls_reading_them_only(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    env = tmp_path / "env.yaml"
    env.write_text("parameter_defaults:\n  secret: e\n")
    result = CliRunner().invoke(
        cli, ["template", "resolve", str(path), "-e", str(env), "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["parameters"]["secret"] == "******"
    assert data["parameters"]["visible"] == "seven"
    properties = {r["name"]: r.get("properties") for r in data["resources"]}
    assert properties == {"holder": {"value": "<sensitive>"}, "plain": {"value": "seven"}}
    assert data["outputs"]["direct"] == "<sensitive>"
    assert "creation_order" in data and "resources" in data


def test_environment_show_masks_hidden_parameter_defaults(store_url: str, tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    env = tmp_path / "env.yaml"
    env.write_text("parameter_defaults:\n  secret: e\n  visible: seven\n")

    def run(*args: str):
        return CliRunner().invoke(cli, ["--db", store_url, "stack", *args], catch_exceptions=False)

    assert run("create", "s", "-t", str(path), "-e", str(env), "-f", "json").exit_code == 0
    data = json.loads(run("environment", "show", "s", "-f", "json").stdout)
    assert data["parameter_defaults"] == {"secret": "******", "visible": "seven"}
    assert "parameter_defaults" in data and "resource_registry" in data


FAILING = """\
heat_template_version: rocky
parameters:
  secret: {type: json, hidden: true}
resources:
  holder:
    type: OS::Heat::Value
    properties:
      value: {list_concat: [{get_param: secret}]}
outputs:
  shown: {value: {list_concat: [[1], {get_param: secret}]}}
"""


def test_function_failures_on_a_hidden_value_are_reported_without_it(
    store_url: str, tmp_path: Path
) -> None:
    """list_concat quotes its arguments; a call reading a hidden parameter is reported by
    name and position instead, at validate (warnings) and at create (refused)."""
    path = tmp_path / "t.yaml"
    path.write_text(FAILING)
    given = ["--parameter", 'secret={"k": "zebra-secret"}']
    runner = CliRunner()
    validate = runner.invoke(cli, ["template", "validate", str(path), *given])
    assert validate.exit_code == 0, validate.output
    assert "zebra" not in validate.output
    assert validate.stderr.count("list_concat: fails on a value read from a hidden parameter") == 2
    command = ["--db", store_url, "stack", "create", "s", "-t", str(path), *given]
    create = runner.invoke(cli, command)
    assert create.exit_code == 1
    assert "zebra" not in create.output
    assert "resources.holder.properties.value.list_concat" in create.stderr
