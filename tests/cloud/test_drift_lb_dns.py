"""Drift of Octavia's and Designate's types against the sandbox: the load balancer
stack is in sync once made; a member's weight and the record's ttl changed out of band
(through openstacksdk: the client has no Octavia plugin here) are reported exactly and
repaired in place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import StackCli

pytestmark = pytest.mark.slow  # a load balancer stack made and repaired: ~10 s loaded

TEMPLATE = Path(__file__).parent / "templates" / "lb_dns.yaml"


def drift(stoker: StackCli, name: str) -> dict[str, dict[str, Any]]:
    result = stoker("drift", name, "-f", "json")
    assert result.exit_code == 0, result.output
    return {row["resource_name"]: row for row in json.loads(result.stdout)}


def test_lb_and_dns_drift(stoker: StackCli, admin: Any) -> None:
    created = stoker("create", "lbdrift", "-t", str(TEMPLATE))
    assert created.exit_code == 0, created.output
    try:
        ids = stoker.ids("lbdrift")
        found = drift(stoker, "lbdrift")
        assert {n for n, r in found.items() if r["drift_status"] != "IN_SYNC"} == set(), found
        admin.load_balancer.update_member(ids["member2"], ids["pool"], weight=7)
        zone = ids["zone"]
        admin.dns.update_recordset(admin.dns.get_recordset(ids["www"], zone), ttl=900)
        found = drift(stoker, "lbdrift")
        changed = {
            n: [(d["property"], d["expected"], d["actual"]) for d in r["differences"]]
            for n, r in found.items()
            if r["drift_status"] != "IN_SYNC"
        }
        assert changed == {"member2": [("weight", 1, 7)], "www": [("ttl", 300, 900)]}
        repaired = stoker("update", "lbdrift", "--existing", "--repair")
        assert repaired.exit_code == 0, repaired.output
        after = drift(stoker, "lbdrift")
        assert {r["drift_status"] for r in after.values()} == {"IN_SYNC"}
    finally:
        stoker("delete", "lbdrift", "--yes")
