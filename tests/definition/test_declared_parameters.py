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
from stoker.definition import (
    CurrentInputs,
    LoadOptions,
    RequestInputs,
    TemplateReads,
    client_declared,
    load_definition,
    load_request,
    load_update_definition,
    load_update_request,
    parse_template,
)
from stoker.environment import parse_environment
from stoker.lint import LintOptions, lint
from stoker.lint.config import find_config, load_config
from stoker.template.loader import load_document, read_file

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


def stack_command(tree: Path, store_url: str, action: str) -> list[str]:
    """``stack create`` or ``stack update`` of the tree with both environment files."""
    return [
        "--db",
        store_url,
        "stack",
        action,
        "s",
        "-t",
        str(tree / "top.yaml"),
        "-e",
        str(tree / "registry.yaml"),
        "-e",
        str(tree / "client.yaml"),
        "-f",
        "json",
    ]


def first_output(store_url: str) -> object:
    """The value of stack ``s``'s first output (``stack show``: create and update print
    the short view, without outputs)."""
    shown = CliRunner().invoke(
        cli, ["--db", store_url, "stack", "show", "s", "-f", "json"], catch_exceptions=False
    )
    return json.loads(shown.stdout)["outputs"][0]["output_value"]


def test_the_nested_yaql_reads_the_mapping_at_create(tree: Path, store_url: str) -> None:
    created = CliRunner().invoke(
        cli, stack_command(tree, store_url, "create"), catch_exceptions=False
    )
    assert created.exit_code == 0, created.output
    assert json.loads(created.stdout)["stack_status"] == "CREATE_COMPLETE"
    assert first_output(store_url) == 4
    # Heat says nothing about the dropped name; --verbose would
    assert "NobodyDeclaresThis" not in created.stderr


def test_an_update_with_the_same_files_keeps_what_only_a_provider_declares(
    tree: Path, store_url: str
) -> None:
    """The update merges its environment files as the create did: against every template
    the client sends (merged against the top template's alone, the nested default ``{}``
    came back and the update failed in the yaql)."""
    runner = CliRunner()
    created = runner.invoke(cli, stack_command(tree, store_url, "create"), catch_exceptions=False)
    assert created.exit_code == 0, created.output
    updated = runner.invoke(cli, stack_command(tree, store_url, "update"), catch_exceptions=False)
    assert updated.exit_code == 0, updated.output
    assert json.loads(updated.stdout)["stack_status"] == "UPDATE_COMPLETE"
    assert first_output(store_url) == 4
    assert "NobodyDeclaresThis" not in updated.stderr


CURRENT = CurrentInputs(template={}, environment={}, files={}, parameters={})


def test_an_update_definition_merges_against_the_tree_it_reads(tree: Path) -> None:
    result, _ = load_update_definition(
        str(tree / "top.yaml"),
        [str(tree / "registry.yaml"), str(tree / "client.yaml")],
        {},
        LoadOptions(),
        current=CURRENT,
        existing=False,
    )
    assert result.definition is not None
    defaults = result.definition.environment.parameter_defaults
    assert defaults["NetworkAttributes"] == {"subnets": {"ctlplane-subnet": {"ip_version": 4}}}
    assert "NobodyDeclaresThis" not in defaults


def test_a_patch_request_merges_against_the_templates_it_sends() -> None:
    """A PATCH runs with the stored files and the request's, but Heat merges the request's
    environment files against the templates of the request's own ``files`` (its update
    calls ``all_param_schemata(files)`` with the request's map): a provider only the stored
    files hold declares nothing for this merge."""
    import yaml

    current = CurrentInputs(
        template=yaml.safe_load(TOP),
        environment={},
        files={"nested.yaml": NESTED},
        parameters={},
    )
    sent = RequestInputs(
        template=None,
        files={"registry.yaml": REGISTRY, "client.yaml": CLIENT},
        environment_files=("registry.yaml", "client.yaml"),
    )
    result, _ = load_update_request(sent, LoadOptions(), current=current, existing=True)
    assert result.definition is not None
    assert "NetworkAttributes" not in result.definition.environment.parameter_defaults
    resent = RequestInputs(
        template=None,
        files={"nested.yaml": NESTED, **sent.files},
        environment_files=sent.environment_files,
    )
    result, _ = load_update_request(resent, LoadOptions(), current=current, existing=True)
    assert result.definition is not None
    assert "NetworkAttributes" in result.definition.environment.parameter_defaults


def test_lint_reports_only_the_names_no_template_of_the_tree_declares(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / ".stoker-lint.yaml").write_text(
        "environments:\n  top.yaml: [registry.yaml, client.yaml]\n"
    )
    monkeypatch.chdir(tree)
    found = find_config(str(tree))
    assert found is not None
    report = lint(["top.yaml"], LintOptions(config=load_config(found)))
    dropped = [d.message for d in report.findings if "is dropped" in d.message]
    assert len(dropped) == 1
    assert '"NobodyDeclaresThis"' in dropped[0]


def test_templates_of_one_run_read_a_provider_they_share_once(tree: Path) -> None:
    """A lint of a package shares the files read: the second template naming the provider
    finds its parameters without reading it again, and declares the same names."""
    (tree / "other.yaml").write_text(TOP.replace("Count:", "Size:"))
    reads = TemplateReads()
    environments = [parse_environment(load_document(REGISTRY, str(tree / "registry.yaml")))[0]]
    declared = []
    for name in ("top.yaml", "other.yaml"):
        template = parse_template(read_file(str(tree / name)))
        declared.append(client_declared(template, environments, str(tree), reads=reads))
    assert list(reads.documents) == [str(tree / "nested.yaml")]
    assert declared[0] == {"NetworkAttributes": "json", "Count": "number"}
    assert declared[1] == {"NetworkAttributes": "json", "Size": "number"}
    # what one template alone declares, without the shared reads
    alone = client_declared(
        parse_template(read_file(str(tree / "other.yaml"))), environments, str(tree)
    )
    assert alone == declared[1]


def test_lint_of_two_templates_naming_one_provider_keeps_its_parameters(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "other.yaml").write_text(TOP.replace("Count:", "Size:"))
    (tree / ".stoker-lint.yaml").write_text(
        "environments:\n"
        "  top.yaml: [registry.yaml, client.yaml]\n"
        "  other.yaml: [registry.yaml, client.yaml]\n"
    )
    monkeypatch.chdir(tree)
    found = find_config(str(tree))
    assert found is not None
    report = lint(["top.yaml", "other.yaml"], LintOptions(config=load_config(found)))
    dropped = [d.message for d in report.findings if "is dropped" in d.message]
    # only the name no template declares (one finding on the file), never the provider's
    assert len(dropped) == 1, dropped
    assert '"NobodyDeclaresThis"' in dropped[0]
