"""Drift against the sandbox: the two-tier stack changed out of band by the real
``openstack`` client (a server resized and its metadata changed, a rule added to a
security group, a port deleted, a volume extended, a floating IP moved), each reported
exactly by ``stoker stack drift``, taken in by ``--accept`` or undone by ``stoker stack
update --existing --repair``, and in sync afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import StackCli

pytestmark = pytest.mark.heavy

TEMPLATE = Path(__file__).parent / "templates" / "two_tier.yaml"
OPENSTACK = Path(sys.executable).parent / "openstack"


def openstack(env: dict[str, str], *args: str) -> str:
    """The real ``openstack`` client, out of band (as an operator would)."""
    done = subprocess.run(
        [str(OPENSTACK), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def drift(stoker: StackCli, name: str, *args: str) -> dict[str, dict[str, Any]]:
    result = stoker("drift", name, "-f", "json", *args)
    assert result.exit_code == 0, result.output
    return {row["resource_name"]: row for row in json.loads(result.stdout)}


def statuses(found: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: row["drift_status"] for name, row in found.items()}


def differences(row: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {d["property"]: (d["expected"], d["actual"]) for d in row["differences"]}


@pytest.fixture
def tiers(stoker: StackCli, public_network: str) -> dict[str, str]:
    created = stoker("create", "tiers", "-t", str(TEMPLATE))
    assert created.exit_code == 0, created.output
    yield stoker.ids("tiers")
    stoker("delete", "tiers", "--yes")


def test_a_fresh_stack_is_in_sync(stoker: StackCli, tiers: dict[str, str]) -> None:
    found = drift(stoker, "tiers")
    assert statuses(found) == {
        "net": "IN_SYNC", "subnet": "IN_SYNC", "router": "IN_SYNC",
        "router_interface": "IN_SYNC", "web_sg": "IN_SYNC", "web_port": "IN_SYNC",
        "db_port": "IN_SYNC", "web": "IN_SYNC", "db": "IN_SYNC",
        "web_volume": "IN_SYNC", "db_volume": "IN_SYNC", "web_attachment": "IN_SYNC",
        "db_attachment": "IN_SYNC", "web_floating_ip": "IN_SYNC",
    }  # fmt: skip


def test_out_of_band_changes_reported_exactly_then_repaired(
    stoker: StackCli, tiers: dict[str, str], cloud_env: dict[str, str]
) -> None:
    ids = tiers
    openstack(cloud_env, "server", "resize", "--flavor", "m1.small", "--wait", ids["web"])
    shown = json.loads(openstack(cloud_env, "server", "show", ids["web"], "-f", "json"))
    if shown["status"] == "VERIFY_RESIZE":
        openstack(cloud_env, "server", "resize", "confirm", ids["web"])
    openstack(cloud_env, "server", "set", "--property", "tier=changed", ids["web"])
    openstack(
        cloud_env, "security", "group", "rule", "create", "--protocol", "tcp",
        "--dst-port", "443", "--remote-ip", "0.0.0.0/0", ids["web_sg"],
    )  # fmt: skip
    openstack(cloud_env, "floating", "ip", "set", "--port", ids["db_port"], ids["web_floating_ip"])

    found = drift(stoker, "tiers")
    drifted = {n: s for n, s in statuses(found).items() if s != "IN_SYNC"}
    assert drifted == {"web": "MODIFIED", "web_sg": "MODIFIED", "web_floating_ip": "MODIFIED"}
    assert differences(found["web"]) == {
        "flavor": ("m1.tiny", "m1.small"),
        "metadata": ({"tier": "web"}, {"tier": "changed"}),
    }
    [rules] = differences(found["web_sg"]).values()
    added = {
        "direction": "ingress", "ethertype": "IPv4", "protocol": "tcp",
        "port_range_min": 443, "port_range_max": 443, "remote_ip_prefix": "0.0.0.0/0",
    }  # fmt: skip
    assert rules[1] == [*rules[0], added]
    assert differences(found["web_floating_ip"]) == {"port_id": (ids["web_port"], ids["db_port"])}

    preview = stoker("update", "tiers", "--existing", "--repair", "--dry-run", "-f", "json")
    assert preview.exit_code == 0, preview.output
    plan = json.loads(preview.stdout)
    updated = sorted(entry["resource_name"] for entry in plan["updated"])
    assert updated == ["web", "web_floating_ip", "web_sg"]
    assert plan["replaced"] == []
    assert statuses(drift(stoker, "tiers"))["web"] == "MODIFIED"  # a preview changes nothing

    repaired = stoker("update", "tiers", "--existing", "--repair")
    assert repaired.exit_code == 0, repaired.output
    assert set(statuses(drift(stoker, "tiers")).values()) == {"IN_SYNC"}
    assert stoker.ids("tiers")["web"] == ids["web"]  # resized back in place, not replaced


def test_a_lost_port_is_deleted_and_made_again(
    stoker: StackCli, tiers: dict[str, str], cloud_env: dict[str, str]
) -> None:
    openstack(cloud_env, "port", "delete", tiers["db_port"])
    found = drift(stoker, "tiers")
    assert found["db_port"]["drift_status"] == "DELETED"
    assert found["db_port"]["differences"] == []

    repaired = stoker("update", "tiers", "--existing", "--repair")
    assert repaired.exit_code == 0, repaired.output
    after = drift(stoker, "tiers")
    assert set(statuses(after).values()) == {"IN_SYNC"}, after
    assert stoker.ids("tiers")["db_port"] != tiers["db_port"]


def test_an_extended_volume_is_left_by_the_repair_and_accepted(
    stoker: StackCli, tiers: dict[str, str], cloud_env: dict[str, str]
) -> None:
    """Cinder cannot shrink a volume: the repair says so and leaves it (replacing it
    would lose its data); the operator takes the new size into the stack."""
    openstack(cloud_env, "volume", "set", "--size", "3", tiers["web_volume"])
    found = drift(stoker, "tiers")
    assert found["web_volume"]["drift_status"] == "MODIFIED"
    assert differences(found["web_volume"]) == {"size": (1, 3)}
    assert "cannot shrink a volume" in found["web_volume"]["reason"]

    warning = (
        "warning: web_volume: Cinder cannot shrink a volume (from 3 GB back to 1 GB): its "
        "size is left as it is (replacing it would lose its data); `stoker stack drift "
        "tiers --accept web_volume` takes it into the stack"
    )
    preview = stoker("update", "tiers", "--existing", "--repair", "--dry-run", "-f", "json")
    assert preview.exit_code == 0, preview.output
    assert warning in preview.stderr
    plan = json.loads(preview.stdout)
    assert [e["resource_name"] for e in plan["updated"] + plan["replaced"]] == []
    repaired = stoker("update", "tiers", "--existing", "--repair")
    assert repaired.exit_code == 0, repaired.output
    assert warning in repaired.stderr
    after = drift(stoker, "tiers")
    assert differences(after["web_volume"]) == {"size": (1, 3)}  # honestly still drifted
    assert stoker.ids("tiers")["web_volume"] == tiers["web_volume"]  # not replaced

    accepted = stoker("drift", "tiers", "--accept", "web_volume", "-f", "json")
    assert accepted.exit_code == 0, accepted.output
    assert statuses(drift(stoker, "tiers"))["web_volume"] == "IN_SYNC"
    quiet = stoker("update", "tiers", "--existing", "--repair", "--dry-run")
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr
    refused = stoker("drift", "tiers", "--accept", "nothing")
    assert refused.exit_code != 0 and "nothing" in refused.output


NESTED = """heat_template_version: wallaby
resources:
  inner:
    type: inner.yaml
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def: {type: inner.yaml}
  value:
    type: OS::Heat::Value
    properties: {value: 1}
