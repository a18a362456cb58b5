"""Compiling the examples: the chosen flavors, images and wiring, and the output that
stoker's own validation (what `template validate` runs) accepts."""

from __future__ import annotations

from typing import Any

import pytest

from stoker.blueprint import codes
from stoker.blueprint.cloudfacts import CloudFacts
from stoker.blueprint.compile import Compiled
from stoker.definition.loading import LoadOptions
from stoker.definition.requests import RequestInputs, load_request
from stoker.template.loader import load_document
from stoker.template.nodes import plain

from .conftest import PAIRS, compiled, example

pytestmark = pytest.mark.heavy

ENV = "blueprint.env.yaml"


def valid(result: Compiled) -> dict[str, Any]:
    """Load the compiled template as a stack create would; return its resources."""
    files = {**result.files, ENV: result.environment_text()}
    inputs = RequestInputs(result.text, files, environment_files=[ENV], label="compiled.yaml")
    loaded = load_request(inputs, LoadOptions(require_all_parameters=True))
    errors = [d.render() for d in loaded.diagnostics if d.is_error]
    assert not errors
    data = plain(load_document(result.text).data)
    assert data == result.template
    return dict(data["resources"])


def ok(name: str, facts: CloudFacts) -> Compiled:
    analysis, result = compiled(example(name), facts)
    assert result is not None and analysis.ok, [d.render() for d in analysis.diagnostics]
    return result


@pytest.mark.parametrize("syntax", [0, 1])
def test_script_server_compiles(syntax: int, facts: CloudFacts) -> None:
    result = ok(PAIRS["script"][syntax], facts)
    resources = valid(result)
    server = resources["my_server"]
    assert server["type"] == "Blueprint::Nova::Server"
    assert server["properties"]["flavor"] == "m1.medium"  # the smallest with 4 GB
    assert server["properties"]["image"] == "ubuntu-22.04-server-cloudimg-amd64"
    assert server["properties"]["configs"] == [{"get_attr": ["my_script", "config"]}]
    script = resources["my_script"]["properties"]["script"]
    assert "curl -fsSL 'http://example.com/my_install.sh'" in script
    assert "  # my_server: server, org.openstack.nova.Server (explicit)\n" in result.text
    assert "  #   run: my_script (named by fulfillment)\n" in result.text
    assert result.environment == {
        "resource_registry": {
            "Blueprint::Script::Shell": "shell_script.yaml",
            "Blueprint::Nova::Server": "server.yaml",
        }
    }
    assert "capabilities" not in result.files["server.yaml"]


def test_war_on_jetty_in_the_us(facts: CloudFacts) -> None:
    resources = valid(ok(PAIRS["war"][1], facts))
    host = resources["hello_war_wardeploymentrequirement_host"]["properties"]
    assert host["availability_zone"] == "nova"
    assert host["configs"] == [{"get_attr": ["hello_war_wardeploymentrequirement", "config"]}]
    war = resources["hello_war"]["properties"]
    assert war["filename"] == "hello.war" and war["data"].startswith("UEsDB")  # the ZIP


def test_php_tier_nodes_load_balancer_and_dns(facts: CloudFacts) -> None:
    resources = valid(ok(PAIRS["php"][0], facts))
    tier = resources["my_tier"]["properties"]
    assert tier["initialSize"] == 3
    assert tier["node_type"] == "Blueprint::Nova::Server"
    assert tier["node_properties"]["image"] == "rhel-9.4-x86_64-kvm"
    lb = resources["my_lb"]["properties"]
    assert lb["members"] == {"get_attr": ["my_tier", "addresses"]}
    assert lb["subnet"] == "subnet-1" and lb["publicPort"] == 80
    dns = resources["my_lb_dns"]["properties"]
    assert dns == {"hostname": "myapp.example.com", "address": {"get_attr": ["my_lb", "address"]}}
    assert list(resources) == [
        "my_tier_nodespec_run",
        "my_tier_nodespec_unpack",
        "my_tier",
        "my_lb",
        "my_lb_dns",
    ]


def test_camp_database_injection(facts: CloudFacts) -> None:
    resources = valid(ok(PAIRS["camp"][1], facts))
    frontend = resources["frontend"]["properties"]
    assert frontend["mode"] == "CDI"
    assert frontend["database_address"] == {"get_attr": ["backend_host", "address"]}
    assert resources["backend"]["properties"]["configs"] == [{"get_attr": ["hello_sql", "config"]}]
    lb = resources["lb"]["properties"]
    assert lb["members"] == {"get_attr": ["frontend_host", "addresses"]}
    assert lb["sticky-sessions"] is True and lb["protocol"] == "https"


def test_no_cloud_says_how_to_choose_one() -> None:
    analysis, result = compiled(example(PAIRS["script"][0]), None)
    errors = [d for d in analysis.diagnostics if d.is_error]
    assert errors and errors[0].code == codes.BLUEPRINT_CLOUD
    assert 'component "my_server" (server) needs a cloud' in errors[0].message


def test_jurisdiction_needs_declared_locations(facts: CloudFacts) -> None:
    analysis, _ = compiled(example(PAIRS["war"][0]), facts, {})
    (error,) = [d for d in analysis.diagnostics if d.is_error]
    assert "blueprint_locations" in error.message
    assert error.span is not None and error.span.line == 11  # the jurisdiction requirement


def test_unmet_ram_lists_the_flavors(facts: CloudFacts, tmp_path: Any) -> None:
    path = tmp_path / "bp.yaml"
    path.write_text("components:\n  s:\n    type: server\n    requires: {minRam: 64gb}\n")
    analysis, _ = compiled(str(path), facts)
    (error,) = [d for d in analysis.diagnostics if d.is_error]
    assert error.span is not None and error.span.line == 4
    assert "no flavor of the sandbox has RAM >= 65536 MB" in error.message
    assert "m1.xlarge: 16384 MB RAM < 65536 MB" in error.message
