"""The real ``openstack`` CLI (python-openstackclient) against the sandbox's Neutron and
Cinder, as an operator bootstraps a cloud. Each command is a subprocess (a second or two
each), so all but the first test are ``slow``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from .server import RunningSandbox

OPENSTACK = Path(sys.executable).with_name("openstack")


def _cli(sandbox: RunningSandbox, config: Path, *args: str) -> Any:
    """``openstack --os-cloud sandbox ARGS -f json``, its output parsed (None if empty)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env["OS_CLIENT_CONFIG_FILE"] = str(config)
    done = subprocess.run(
        [str(OPENSTACK), "--os-cloud", "sandbox", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, f"openstack {' '.join(args)}: {done.stderr}"
    return json.loads(done.stdout) if done.stdout.strip() else None


@pytest.fixture
def clouds(sandbox: RunningSandbox, tmp_path: Path) -> Path:
    return sandbox.clouds_yaml(tmp_path / "clouds.yaml")


@pytest.mark.slow  # moved out of the default suite: its 90 s budget
def test_cli_creates_an_external_network(sandbox: RunningSandbox, clouds: Path, cloud: Any) -> None:
    name = f"public-{uuid.uuid4().hex[:6]}"
    network = _cli(sandbox, clouds, "network", "create", "--external", name, "-f", "json")
    assert network["router:external"] is True and network["name"] == name
    assert cloud.network.get_network(network["id"]).is_router_external is True
    cloud.network.delete_network(network["id"])


@pytest.mark.slow
def test_cli_bootstraps_a_tenant_topology_and_tears_it_down(
    sandbox: RunningSandbox, clouds: Path
) -> None:
    tag = uuid.uuid4().hex[:6]

    def cli(*args: str) -> Any:
        return _cli(sandbox, clouds, *args)

    public = cli("network", "create", "--external", f"ext-{tag}", "-f", "json")
    external = cli(
        "subnet",
        "create",
        "--network",
        public["id"],
        "--subnet-range",
        "198.51.100.0/24",
        "--allocation-pool",
        "start=198.51.100.10,end=198.51.100.20",
        "--no-dhcp",
        f"ext-{tag}-subnet",
        "-f",
        "json",
    )
    assert external["gateway_ip"] == "198.51.100.1" and external["enable_dhcp"] is False
    assert external["allocation_pools"] == [{"start": "198.51.100.10", "end": "198.51.100.20"}]
    net = cli("network", "create", f"net-{tag}", "-f", "json")
    subnet = cli(
        "subnet",
        "create",
        "--network",
        net["id"],
        "--subnet-range",
        "10.77.0.0/24",
        "--dns-nameserver",
        "8.8.8.8",
        f"sub-{tag}",
        "-f",
        "json",
    )
    assert subnet["dns_nameservers"] == ["8.8.8.8"]
    group = cli("security", "group", "create", f"web-{tag}", "-f", "json")
    rule = cli(
        "security",
        "group",
        "rule",
        "create",
        "--protocol",
        "tcp",
        "--dst-port",
        "22",
        "--remote-ip",
        "0.0.0.0/0",
        group["id"],
        "-f",
        "json",
    )
    assert (rule["port_range_min"], rule["port_range_max"], rule["protocol"]) == (22, 22, "tcp")
    port = cli(
        "port",
        "create",
        "--network",
        net["id"],
        "--fixed-ip",
        f"subnet={subnet['id']},ip-address=10.77.0.50",
        "--security-group",
        group["id"],
        f"port-{tag}",
        "-f",
        "json",
    )
    assert port["fixed_ips"] == [{"subnet_id": subnet["id"], "ip_address": "10.77.0.50"}]
    router = cli("router", "create", f"router-{tag}", "-f", "json")
    cli("router", "set", "--external-gateway", public["id"], router["id"])
    cli("router", "add", "subnet", router["id"], subnet["id"])
    fip = cli("floating", "ip", "create", "--port", port["id"], public["id"], "-f", "json")
    assert fip["fixed_ip_address"] == "10.77.0.50"
    assert fip["floating_ip_address"] == "198.51.100.11"  # the router's gateway has .10
    volume = cli("volume", "create", "--size", "1", f"vol-{tag}", "-f", "json")
    assert volume["size"] == 1
    shown = cli("volume", "show", f"vol-{tag}", "-f", "json")
    assert shown["status"] == "available"  # the test sandbox has no build delay

    # and back down: nothing of the tag is left
    cli("volume", "delete", f"vol-{tag}")
    cli("floating", "ip", "delete", fip["id"])
    cli("router", "remove", "subnet", router["id"], subnet["id"])
    cli("router", "delete", router["id"])
    cli("port", "delete", port["id"])
    cli("security", "group", "delete", group["id"])
    cli("network", "delete", net["id"], public["id"])
    assert not [v for v in cli("volume", "list", "-f", "json") if v["Name"] == f"vol-{tag}"]
    names = {n["Name"] for n in cli("network", "list", "-f", "json")}
    assert not {f"ext-{tag}", f"net-{tag}"} & names
    assert not [p for p in cli("port", "list", "-f", "json") if p["Name"] == f"port-{tag}"]