"""
INNER = """heat_template_version: wallaby
resources:
  net:
    type: OS::Neutron::Net
    properties: {admin_state_up: true}
"""


def nested_drift(stoker: StackCli, depth: str = "2") -> dict[str, dict[str, Any]]:
    """The rows by path (``group/0/net``)."""
    result = stoker("drift", "outer", "--nested-depth", depth, "-f", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    return {"/".join(filter(None, (r["parent_resource"], r["resource_name"]))): r for r in rows}


@pytest.fixture
def outer(stoker: StackCli, tmp_path: Path, cloud_env: dict[str, str]) -> dict[str, Any]:
    (tmp_path / "inner.yaml").write_text(INNER)
    (tmp_path / "outer.yaml").write_text(NESTED)
    created = stoker("create", "outer", "-t", str(tmp_path / "outer.yaml"))
    assert created.exit_code == 0, created.output
    yield nested_drift(stoker)
    stoker("delete", "outer", "--yes")


def test_nested_stacks_to_the_depth_asked(
    stoker: StackCli, outer: dict[str, Any], cloud_env: dict[str, str]
) -> None:
    top = drift(stoker, "outer")
    assert statuses(top) == {"inner": "NOT_CHECKED", "group": "NOT_CHECKED", "value": "NOT_CHECKED"}
    assert top["inner"]["reason"] == "a nested stack (see its resources)"
    rows = json.loads(stoker("drift", "outer", "--nested-depth", "1", "-f", "json").stdout)
    [net] = [row for row in rows if row["resource_name"] == "net"]
    assert (net["parent_resource"], net["drift_status"]) == ("inner", "IN_SYNC")
    assert statuses(outer) == {
        "inner": "NOT_CHECKED", "inner/net": "IN_SYNC", "group": "NOT_CHECKED",
        "group/0": "NOT_CHECKED", "group/0/net": "IN_SYNC",
        "group/1": "NOT_CHECKED", "group/1/net": "IN_SYNC", "value": "NOT_CHECKED",
    }  # fmt: skip
    openstack(cloud_env, "network", "set", "--disable", net["physical_resource_id"])
    rows = json.loads(stoker("drift", "outer", "--nested-depth", "1", "-f", "json").stdout)
    [net] = [row for row in rows if row["resource_name"] == "net"]
    assert differences(net) == {"admin_state_up": (True, False)}
    table = stoker("drift", "outer", "--nested-depth", "1")
    assert "inner/net" in table.stdout and "admin_state_up: true -> false" in table.stdout


def test_a_nested_resource_is_accepted_by_its_path(
    stoker: StackCli, outer: dict[str, Any], cloud_env: dict[str, str]
) -> None:
    member = outer["group/1/net"]["physical_resource_id"]
    openstack(cloud_env, "network", "set", "--disable", member)
    assert nested_drift(stoker)["group/1/net"]["drift_status"] == "MODIFIED"
    accepted = stoker("drift", "outer", "--accept", "group/1/net", "-f", "json")
    assert accepted.exit_code == 0, accepted.output
    [row] = json.loads(accepted.stdout)
    assert (row["parent_resource"], row["resource_name"]) == ("group/1", "net")
    after = nested_drift(stoker)
    assert set(statuses(after).values()) == {"IN_SYNC", "NOT_CHECKED"}, after
    # the member's stack holds the cloud's value now: no repair undoes an accepted change
    preview = stoker("update", "outer", "--existing", "--repair", "--dry-run", "-f", "json")
    assert preview.exit_code == 0, preview.output
    for wrong in ("group/2/net", "group/net", "value/net", "nosuch"):
        refused = stoker("drift", "outer", "--accept", wrong)
        assert refused.exit_code != 0 and "could not be found" in refused.output, wrong
        assert "Traceback" not in refused.output


def test_nested_drift_is_repaired_by_the_nested_stacks_updates(
    stoker: StackCli, outer: dict[str, Any], cloud_env: dict[str, str]
) -> None:
    inner_net = outer["inner/net"]["physical_resource_id"]
    lost = outer["group/0/net"]["physical_resource_id"]
    openstack(cloud_env, "network", "set", "--disable", inner_net)
    openstack(cloud_env, "network", "delete", lost)
    found = nested_drift(stoker)
    assert (found["inner/net"]["drift_status"], found["group/0/net"]["drift_status"]) == (
        "MODIFIED",
        "DELETED",
    )

    preview = stoker("update", "outer", "--existing", "--repair", "--dry-run", "-f", "json")
    assert preview.exit_code == 0, preview.output
    plan = json.loads(preview.stdout)
    changed = {
        (e.get("parent_resource"), e["resource_name"], kind)
        for kind in ("updated", "replaced")
        for e in plan[kind]
        if e["resource_type"] == "OS::Neutron::Net"
    }
    # the preview names the parent resource as Heat does (the member, not its path)
    assert changed == {("inner", "net", "updated"), ("0", "net", "replaced")}, plan
    assert nested_drift(stoker)["inner/net"]["drift_status"] == "MODIFIED"  # nothing written

    repaired = stoker("update", "outer", "--existing", "--repair")
    assert repaired.exit_code == 0, repaired.output
    after = nested_drift(stoker)
    assert set(statuses(after).values()) == {"IN_SYNC", "NOT_CHECKED"}, after
    assert after["inner/net"]["physical_resource_id"] == inner_net  # in place
    assert after["group/0/net"]["physical_resource_id"] != lost  # made again
