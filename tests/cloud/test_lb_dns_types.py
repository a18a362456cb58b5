"""Octavia's and Designate's types on their own, against the sandbox: a create that a
crash cut off after the cloud made the object (its id never recorded) finds that object
instead of making a second one; names resolve as Heat resolves them; the constraints ask
the cloud."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from stoker.cloud import Backoff, Cloud
from stoker.cloud.constraints import CloudNames
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext
from stoker.resources.openstack import base
from stoker.resources.openstack.base import PENDING
from stoker.resources.openstack.designate import ZONE_ID, ZONE_NAME, RecordSet
from stoker.resources.openstack.octavia import PARENT, PoolMember
from stoker.sandbox.faults import parse_faults


def context(properties: dict[str, Any], data: dict[str, Any]) -> ResourceContext:
    return ResourceContext(
        stack_name="s",
        stack_id="s-id",
        project_id="p",
        resource_name="r",
        physical_name="s-r-abcdefabcdef",
        properties=properties,
        data=data,
    )


def balanced_pool(admin: Any, label: str, cidr: str) -> tuple[Any, Any]:
    """A load balancer on a new subnet with a TCP pool, both ACTIVE: (lb, pool)."""
    lbs = admin.load_balancer
    net = admin.network.create_network(name=f"{label}-{uuid.uuid4().hex[:6]}")
    subnet = admin.network.create_subnet(network_id=net.id, cidr=cidr, ip_version=4)
    lb = lbs.create_load_balancer(vip_subnet_id=subnet.id)
    lbs.wait_for_load_balancer(lb.id, interval=0.05)
    pool = lbs.create_pool(loadbalancer_id=lb.id, protocol="TCP", lb_algorithm="ROUND_ROBIN")
    lbs.wait_for_load_balancer(lb.id, interval=0.05)
    return lb, pool


@pytest.mark.slow  # ~0.5-1 s against the sandbox
def test_a_member_made_before_a_crash_is_found_by_address_and_port(cloud: Cloud, admin: Any):
    lbs = admin.load_balancer
    lb, pool = balanced_pool(admin, "crash", "10.71.0.0/24")
    made = lbs.create_member(pool, address="10.71.0.30", protocol_port=22)  # then the crash
    lbs.wait_for_load_balancer(lb.id, interval=0.05)

    member = PoolMember(cloud)
    properties = {"pool": pool.id, "address": "10.71.0.30", "protocol_port": 22, "weight": 1}
    resumed = context(properties, {PENDING: "s-r-abcdefabcdef", PARENT: pool.id})
    asyncio.run(member.create(resumed))
    assert resumed.physical_id == made.id
    assert [m.id for m in lbs.members(pool)] == [made.id]

    asyncio.run(member.delete(resumed))
    assert list(lbs.members(pool)) == []
    asyncio.run(member.delete(resumed))  # gone already: no error
    lbs.delete_load_balancer(lb.id, cascade=True)


@pytest.mark.slow  # ~1 s against the sandbox
def test_refused_member_creates_are_retried_or_fail_naming_the_call(
    cloud: Cloud, admin: Any, sandbox: Any, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(base, "RETRY", Backoff(first=0.01, factor=1.0, cap=0.01))
    lbs = admin.load_balancer
    lb, pool = balanced_pool(admin, "refused", "10.72.0.0/24")
    member = PoolMember(cloud)
    rule = {"service": "load-balancer", "operation": "members.create", "status": 503}
    try:
        # half the creates refused: each refusal is retried, no member is made twice
        sandbox.config.faults = parse_faults({"seed": 3, "rules": [{**rule, "error_rate": 0.5}]})
        for port in (80, 81, 82):
            made = context({"pool": pool.id, "address": "10.72.0.9", "protocol_port": port}, {})
            asyncio.run(member.create(made))
        assert sorted(m.protocol_port for m in lbs.members(pool)) == [80, 81, 82]
        # every create refused: the failure names the call and quotes Octavia
        sandbox.config.faults = parse_faults({"rules": [{**rule, "error_rate": 1.0}]})
        doomed = context({"pool": pool.id, "address": "10.72.0.9", "protocol_port": 90}, {})
        with pytest.raises(CloudError, match=r"load_balancer.create_member failed \(HTTP 503\)"):
            asyncio.run(member.create(doomed))
    finally:
        sandbox.config.faults = None
    assert sorted(m.protocol_port for m in lbs.members(pool)) == [80, 81, 82]
    lbs.delete_load_balancer(lb.id, cascade=True)


@pytest.mark.slow  # ~0.5-1 s against the sandbox
def test_a_recordset_is_named_in_its_zone_and_found_after_a_crash(cloud: Cloud, admin: Any):
    name = f"c{uuid.uuid4().hex[:8]}.example.com."
    zone = admin.dns.create_zone(name=name, email="a@example.com")
    recordset = RecordSet(cloud)
    properties = {"zone": name, "name": "api", "type": "A", "records": ["10.0.0.7"], "ttl": 120}
    fresh = context(properties, {})
    asyncio.run(recordset.create(fresh))
    shown = admin.dns.get_recordset(fresh.physical_id, zone)
    assert (shown.name, shown.records, shown.status) == (f"api.{name}", ["10.0.0.7"], "ACTIVE")
    assert fresh.data[ZONE_ID] == zone.id and fresh.data[ZONE_NAME] == name

    cut_off = context(properties, {PENDING: f"api.{name}", ZONE_ID: zone.id, ZONE_NAME: name})
    asyncio.run(recordset.create(cut_off))
    assert cut_off.physical_id == fresh.physical_id
    assert [r.name for r in admin.dns.recordsets(zone, type="A")] == [f"api.{name}"]
    asyncio.run(recordset.delete(fresh))
    assert list(admin.dns.recordsets(zone, type="A")) == []
    admin.dns.delete_zone(zone)


@pytest.mark.slow  # ~0.5-1 s against the sandbox
def test_constraints_ask_the_cloud_and_name_the_nearest(cloud: Cloud, admin: Any):
    name = f"k{uuid.uuid4().hex[:8]}.example.com."
    admin.dns.create_zone(name=name, email="a@example.com")
    check = CloudNames(cloud).check("designate.zone")
    assert check(name, repr) is None
    problem = check(name.replace(".com.", ".con."), repr)
    assert problem is not None and "could not be found" in problem and name in problem
    lb_check = CloudNames(cloud).check("octavia.loadbalancer")
    assert "could not be found" in str(lb_check("no-such-lb", repr))
