"""parameter_defaults merged against every template's parameters, as Heat merges them.

Heat merges the environment files of a request against ``all_param_schemata(files)``: the
parameters of every template in the request's files map. From the second file on, a
parameter_defaults name no template declares is dropped, and one a nested template alone
declares is kept. TripleO's overcloud depends on it: its registry (the first file) has
parameter_defaults, and the client's ``CtlplaneNetworkAttributes`` (the second file) is
declared only by ``network/deployed_networks.yaml``, where a yaql expression reads it as a
mapping (recorded from Heat 24.1.2: the overcloud's outputs, tests/tripleo). Merged against
the top template's parameters alone, it was dropped, the nested default ``{}`` applied,
and the create failed in the yaql.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli
from stoker.definition import RequestInputs, load_definition, load_request

NESTED = """\
heat_template_version: wallaby
parameters:
  NetworkAttributes:
    type: json
    default: {}
resources:
  IpVersion:
    type: OS::Heat::Value
    properties:
      value:
        yaql:
          expression: $.data.items().first().last().ip_version
          data: {get_param: [NetworkAttributes, subnets]}
outputs:
  ip_version:
    value: {get_attr: [IpVersion, value]}
"""
TOP = """\
heat_template_version: wallaby
parameters:
  Count:
    type: number
    default: 0
resources:
  network:
    type: My::Network
outputs:
  ip_version:
    value: {get_attr: [network, ip_version]}
"""
#: the first file has parameter_defaults of its own, as TripleO's registry does
REGISTRY = """\
resource_registry:
  My::Network: nested.yaml
parameter_defaults:
  Count: 1
"""
CLIENT = """\
parameter_defaults:
  NetworkAttributes:
    subnets:
      ctlplane-subnet: {ip_version: 4}
  NobodyDeclaresThis: 1
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name, text in (
        ("top.yaml", TOP),
        ("nested.yaml", NESTED),
        ("registry.yaml", REGISTRY),
        ("client.yaml", CLIENT),
    ):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_default_only_a_provider_declares_is_kept_from_the_second_file(tree: Path) -> None:
    result = load_definition(
        str(tree / "top.yaml"), [str(tree / "registry.yaml"), str(tree / "client.yaml")]
    )
    assert result.ok, result.diagnostics
    assert result.definition is not None
    defaults = result.definition.environment.parameter_defaults
    assert defaults["NetworkAttributes"] == {"subnets": {"ctlplane-subnet": {"ip_version": 4}}}
    assert defaults["Count"] == 1
    # still dropped: no template of the tree declares it (Heat ignores it too)
    assert "NobodyDeclaresThis" not in defaults


def test_a_request_merges_against_every_template_of_its_files(tree: Path) -> None:
    files = {
        "nested.yaml": NESTED,
        "registry.yaml": REGISTRY,
        "client.yaml": CLIENT,
    }
    inputs = RequestInputs(
        template=TOP,
        files=files,
        environment_files=("registry.yaml", "client.yaml"),
    )
    result = load_request(inputs)
    assert result.definition is not None
    defaults = result.definition.environment.parameter_defaults
    assert "NetworkAttributes" in defaults
    assert "NobodyDeclaresThis" not in defaults


def test_the_nested_yaql_reads_the_mapping_at_create(tree: Path, store_url: str) -> None:
    created = CliRunner().invoke(
        cli,
        [
            "--db",
            store_url,
            "stack",
            "create",
            "s",
            "-t",
            str(tree / "top.yaml"),
            "-e",
            str(tree / "registry.yaml"),
            "-e",
            str(tree / "client.yaml"),
            "-f",
            "json",
        ],
        catch_exceptions=False,
    )
    assert created.exit_code == 0, created.output
    stack = json.loads(created.stdout)
    assert stack["outputs"][0]["output_value"] == 4
    # Heat says nothing about the dropped name; --verbose would
    assert "NobodyDeclaresThis" not in created.stderr
