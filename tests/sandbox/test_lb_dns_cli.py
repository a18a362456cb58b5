"""The real ``openstack`` CLI plugins (python-octaviaclient, python-designateclient)
against the sandbox's Octavia and Designate. Each command is a subprocess, so ``slow``."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from .server import RunningSandbox
from .test_network_cli import _cli


@pytest.fixture
def clouds(sandbox: RunningSandbox, tmp_path: Path) -> Path:
    return sandbox.clouds_yaml(tmp_path / "clouds.yaml")


@pytest.mark.slow
def test_cli_builds_a_load_balancer_and_a_zone_and_tears_them_down(
    sandbox: RunningSandbox, clouds: Path, cloud: Any
) -> None:
    tag = uuid.uuid4().hex[:6]

    def cli(*args: str) -> Any:
        return _cli(sandbox, clouds, *args)

    net = cli("network", "create", f"lbnet-{tag}", "-f", "json")
    subnet = cli("subnet", "create", "--network", net["id"], "--subnet-range",
                 "10.91.0.0/24", f"lbsub-{tag}", "-f", "json")  # fmt: skip
    lb = cli("loadbalancer", "create", "--name", f"lb-{tag}", "--vip-subnet-id", subnet["id"],
             "--wait", "-f", "json")  # fmt: skip
    assert lb["vip_address"].startswith("10.91.0.")
    listener = cli("loadbalancer", "listener", "create", "--name", f"l-{tag}", "--protocol",
                   "HTTP", "--protocol-port", "80", "--wait", lb["id"], "-f", "json")  # fmt: skip
    pool = cli("loadbalancer", "pool", "create", "--name", f"p-{tag}", "--listener",
               listener["id"], "--protocol", "HTTP", "--lb-algorithm", "ROUND_ROBIN", "--wait",
               "-f", "json")  # fmt: skip
    cli("loadbalancer", "member", "create", "--address", "10.91.0.50", "--protocol-port", "80",
        "--wait", pool["id"], "-f", "json")  # fmt: skip
    shown = cli("loadbalancer", "show", lb["id"], "-f", "json")
    assert (shown["provisioning_status"], shown["operating_status"]) == ("ACTIVE", "ONLINE")
    members = cli("loadbalancer", "member", "list", pool["id"], "-f", "json")
    assert [m["address"] for m in members] == ["10.91.0.50"]

    zone = cli("zone", "create", "--email", "ops@example.org", f"cli-{tag}.example.org.",
               "-f", "json")  # fmt: skip
    record = cli("recordset", "create", "--type", "A", "--record", lb["vip_address"],
                 zone["id"], "www", "-f", "json")  # fmt: skip
    assert record["name"] == f"www.cli-{tag}.example.org."
    listed = cli("recordset", "list", zone["id"], "-f", "json")
    assert sorted(r["type"] for r in listed) == ["A", "NS", "SOA"]

    assert cli("zone", "delete", zone["id"], "-f", "json")["action"] == "DELETE"
    cli("loadbalancer", "delete", "--cascade", "--wait", lb["id"])
    assert cli("loadbalancer", "list", "--name", f"lb-{tag}", "-f", "json") == []
    assert cloud.network.find_port(lb["vip_port_id"]) is None
    cli("subnet", "delete", subnet["id"])
    cli("network", "delete", net["id"])
