"""The acceptance run: a two-tier stack (network, subnet, router, security group, two
servers with a port and a volume each, a floating IP) is created against the sandbox,
updated (one server resized, a port added to the other) and deleted; afterwards the
sandbox holds nothing of it, as openstacksdk lists it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

TEMPLATE = Path(__file__).parent / "templates" / "two_tier.yaml"


@pytest.fixture
def stoker(db_url: str, cloud_env: dict[str, str]):
    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--db", db_url, "stack", *args])

    return run


def physical_ids(stoker: Any, name: str) -> dict[str, str]:
    listed = json.loads(stoker("resource", "list", name, "-f", "json").stdout)
    return {r["resource_name"]: r["physical_resource_id"] for r in listed}


def outputs(stoker: Any, name: str) -> dict[str, Any]:
    shown = json.loads(stoker("show", name, "-f", "json").stdout)
    return {o["output_key"]: o.get("output_value") for o in shown["outputs"]}


def test_two_tier_create_update_delete(stoker, admin, public_network):
    created = stoker("create", "tiers", "-t", str(TEMPLATE))
    assert created.exit_code == 0, created.stderr
    ids = physical_ids(stoker, "tiers")
    web, db = admin.compute.get_server(ids["web"]), admin.compute.get_server(ids["db"])
    assert (web.status, db.status) == ("ACTIVE", "ACTIVE")
    assert web.flavor["original_name"] == "m1.tiny"
    assert web.metadata == {"tier": "web"}
    assert admin.block_storage.get_volume(ids["db_volume"]).status == "in-use"
    values = outputs(stoker, "tiers")
    assert values["web_ip"].startswith("10.10.0.")
    assert values["web_public_ip"].startswith("172.24.4.")
    net_name = admin.network.get_network(ids["net"]).name
    assert values["db_networks"] == {net_name: ["10.10.0.50"], ids["net"]: ["10.10.0.50"]}
    assert [a["server_id"] for a in values["db_volume_attachments"]] == [ids["db"]]

    updated = stoker(
        "update", "tiers", "--existing",
        "--parameter", "web_flavor=m1.small", "--parameter", "db_extra_ports=true",
    )  # fmt: skip
    assert updated.exit_code == 0, updated.stderr
    after = physical_ids(stoker, "tiers")
    assert after["web"] == ids["web"] and after["db"] == ids["db"]  # in place
    web = admin.compute.get_server(ids["web"])
    assert (web.status, web.flavor["original_name"]) == ("ACTIVE", "m1.small")
    db_ports = sorted(p.id for p in admin.network.ports(device_id=ids["db"]))
    assert db_ports == sorted([ids["db_port"], after["db_port_2"]])

    deleted = stoker("delete", "tiers", "--yes")
    assert deleted.exit_code == 0, deleted.stderr
    assert [s.name for s in admin.compute.servers() if s.name.startswith("tiers-")] == []
    assert [n.name for n in admin.network.networks() if n.name.startswith("tiers-")] == []
    assert [p.id for p in admin.network.ports() if p.name.startswith("tiers-")] == []
    assert [v.id for v in admin.block_storage.volumes() if v.name.startswith("tiers-")] == []
    assert [r.id for r in admin.network.routers() if r.name.startswith("tiers-")] == []
    assert admin.network.find_ip(ids["web_floating_ip"]) is None
