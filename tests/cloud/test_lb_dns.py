"""Octavia's and Designate's types against the sandbox: a load balancer (listener, pool,
two members on two servers, a health monitor) and a zone whose recordset points at the
VIP are created, updated in place (pool algorithm, a member's weight, the record's ttl)
and deleted, leaving nothing behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

TEMPLATE = Path(__file__).parent / "templates" / "lb_dns.yaml"


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


def test_lb_and_dns_create_update_delete(stoker, admin):
    created = stoker("create", "lbstack", "-t", str(TEMPLATE))
    assert created.exit_code == 0, created.stderr
    ids = physical_ids(stoker, "lbstack")
    values = outputs(stoker, "lbstack")
    lb = admin.load_balancer.get_load_balancer(ids["lb"])
    assert (lb.provisioning_status, lb.operating_status) == ("ACTIVE", "ONLINE")
    assert values["vip"] == lb.vip_address and values["vip"].startswith("10.20.0.")
    vip_port = admin.network.get_port(values["vip_port"])
    assert vip_port.device_owner == "Octavia"
    assert sorted(m["id"] for m in values["pool_members"]) == sorted(
        [ids["member1"], ids["member2"]]
    )
    assert values["lb_pools"] == [{"id": ids["pool"]}]
    assert values["listener_lbs"] == [{"id": ids["lb"]}]
    assert values["monitor_pools"] == [{"id": ids["pool"]}]
    web1 = admin.compute.get_server(ids["web1"])
    member1 = admin.load_balancer.get_member(ids["member1"], ids["pool"])
    assert member1.address == next(iter(web1.addresses.values()))[0]["addr"]
    assert member1.operating_status == "ONLINE"  # monitored
    monitor = admin.load_balancer.get_health_monitor(ids["monitor"])
    assert (monitor.type, monitor.url_path, monitor.http_method) == ("HTTP", "/health", "GET")
    zone = admin.dns.get_zone(ids["zone"])
    assert (zone.name, zone.status) == ("lbstack.example.org.", "ACTIVE")
    record = admin.dns.get_recordset(ids["www"], ids["zone"])
    assert (record.name, record.type, record.records, record.ttl) == (
        "www.lbstack.example.org.",
        "A",
        [values["vip"]],
        300,
    )

    updated = stoker(
        "update", "lbstack", "--existing",
        "--parameter", "algorithm=LEAST_CONNECTIONS", "--parameter", "web2_weight=5",
        "--parameter", "record_ttl=60",
    )  # fmt: skip
    assert updated.exit_code == 0, updated.stderr
    assert physical_ids(stoker, "lbstack") == ids  # all in place
    assert admin.load_balancer.get_pool(ids["pool"]).lb_algorithm == "LEAST_CONNECTIONS"
    assert admin.load_balancer.get_member(ids["member2"], ids["pool"]).weight == 5
    assert admin.dns.get_recordset(ids["www"], ids["zone"]).ttl == 60
    assert outputs(stoker, "lbstack")["serial"] > values["serial"]

    deleted = stoker("delete", "lbstack", "--yes")
    assert deleted.exit_code == 0, deleted.stderr
    assert admin.load_balancer.find_load_balancer(ids["lb"]) is None
    assert list(admin.load_balancer.pools(loadbalancer_id=ids["lb"])) == []
    assert admin.dns.find_zone("lbstack.example.org.") is None
    assert admin.network.find_port(values["vip_port"]) is None
    assert [s.name for s in admin.compute.servers() if s.name.startswith("lbstack-")] == []
    assert [n.name for n in admin.network.networks() if n.name.startswith("lbstack-")] == []
