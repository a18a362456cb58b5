"""Every environment file of the corpus (``tests/corpus/data``) loads, and a few say what
Heat's docs say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stoker.environment import load_environment_file

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"
INDEX = CORPUS / "index.json"

# Corpus environments that fail validation, with the reason. None do today: the two under
# openshift-origin/.../invalid/ are valid environments (their templates are what is broken).
EXPECTED_INVALID: dict[str, str] = {}


def _env_paths() -> list[str]:
    return [entry["path"] for entry in json.loads(INDEX.read_text()) if entry["kind"] == "env"]


ENV_PATHS = _env_paths()


@pytest.mark.parametrize("relative", ENV_PATHS)
def test_corpus_environment_loads(relative):
    path = str(CORPUS / relative)
    environment, found = load_environment_file(path)
    errors = [d.render() for d in found if d.is_error]
    if relative in EXPECTED_INVALID:
        assert errors, f"expected to fail: {EXPECTED_INVALID[relative]}"
        return
    assert errors == []
    assert environment.files == [path]
    for ref in environment.resource_registry.template_paths():
        assert ref.location  # every provider template has somewhere to be looked for


def load(relative: str):
    environment, found = load_environment_file(str(CORPUS / relative))
    assert [d for d in found if d.is_error] == []
    return environment


def test_heat_global_environment():
    registry = load("openstack__heat/etc/heat/environment.d/default.yaml").resource_registry
    assert registry.resolve("OS::Quantum::Net").type_name == "OS::Neutron::Net"
    assert registry.resolve("OS::Ceilometer::Alarm").type_name == "OS::Aodh::Alarm"
    alarm = registry.resolve("AWS::CloudWatch::Alarm")
    assert alarm.template_location == "/etc/heat/templates/AWS_CloudWatch_Alarm.yaml"
    assert sorted(ref.location for ref in registry.template_paths()) == [
        "/etc/heat/templates/AWS_CloudWatch_Alarm.yaml",
        "/etc/heat/templates/AWS_RDS_DBInstance.yaml",
    ]


def test_doc_nested_hooks():
    registry = load(
        "openstack__heat/_extracted/rst/doc/source/template_guide/environment.rst/L222.yaml"
    ).resource_registry
    assert registry.hooks("my_server") == {"pre-create"}
    assert registry.hooks("nested_resource", ("nested_stack",)) == {"pre-update"}
    assert registry.hooks("another_resource", ("nested_stack",)) == {"pre-create", "pre-update"}
    assert registry.resolve("OS::DBInstance", "my_server").template_location == (
        "/home/mine/all_my_cool_templates/db.yaml"
    )


def test_doc_glob_hooks():
    registry = load(
        "openstack__heat/_extracted/rst/doc/source/template_guide/environment.rst/L242.yaml"
    ).resource_registry
    assert registry.hooks("db_server") == {"pre-create"}
    assert registry.hooks("server_db") == frozenset()


def test_relative_provider_template_is_found_next_to_the_environment():
    environment = load(
        "openstack__heat-templates/hot/software-config/example-templates/"
        "example-pristine-atomic-tool_env.yaml"
    )
    resolved = environment.resource_registry.resolve("Heat::InstallConfigAgent")
    assert resolved.template == "../boot-config/templates/install_container_agent.yaml"
    assert Path(resolved.template_location).is_file()
