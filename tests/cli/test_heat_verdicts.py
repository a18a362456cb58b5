"""``template validate`` and ``stack create`` refuse what Heat refuses, at the same stage.

Each verdict and message was recorded from real Heat 24.1.2 (``POST /validate``, then
``POST /stacks``): some templates Heat refuses at validate, some only at create.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

HEADER = "heat_template_version: 2018-08-31\n"


@pytest.fixture
def stoker(store_url):
    def run(*args: str):
        options = ["--db", store_url]
        if args and args[0] == "--project":
            options, args = [*options, *args[:2]], args[2:]
        return CliRunner().invoke(cli, [*options, *args], catch_exceptions=False)

    return run


def _write(tmp_path: Path, body: str) -> str:
    path = tmp_path / "t.yaml"
    path.write_text(HEADER + body)
    return str(path)


# body -> Heat's validate message (and create refuses the same way)
REFUSED_AT_VALIDATE = {
    "resources:\n  v: {type: OS::Heat::Value, properties: {value: x}}\n"
    "outputs:\n  o: {value: {get_attr: [v, nosuch]}}\n": (
        "The Referenced Attribute (v nosuch) is incorrect."
    ),
    "resources:\n  n: {type: OS::Nova::Server, properties: {image: i, flavor: f}}\n"
    "outputs:\n  o: {value: {get_attr: [n, nosuch]}}\n": (
        "The Referenced Attribute (n nosuch) is incorrect."
    ),
    "resources:\n  v: {type: OS::Heat::Value, properties: {value: x}}\n"
    "  w: {type: OS::Heat::Value, properties: {value: {get_attr: [v, nosuch]}}}\n": (
        "The Referenced Attribute (v nosuch) is incorrect."
    ),
    "resources:\n  u: {type: OS::Test::WebAppConfig}\n": (
        "The Resource Type (OS::Test::WebAppConfig) could not be found."
    ),
    "resources:\n  t: {type: OS::Heat::TestResource, properties: {nosuch: 1}}\n": (
        "Unknown Property nosuch"
    ),
    "resources:\n  m: {type: OS::Octavia::HealthMonitor, properties: {max_retries_down: 3}}\n": (
        "Unknown Property max_retries_down"
    ),
    "conditions:\nresources: {}\n": (
        "Condition definitions must be a map. Found a NoneType instead"
    ),
    # update_policy keys against the type's update policy schema (none: no keys)
    "resources:\n  a: {type: OS::Heat::None, update_policy: {x: 1}}\n": "Unknown Property x",
    "resources:\n  g: {type: OS::Heat::ResourceGroup, properties: {count: 0, resource_def: "
    "{type: OS::Heat::None}}, update_policy: {batch_create: {nosuch: 1}}}\n": (
        "Unknown Property nosuch"
    ),
}

# body -> Heat's create message; Heat's validate accepts these
REFUSED_AT_CREATE = {
    "parameters:\n  p: {type: string, default: a, constraints: "
    "[{custom_constraint: no.such_thing}]}\n": (
        "Parameter 'p' is invalid: \"a\" does not validate no.such_thing (constraint not found)"
    ),
    "resources:\n  j: {type: OS::Heat::Value, properties: {type: json, value: '{\"a\": 1}'}}\n": (
        '"{"a": 1}" is not a map'
    ),
    "resources:\n  l: {type: OS::Heat::Value, properties: "
    "{type: comma_delimited_list, value: 'a,b'}}\n": "\"'a,b'\" is not a list",
    "resources:\n  l: {type: OS::Heat::Value, properties: {type: number, value: x}}\n": (
        "could not convert string to float: 'x'"
    ),
    # Heat's validate checks only that properties are known; types and required at create
    "resources:\n  r: {type: OS::Heat::RandomString, properties: {length: abc}}\n": (
        "Value 'abc' is not an integer"
    ),
    "resources:\n  v: {type: OS::Heat::Value}\n": "value",
}

# Heat accepts these at validate and create
ACCEPTED = [
    "resources:\n  v: {type: OS::Heat::Value, properties: {value: x}}\n"
    "outputs:\n  o: {value: {get_attr: [v, show]}}\n",
    "resources:\n  none: {type: OS::Heat::None}\n"
    "outputs:\n  o: {value: {get_attr: [none, anything]}}\n",
    "resources:\n  rg: {type: OS::Heat::ResourceGroup, properties: {count: 1, resource_def: "
    "{type: OS::Heat::Value, properties: {value: x}}}}\n"
    "outputs:\n  o: {value: {get_attr: [rg, value]}}\n",
    "resources:\n  g: {type: OS::Heat::ResourceGroup, properties: {count: 0, resource_def: "
    "{type: OS::Heat::None}}, update_policy: {batch_create: {max_batch_size: 1}}}\n",
]

_GROUP = (
    "resources:\n  rg: {type: OS::Heat::ResourceGroup, properties: {count: 2, resource_def: "
    "{type: OS::Heat::Value, properties: {value: x}}}}\n"
)
# a member attribute the member's type lacks: Heat's create builds the group's nested
# template with an output per attribute read, and refuses it
for _read in ("[rg, nosuch]", "[rg, attributes, nosuch]", "[rg, resource.0.nosuch]"):
    REFUSED_AT_CREATE[_GROUP + f"outputs:\n  o: {{value: {{get_attr: {_read}}}}}\n"] = (
        "The Referenced Attribute (0 nosuch) is incorrect."
    )
# parameter values: Heat's validate checks declarations only
REFUSED_AT_CREATE["parameters:\n  n: {type: number, default: abc}\n"] = (
    "Parameter 'n' is invalid: could not convert string to float: 'abc'"
)


# Heat's validate accepts these cloud templates (create would need the cloud)
VALIDATE_ACCEPTS = [
    # a hidden (removed) type: Heat checks neither its properties nor its attributes
    "resources:\n  d: {type: OS::Designate::Domain, properties: {name: x, email: y}}\n"
    "outputs:\n  o: {value: {get_attr: [d, serial]}}\n",
    "resources:\n  n: {type: OS::Nova::Server, properties: {flavor: {get_param: nosuch}}}\n",
]


@pytest.mark.parametrize("body", VALIDATE_ACCEPTS)
def test_validate_accepts_cloud_templates_heat_accepts(stoker, tmp_path, body):
    validated = stoker("template", "validate", _write(tmp_path, body))
    assert validated.exit_code == 0, validated.output


@pytest.mark.parametrize(("body", "message"), REFUSED_AT_VALIDATE.items())
def test_refused_at_validate_and_create(stoker, tmp_path, body, message):
    path = _write(tmp_path, body)
    validated = stoker("template", "validate", path)
    assert validated.exit_code == 1 and message in validated.output
    created = stoker("stack", "create", "s", "-t", path)
    assert created.exit_code != 0 and message in created.output
    assert "s" not in stoker("stack", "list", "-f", "value").output.split()


@pytest.mark.parametrize(("body", "message"), REFUSED_AT_CREATE.items())
def test_refused_only_at_create(stoker, tmp_path, body, message):
    path = _write(tmp_path, body)
    validated = stoker("template", "validate", path)
    assert validated.exit_code == 0, validated.output
    created = stoker("stack", "create", "s", "-t", path)
    assert created.exit_code != 0 and message in created.output


@pytest.mark.parametrize("body", ACCEPTED)
def test_accepted(stoker, tmp_path, body):
    path = _write(tmp_path, body)
    assert stoker("template", "validate", path).exit_code == 0
    created = stoker("stack", "create", "s", "-t", path)
    assert created.exit_code == 0, created.output


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("parameters:\n  no: {type: string, default: a}\n", "false"),
        ("outputs:\n  null: {value: 1}\n", "null"),
        ("resources:\n  1: {type: OS::Heat::None}\n", "1"),
    ],
)
def test_names_that_yaml_does_not_read_as_strings_are_refused(stoker, tmp_path, body, name):
    # Heat refuses each of these templates (recorded: 400 at validate)
    validated = stoker("template", "validate", _write(tmp_path, body))
    assert validated.exit_code == 1
    assert f"The name {name} in" in validated.output and "quote it" in validated.output


def test_an_environment_may_not_carry_encrypted_param_names(stoker, tmp_path):
    # Heat 24.1.2: validate accepts it, create fails (with an internal KeyError)
    path = _write(tmp_path, "parameters:\n  p: {type: string, default: a}\n")
    env = tmp_path / "env.yaml"
    env.write_text("encrypted_param_names: [p]\n")
    validated = stoker("template", "validate", path, "-e", str(env))
    assert validated.exit_code == 0 and "warning: encrypted_param_names" in validated.output
    created = stoker("stack", "create", "s", "-t", path, "-e", str(env))
    assert created.exit_code != 0 and f"{env}:1:1: encrypted_param_names" in created.output


def _tree(tmp_path: Path) -> Path:
    """A TripleO-like tree: a service template reads a script from a sibling directory."""
    (tmp_path / "scripts").mkdir(parents=True)
    (tmp_path / "scripts" / "x.sh").write_text("echo hi\n")
    (tmp_path / "deployment").mkdir()
    (tmp_path / "deployment" / "svc.yaml").write_text(
        HEADER + "resources:\n  c: {type: OS::Heat::Value, properties: "
        "{value: {get_file: ../scripts/x.sh}}}\n"
        "outputs:\n  script: {value: {get_attr: [c, value]}}\n"
    )
    top = tmp_path / "top.yaml"
    top.write_text(
        HEADER + "resources:\n  svc: {type: deployment/svc.yaml}\n"
        "outputs:\n  script: {value: {get_attr: [svc, script]}}\n"
    )
    return top


def test_get_file_in_a_provider_is_relative_to_that_template(stoker, tmp_path):
    top = str(_tree(tmp_path))
    assert stoker("template", "validate", top).exit_code == 0
    created = stoker("stack", "create", "s", "-t", top, "-f", "json")
    assert created.exit_code == 0, created.output
    shown = stoker("stack", "output", "show", "s", "script", "-f", "json")
    assert json.loads(shown.stdout)["output_value"] == "echo hi\n"


def test_restrict_files_refuses_a_provider_reading_outside_the_tree(stoker, tmp_path):
    top = _tree(tmp_path / "outer")
    validated = stoker("template", "validate", str(top), "--restrict-files")
    assert validated.exit_code == 0  # ../scripts stays inside the top template's tree
    nested = tmp_path / "outer" / "deployment" / "svc.yaml"
    nested.write_text(nested.read_text().replace("../scripts/x.sh", "../../secret.txt"))
    (tmp_path / "secret.txt").write_text("top secret\n")
    refused = stoker("stack", "create", "s", "-t", str(top), "--restrict-files", "-f", "json")
    assert refused.exit_code == 1 and "top secret" not in refused.output
    created = stoker("stack", "create", "s", "-t", str(top), "-f", "json")
    assert created.exit_code == 0, created.output
    assert "top secret" in stoker("stack", "output", "show", "s", "script", "-f", "json").output


def test_a_provider_parameter_without_default_is_required_only_at_create(stoker, tmp_path):
    # Heat 24.1.2: validate accepts; create says "Property RedisPassword not assigned";
    # with parameter_defaults supplying it, create goes on
    (tmp_path / "child.yaml").write_text(
        HEADER + "parameters:\n  RedisPassword: {type: string, hidden: true}\n"
    )
    path = _write(tmp_path, "resources:\n  c: {type: child.yaml}\n")
    assert stoker("template", "validate", path).exit_code == 0
    created = stoker("stack", "create", "s", "-t", path)
    assert created.exit_code == 1 and "RedisPassword" in created.output
    env = tmp_path / "env.yaml"
    env.write_text("parameter_defaults:\n  RedisPassword: pw\n")
    assert stoker("stack", "create", "s", "-t", path, "-e", str(env)).exit_code == 0


def test_a_nested_hidden_default_breaking_its_pattern_fails_only_at_create(stoker, tmp_path):
    # Heat 24.1.2: validate accepts; create refuses ('Parameter 'Key' is invalid: Invalid
    # default ...'); the same default in the top template is refused at validate
    declaration = (
        "parameters:\n  Key: {type: string, hidden: true, default: '', constraints: "
        "[{allowed_pattern: '^[a-zA-Z0-9+/]{38}==$'}]}\n"
    )
    (tmp_path / "child.yaml").write_text(HEADER + declaration)
    path = _write(tmp_path, "resources:\n  c: {type: child.yaml}\n")
    validated = stoker("template", "validate", path)
    assert validated.exit_code == 0 and "warning: Parameter 'Key' is invalid" in validated.output
    created = stoker("stack", "create", "s", "-t", path)
    assert created.exit_code == 1 and "Parameter 'Key' is invalid" in created.output
    assert stoker("template", "validate", _write(tmp_path, declaration)).exit_code == 1


def test_get_param_indexes_a_string_as_heat_does(stoker, tmp_path):
    # recorded from Heat 24.1.2: 'abc'[0] is 'a', a path past the end gives ''
    body = (
        "parameters:\n  s: {type: string, default: abc}\n"
        "outputs:\n  a: {value: {get_param: [s, 0]}}\n  c: {value: {get_param: [s, 9]}}\n"
    )
    created = stoker("stack", "create", "s", "-t", _write(tmp_path, body), "-f", "json")
    assert created.exit_code == 0, created.output
    shown = stoker("stack", "output", "show", "s", "--all", "-f", "json")
    outputs = {o["output_key"]: o["output_value"] for o in json.loads(shown.stdout)}
    assert outputs == {"a": "a", "c": ""}


def test_project_option_scopes_stacks_and_arns(stoker, tmp_path, monkeypatch):
    path = str(tmp_path / "t.yaml")
    Path(path).write_text("AWSTemplateFormatVersion: '2010-09-09'\nResources: {}\n")
    first = stoker("--project", "admin", "stack", "create", "same", "-t", path, "-f", "json")
    assert first.exit_code == 0, first.output
    found = stoker("--project", "admin", "stack", "show", "same", "-f", "json")
    shown = json.loads(found.stdout)["parameters"]
    assert shown["AWS::StackId"].startswith("arn:openstack:heat::admin:stacks/same/")
    assert set(shown) == {"AWS::StackId", "AWS::StackName", "AWS::Region"}
    again = stoker("--project", "admin", "stack", "create", "same", "-t", path)
    assert again.exit_code == 1 and "The Stack (same) already exists." in again.output
    monkeypatch.setenv("STOKER_PROJECT", "other")
    assert stoker("stack", "create", "same", "-t", path).exit_code == 0
