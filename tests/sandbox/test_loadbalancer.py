"""The sandbox's Octavia driven by openstacksdk on a real server: the PENDING_* lock on a
clock the test moves, VIP ports from its Neutron, Octavia's refusals and error bodies."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import openstack.exceptions
import pytest

from .conftest import Clock
from .server import RunningSandbox


def _network(conn: Any, cidr: str) -> tuple[Any, Any]:
    net = conn.network.create_network(name=f"lbnet-{uuid.uuid4().hex[:6]}")
    subnet = conn.network.create_subnet(network_id=net.id, cidr=cidr, ip_version=4)
    return net, subnet


def _raw(sandbox: RunningSandbox, conn: Any, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"X-Auth-Token": conn.session.get_token()}
    return httpx.request(method, f"{sandbox.url}/load-balancer/v2{path}", headers=headers, **kw)


def test_the_lock_pending_until_the_delay_then_active(
    sandbox: RunningSandbox, demo: Any, clock: Clock
) -> None:
    lbs = demo.load_balancer
    _, subnet = _network(demo, "10.61.0.0/24")
    lb = lbs.create_load_balancer(name="web", vip_subnet_id=subnet.id)
    assert (lb.provisioning_status, lb.operating_status) == ("PENDING_CREATE", "OFFLINE")
    port = demo.network.get_port(lb.vip_port_id)
    assert (port.device_owner, port.name) == ("Octavia", f"octavia-lb-{lb.id}")
    assert port.fixed_ips[0]["ip_address"] == lb.vip_address == "10.61.0.2"
    with pytest.raises(openstack.exceptions.ConflictException, match="is immutable"):
        lbs.create_listener(loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80)
    clock.advance(10)
    lb = lbs.get_load_balancer(lb.id)
    assert (lb.provisioning_status, lb.operating_status) == ("ACTIVE", "ONLINE")

    listener = lbs.create_listener(loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80)
    assert listener.provisioning_status == "PENDING_CREATE"
    assert lbs.get_load_balancer(lb.id).provisioning_status == "PENDING_UPDATE"
    clock.advance(10)
    pool = lbs.create_pool(listener_id=listener.id, protocol="HTTP", lb_algorithm="ROUND_ROBIN")
    clock.advance(10)
    assert lbs.get_listener(listener.id).default_pool_id == pool.id
    member = lbs.create_member(pool, address="10.61.0.20", protocol_port=8080, weight=3)
    clock.advance(10)
    assert lbs.get_member(member, pool).operating_status == "NO_MONITOR"
    monitor = lbs.create_health_monitor(
        pool_id=pool.id, type="HTTP", delay=5, timeout=3, max_retries=3
    )
    assert (monitor.http_method, monitor.url_path, monitor.expected_codes) == ("GET", "/", "200")
    clock.advance(10)
    assert lbs.get_member(member, pool).operating_status == "ONLINE"
    shown = lbs.get_pool(pool.id)
    assert shown.members == [{"id": member.id}] and shown.health_monitor_id == monitor.id
    assert lbs.get_load_balancer(lb.id).pools == [{"id": pool.id}]
    updated = lbs.update_member(member, pool, weight=7)
    assert (updated.weight, updated.provisioning_status) == (7, "PENDING_UPDATE")
    with pytest.raises(openstack.exceptions.ConflictException, match="is immutable"):
        lbs.update_pool(pool, lb_algorithm="LEAST_CONNECTIONS")
    clock.advance(10)
    answer = _raw(sandbox, demo, "GET", f"/lbaas/loadbalancers/{lb.id}/status")
    tree = answer.json()["statuses"]["loadbalancer"]
    members = tree["listeners"][0]["pools"][0]["members"]
    assert [(m["id"], m["operating_status"]) for m in members] == [(member.id, "ONLINE")]

    with pytest.raises(openstack.exceptions.BadRequestException, match="it has children"):
        lbs.delete_load_balancer(lb.id)
    lbs.delete_load_balancer(lb.id, cascade=True)
    assert lbs.get_load_balancer(lb.id).provisioning_status == "PENDING_DELETE"
    assert demo.network.find_port(port.id) is None  # the VIP port Octavia made goes at once
    clock.advance(10)
    for find in (lbs.find_load_balancer, lbs.find_listener, lbs.find_pool):
        assert find(lb.id) is None and find(listener.id) is None and find(pool.id) is None
    assert lbs.find_health_monitor(monitor.id) is None


@pytest.mark.slow  # ~0.5 s
def test_vip_on_a_network_or_an_existing_port(demo: Any) -> None:
    lbs = demo.load_balancer
    net, subnet = _network(demo, "10.62.0.0/24")
    on_network = lbs.create_load_balancer(vip_network_id=net.id, vip_address="10.62.0.40")
    assert (on_network.vip_subnet_id, on_network.vip_address) == (subnet.id, "10.62.0.40")
    port = demo.network.create_port(network_id=net.id)
    on_port = lbs.create_load_balancer(vip_port_id=port.id)
    assert on_port.vip_address == port.fixed_ips[0]["ip_address"]
    lbs.get_load_balancer(on_port.id)  # settled (no delay in this sandbox)
    lbs.delete_load_balancer(on_port.id)
    assert demo.network.get_port(port.id).id == port.id  # a given port stays
    lbs.get_load_balancer(on_network.id)
    lbs.delete_load_balancer(on_network.id)


@pytest.mark.slow  # ~1.3 s
def test_refusals_and_error_bodies_as_octavia_writes_them(
    sandbox: RunningSandbox, demo: Any
) -> None:
    lbs = demo.load_balancer
    missing = str(uuid.uuid4())
    answer = _raw(sandbox, demo, "POST", "/lbaas/loadbalancers",
                  json={"loadbalancer": {"vip_subnet_id": missing}})  # fmt: skip
    assert answer.status_code == 400
    assert answer.json() == {
        "faultcode": "Client",
        "faultstring": f"Subnet {missing} not found.",
        "debuginfo": None,
    }
    answer = _raw(sandbox, demo, "GET", f"/lbaas/pools/{missing}")
    assert (answer.status_code, answer.json()["faultstring"]) == (404, f"Pool {missing} not found.")

    _, subnet = _network(demo, "10.63.0.0/24")
    lb = lbs.create_load_balancer(vip_subnet_id=subnet.id)
    with pytest.raises(openstack.exceptions.BadRequestException, match="Value should be one of"):
        lbs.create_listener(loadbalancer_id=lb.id, protocol="FTP", protocol_port=21)
    listener = lbs.create_listener(loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80)
    lbs.get_load_balancer(lb.id)
    with pytest.raises(openstack.exceptions.ConflictException, match="already using protocol"):
        lbs.create_listener(loadbalancer_id=lb.id, protocol="TCP", protocol_port=80)
    with pytest.raises(openstack.exceptions.BadRequestException, match="pool protocol 'UDP'"):
        lbs.create_pool(listener_id=listener.id, protocol="UDP", lb_algorithm="ROUND_ROBIN")
    with pytest.raises(openstack.exceptions.BadRequestException, match="must be specified"):
        lbs.create_pool(protocol="HTTP", lb_algorithm="ROUND_ROBIN")
    pool = lbs.create_pool(loadbalancer_id=lb.id, protocol="HTTP", lb_algorithm="SOURCE_IP")
    lbs.get_load_balancer(lb.id)
    lbs.create_member(pool, address="10.63.0.9", protocol_port=80)
    lbs.get_load_balancer(lb.id)
    with pytest.raises(openstack.exceptions.ConflictException, match="already using ip address"):
        lbs.create_member(pool, address="10.63.0.9", protocol_port=80)
    lbs.create_health_monitor(pool_id=pool.id, type="TCP", delay=5, timeout=3, max_retries=2)
    lbs.get_load_balancer(lb.id)
    with pytest.raises(openstack.exceptions.ConflictException, match="already has a health"):
        lbs.create_health_monitor(pool_id=pool.id, type="PING", delay=5, timeout=3, max_retries=2)
    # another project's load balancer is not there for demo
    assert [x.id for x in lbs.load_balancers(name=lb.name)] == [lb.id]
    lbs.delete_pool(pool)  # its members and monitor go with it
    lbs.get_load_balancer(lb.id)
    assert list(lbs.health_monitors(pool_id=pool.id)) == []
    lbs.delete_listener(listener)
    lbs.get_load_balancer(lb.id)
    lbs.delete_load_balancer(lb.id)


@pytest.mark.slow  # ~0.5 s
def test_projects_see_their_own(cloud: Any, demo: Any) -> None:
    _, subnet = _network(cloud, "10.64.0.0/24")
    lb = cloud.load_balancer.create_load_balancer(vip_subnet_id=subnet.id)
    assert demo.load_balancer.find_load_balancer(lb.id) is None
    assert lb.id in [x.id for x in cloud.load_balancer.load_balancers()]
    cloud.load_balancer.get_load_balancer(lb.id)
    cloud.load_balancer.delete_load_balancer(lb.id)


@pytest.mark.slow  # ~0.8 s
def test_l7_policies_keep_their_positions_and_go_with_their_listener(demo: Any) -> None:
    lbs = demo.load_balancer
    _, subnet = _network(demo, "10.65.0.0/24")
    lb = lbs.create_load_balancer(vip_subnet_id=subnet.id)
    lbs.get_load_balancer(lb.id)
    listener = lbs.create_listener(loadbalancer_id=lb.id, protocol="HTTP", protocol_port=80)
    lbs.get_load_balancer(lb.id)
    pool = lbs.create_pool(loadbalancer_id=lb.id, protocol="HTTP", lb_algorithm="ROUND_ROBIN")
    lbs.get_load_balancer(lb.id)
    reject = lbs.create_l7_policy(listener_id=listener.id, action="REJECT")
    lbs.get_load_balancer(lb.id)
    with pytest.raises(openstack.exceptions.BadRequestException, match="redirect_pool_id"):
        lbs.create_l7_policy(listener_id=listener.id, action="REDIRECT_TO_POOL")
    redirect = lbs.create_l7_policy(
        listener_id=listener.id, action="REDIRECT_TO_POOL", redirect_pool_id=pool.id, position=1
    )
    lbs.get_load_balancer(lb.id)
    positions = {p.id: p.position for p in lbs.l7_policies(listener_id=listener.id)}
    assert positions == {redirect.id: 1, reject.id: 2}
    with pytest.raises(openstack.exceptions.BadRequestException, match="need a key"):
        lbs.create_l7_rule(redirect, type="HEADER", compare_type="EQUAL_TO", rule_value="x")
    rule = lbs.create_l7_rule(redirect, type="PATH", compare_type="STARTS_WITH", rule_value="/api")
    lbs.get_load_balancer(lb.id)
    assert lbs.get_l7_policy(redirect.id).rules == [{"id": rule.id}]
    assert [p["id"] for p in lbs.get_listener(listener.id).l7_policies] == [reject.id, redirect.id]
    with pytest.raises(openstack.exceptions.ConflictException, match="in use by L7 policy"):
        lbs.delete_pool(pool)
    lbs.delete_listener(listener)
    lbs.get_load_balancer(lb.id)
    assert list(lbs.l7_policies(listener_id=listener.id)) == []
    assert lbs.find_l7_policy(redirect.id) is None
    lbs.delete_load_balancer(lb.id, cascade=True)
