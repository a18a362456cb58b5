"""Neutron's and Cinder's types against the real sandbox, through the real CLI.

Each test creates what a template describes, looks at the cloud with openstacksdk as an
operator would, and deletes the stack; afterwards the cloud holds nothing of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

TEMPLATES = Path(__file__).parent / "templates"


@pytest.fixture
def stoker(db_url: str, cloud_env: dict[str, str]):
    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", db_url, "stack", *args])

    return run


def leftovers(admin: Any, prefix: str) -> list[str]:
    """What a stack called ``prefix`` left in the cloud (its names start with it)."""
    found = [f"network {n.name}" for n in admin.network.networks() if n.name.startswith(prefix)]
    found += [f"port {p.name}" for p in admin.network.ports() if p.name.startswith(prefix)]
    found += [f"router {r.name}" for r in admin.network.routers() if r.name.startswith(prefix)]
    found += [
        f"security group {g.name}"
        for g in admin.network.security_groups()
        if g.name.startswith(prefix)
    ]
    found += [
        f"volume {v.name}" for v in admin.block_storage.volumes() if v.name.startswith(prefix)
    ]
    return found


def test_network_stack_creates_what_it_says_and_deletes_all_of_it(stoker, admin, public_network):
    created = stoker("create", "netstack", "-t", str(TEMPLATES / "network.yaml"), "-f", "json")
    assert created.exit_code == 0, created.output
    shown = json.loads(stoker("output", "show", "netstack", "--all", "-f", "json").stdout)
    outputs = {o["output_key"]: o["output_value"] for o in shown}
    assert outputs["ip"].startswith("10.8.0.")
    assert outputs["fip"].startswith("172.24.4.")
    assert outputs["vol"] == "available"
    resources = json.loads(stoker("resource", "list", "netstack", "-f", "json").stdout)
    ids = {r["resource_name"]: r["physical_resource_id"] for r in resources}
    port = admin.network.get_port(ids["port"])
    assert port.fixed_ips[0]["ip_address"] == outputs["ip"]
    assert port.security_group_ids == [ids["sg"]]
    rules = list(admin.network.security_group_rules(security_group_id=ids["sg"]))
    ingress = sorted((r.protocol, r.port_range_min) for r in rules if r.direction == "ingress")
    assert ingress == [("icmp", None), ("tcp", 22)]
    # no egress rule in the template: Neutron's defaults stay, as Heat keeps them
    assert sorted(r.ether_type for r in rules if r.direction == "egress") == ["IPv4", "IPv6"]
    fip = admin.network.get_ip(ids["fip"])
    assert fip.port_id == ids["port"]
    assert ids["iface"] == f"{ids['router']}:subnet_id={ids['subnet']}"
    assert leftovers(admin, "netstack-")

    deleted = stoker("delete", "netstack", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert leftovers(admin, "netstack-") == []
    assert admin.network.find_ip(ids["fip"]) is None


def test_unknown_network_is_a_located_error_naming_the_nearest(stoker, tmp_path, public_network):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: wallaby\n"
        "parameters:\n"
        "  net: {type: string, default: publik,\n"
        "        constraints: [custom_constraint: neutron.network]}\n"
        "resources:\n"
        "  port: {type: OS::Neutron::Port, properties: {network: {get_param: net}}}\n"
    )
    result = stoker("create", "badnet", "-t", str(path))
    assert result.exit_code == 1
    assert f"{path}:3:3: parameters.net" in result.stderr, result.stderr
    assert "The Network (publik) could not be found; the nearest names: public" in result.stderr
    assert stoker("list", "-f", "value").stdout == ""


def test_cloud_failure_names_resource_call_and_cloud_message(stoker, tmp_path, admin):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net}\n"
        "  a: {type: OS::Neutron::Subnet, properties: {network: {get_resource: net}, "
        "cidr: 10.9.0.0/24}}\n"
        "  b: {type: OS::Neutron::Subnet, depends_on: a, properties: {network: "
        "{get_resource: net}, cidr: 10.9.0.0/25}}\n"
    )
    result = stoker("create", "overlap", "-t", str(path))
    assert result.exit_code == 1
    assert "CloudError: resources.b: network.create_subnet failed (HTTP 400)" in result.stderr
    assert "overlap" in result.stderr.lower()
    assert stoker("delete", "overlap", "--yes").exit_code == 0
    assert leftovers(admin, "overlap-") == []


def test_a_stack_of_cloud_resources_keeps_its_cloud(stoker, admin, tmp_path, monkeypatch):
    """Created with OS_CLOUD, deleted without: the stack's own cloud (kept with it) is
    used; tests/cloud/test_stack_cloud_option.py refuses a stack that has none."""
    path = tmp_path / "t.yaml"
    path.write_text("heat_template_version: wallaby\nresources:\n  net: {type: OS::Neutron::Net}\n")
    assert stoker("create", "kept", "-t", str(path)).exit_code == 0
    assert leftovers(admin, "kept-") != []
    monkeypatch.delenv("OS_CLOUD")
    deleted = stoker("delete", "kept", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert leftovers(admin, "kept-") == []


def test_port_fixed_ips_and_network_name_update_in_place(stoker, admin, tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: wallaby\n"
        "parameters:\n"
        "  ip: {type: string}\n"
        "  net_name: {type: string}\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net, properties: {name: {get_param: net_name}}}\n"
        "  subnet: {type: OS::Neutron::Subnet, properties: {network: {get_resource: net}, "
        "cidr: 10.11.0.0/24}}\n"
        "  port:\n"
        "    type: OS::Neutron::Port\n"
        "    properties:\n"
        "      network: {get_resource: net}\n"
        "      fixed_ips: [{subnet: {get_resource: subnet}, ip_address: {get_param: ip}}]\n"
    )
    args = ["-t", str(path), "--parameter", "net_name=inplace-a"]
    assert stoker("create", "inplace", *args, "--parameter", "ip=10.11.0.20").exit_code == 0
    resources = json.loads(stoker("resource", "list", "inplace", "-f", "json").stdout)
    ids = {r["resource_name"]: r["physical_resource_id"] for r in resources}
    updated = stoker(
        "update", "inplace", "-t", str(path),
        "--parameter", "ip=10.11.0.30", "--parameter", "net_name=inplace-b",
    )  # fmt: skip
    assert updated.exit_code == 0, updated.stderr
    port = admin.network.get_port(ids["port"])  # the same port, changed in place
    assert [f["ip_address"] for f in port.fixed_ips] == ["10.11.0.30"]
    assert admin.network.get_network(ids["net"]).name == "inplace-b"
    assert stoker("delete", "inplace", "--yes").exit_code == 0
    assert admin.network.find_network("inplace-b") is None


def test_key_pair_server_group_and_flavor(stoker, admin, tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  key: {type: OS::Nova::KeyPair, properties: {name: nova-types-key, "
        "save_private_key: true}}\n"
        "  group: {type: OS::Nova::ServerGroup, properties: {policies: [anti-affinity]}}\n"
        "  flavor:\n"
        "    type: OS::Nova::Flavor\n"
        "    properties: {ram: 256, vcpus: 1, disk: 1, extra_specs: {'hw:cpu_policy': shared}}\n"
        "outputs:\n"
        "  public_key: {value: {get_attr: [key, public_key]}}\n"
        "  private_key: {value: {get_attr: [key, private_key]}}\n"
        "  specs: {value: {get_attr: [flavor, extra_specs]}}\n"
    )
    created = stoker("create", "novatypes", "-t", str(path), "-f", "json")
    assert created.exit_code == 0, created.stderr
    shown = json.loads(stoker("output", "show", "novatypes", "--all", "-f", "json").stdout)
    outputs = {o["output_key"]: o["output_value"] for o in shown}
    assert outputs["public_key"].startswith("ssh-")
    assert "PRIVATE KEY" in outputs["private_key"]
    assert outputs["specs"] == {"hw:cpu_policy": "shared"}
    resources = json.loads(stoker("resource", "list", "novatypes", "-f", "json").stdout)
    ids = {r["resource_name"]: r["physical_resource_id"] for r in resources}
    assert ids["key"] == "nova-types-key"
    group = admin.compute.get_server_group(ids["group"])  # 2.64 on: one "policy"
    assert (group.policies or [group.policy]) == ["anti-affinity"]
    assert admin.compute.get_flavor(ids["flavor"]).ram == 256
    assert stoker("delete", "novatypes", "--yes").exit_code == 0
    assert admin.compute.find_keypair("nova-types-key") is None
    assert admin.compute.find_flavor(ids["flavor"]) is None


def test_a_server_that_goes_to_error_fails_its_resource_and_is_deleted(
    stoker, admin, sandbox, tmp_path
):
    from .test_cloud_crash import servers_template, set_faults

    set_faults(sandbox, {"error_servers": ["errsrv-server0-*"]})
    try:
        path = tmp_path / "errsrv.yaml"
        path.write_text(servers_template(1))
        created = stoker("create", "errsrv", "-t", str(path))
    finally:
        set_faults(sandbox, None)
    assert created.exit_code == 1
    assert "resources.server0: compute.get_server: " in created.stderr
    assert "went to ERROR" in created.stderr
    assert [s.status for s in admin.compute.servers() if s.name.startswith("errsrv-")] == ["ERROR"]
    deleted = stoker("delete", "errsrv", "--yes")
    assert deleted.exit_code == 0, deleted.stderr
    assert [s.id for s in admin.compute.servers() if s.name.startswith("errsrv-")] == []
