"""The sandbox's Neutron driven by openstacksdk (and raw HTTP where the body matters), on
a real server; each test makes its own networks (the session's sandbox is shared)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import openstack.exceptions
import pytest

from stoker.sandbox.http_errors import NotFound
from stoker.sandbox.interfaces import PortProvider

from .server import RunningSandbox

pytestmark = pytest.mark.heavy


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _raw(sandbox: RunningSandbox, cloud: Any, method: str, path: str, **kw: Any) -> httpx.Response:
    token = cloud.session.get_token()
    return httpx.request(
        method, f"{sandbox.url}/network/v2.0{path}", headers={"X-Auth-Token": token}, **kw
    )


def _error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()["NeutronError"]
    assert body["detail"] == ""
    return response.status_code, body["type"], body["message"]


def test_version_documents_and_extensions(sandbox: RunningSandbox, cloud: Any) -> None:
    root = httpx.get(f"{sandbox.url}/network")
    assert root.status_code == 200
    assert root.json()["versions"][0]["id"] == "v2.0"
    aliases = {e.alias for e in cloud.network.extensions()}
    assert {"external-net", "router", "security-group", "port-security", "provider"} <= aliases
    catalog = {
        e["type"]: e["endpoints"][0]["url"]
        for e in cloud.session.auth.get_access(cloud.session).service_catalog.catalog
    }
    assert catalog["network"] == f"{sandbox.url}/network"


def test_external_and_provider_networks_and_who_sees_them(
    sandbox: RunningSandbox, cloud: Any, demo: Any
) -> None:
    public = cloud.network.create_network(name=_name("public"), is_router_external=True)
    assert public.is_router_external is True
    assert public.provider_network_type == "vxlan"
    assert public.provider_segmentation_id >= 1
    assert public.mtu == 1450
    flat = cloud.network.create_network(
        name=_name("flat"), provider_network_type="flat", provider_physical_network="physnet1"
    )
    assert (flat.provider_physical_network, flat.provider_segmentation_id) == ("physnet1", None)
    bad = _raw(
        sandbox, cloud, "POST", "/networks", json={"network": {"provider:network_type": "vlan"}}
    )
    assert _error(bad) == (
        400,
        "InvalidInput",
        "Invalid input for operation: physical_network required for vlan provider network.",
    )
    private = cloud.network.create_network(name=_name("admin-private"))
    # another project sees the external network, not the admin's private one
    assert demo.network.get_network(public.id).id == public.id
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.network.get_network(private.id)
    seen = {n.id for n in demo.network.networks()}
    assert public.id in seen and private.id not in seen
    assert cloud.network.find_network(public.name).id == public.id
    for network in (public, flat, private):
        cloud.network.delete_network(network)
    missing = _raw(sandbox, cloud, "GET", f"/networks/{public.id}")
    assert _error(missing) == (404, "NetworkNotFound", f"Network {public.id} could not be found.")


def test_subnets_pools_gateway_and_their_errors(sandbox: RunningSandbox, demo: Any) -> None:
    net = demo.network.create_network(name=_name("net"))
    subnet = demo.network.create_subnet(
        network_id=net.id,
        cidr="10.1.0.0/24",
        ip_version=4,
        dns_nameservers=["8.8.8.8"],
        host_routes=[{"destination": "192.168.0.0/16", "nexthop": "10.1.0.254"}],
    )
    assert subnet.gateway_ip == "10.1.0.1"
    assert subnet.allocation_pools == [{"start": "10.1.0.2", "end": "10.1.0.254"}]
    assert subnet.is_dhcp_enabled is True
    assert subnet.dns_nameservers == ["8.8.8.8"]
    assert demo.network.get_network(net.id).subnet_ids == [subnet.id]
    middle = demo.network.create_subnet(
        network_id=net.id, cidr="10.2.0.0/24", ip_version=4, gateway_ip="10.2.0.100"
    )
    assert middle.allocation_pools == [
        {"start": "10.2.0.1", "end": "10.2.0.99"},
        {"start": "10.2.0.101", "end": "10.2.0.254"},
    ]
    v6 = demo.network.create_subnet(network_id=net.id, cidr="fd00:1::/64", ip_version=6)
    assert v6.gateway_ip == "fd00:1::1"

    def create(**body: Any) -> tuple[int, str, str]:
        body.setdefault("network_id", net.id)
        body.setdefault("ip_version", 4)
        return _error(_raw(sandbox, demo, "POST", "/subnets", json={"subnet": body}))

    assert create(cidr="10.1.0.128/25") == (
        400,
        "InvalidInput",
        f"Invalid input for operation: Requested subnet with cidr: 10.1.0.128/25 for network: "
        f"{net.id} overlaps with another subnet.",
    )
    assert create(cidr="10.9.0.300/24")[:2] == (400, "HTTPBadRequest")
    assert create(
        cidr="10.3.0.0/24", allocation_pools=[{"start": "10.3.0.10", "end": "10.3.1.5"}]
    ) == (
        400,
        "OutOfBoundsAllocationPool",
        "The allocation pool 10.3.0.10-10.3.1.5 spans beyond the subnet cidr 10.3.0.0/24.",
    )
    assert create(
        cidr="10.3.0.0/24", allocation_pools=[{"start": "10.3.0.20", "end": "10.3.0.10"}]
    ) == (400, "InvalidAllocationPool", "The allocation pool 10.3.0.20-10.3.0.10 is not valid.")
    assert create(
        cidr="10.3.0.0/24",
        allocation_pools=[
            {"start": "10.3.0.10", "end": "10.3.0.20"},
            {"start": "10.3.0.15", "end": "10.3.0.30"},
        ],
    )[:2] == (409, "OverlappingAllocationPools")
    assert create(
        cidr="10.3.0.0/24",
        gateway_ip="10.3.0.15",
        allocation_pools=[{"start": "10.3.0.10", "end": "10.3.0.20"}],
    ) == (
        409,
        "GatewayConflictWithAllocationPools",
        "Gateway ip 10.3.0.15 conflicts with allocation pool 10.3.0.10-10.3.0.20",
    )
    assert _error(
        _raw(
            sandbox,
            demo,
            "POST",
            "/subnets",
            json={"subnet": {"network_id": "nope", "cidr": "10.4.0.0/24"}},
        )
    ) == (404, "NetworkNotFound", "Network nope could not be found.")
    updated = demo.network.update_subnet(
        subnet,
        name="renamed",
        dns_nameservers=[],
        allocation_pools=[{"start": "10.1.0.50", "end": "10.1.0.60"}],
    )
    assert (updated.name, updated.dns_nameservers) == ("renamed", [])
    assert updated.allocation_pools == [{"start": "10.1.0.50", "end": "10.1.0.60"}]
    demo.network.delete_network(net)
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.network.get_subnet(subnet.id)


def test_ports_addresses_macs_security_and_conflicts(sandbox: RunningSandbox, demo: Any) -> None:
    net = demo.network.create_network(name=_name("net"))
    subnet = demo.network.create_subnet(
        network_id=net.id,
        cidr="192.168.10.0/24",
        ip_version=4,
        allocation_pools=[{"start": "192.168.10.10", "end": "192.168.10.12"}],
    )
    first = demo.network.create_port(network_id=net.id, name="first")
    assert first.fixed_ips == [{"subnet_id": subnet.id, "ip_address": "192.168.10.10"}]
    assert first.mac_address.startswith("fa:16:3e:")
    assert first.status == "DOWN" and first.device_owner == ""
    default = next(g for g in demo.network.security_groups() if g.name == "default")
    assert first.security_group_ids == [default.id]
    assert first.is_port_security_enabled is True
    # an address outside the pools but inside the cidr may be asked for by name
    pinned = demo.network.create_port(
        network_id=net.id, fixed_ips=[{"subnet_id": subnet.id, "ip_address": "192.168.10.200"}]
    )
    assert pinned.fixed_ips[0]["ip_address"] == "192.168.10.200"

    def create(**body: Any) -> tuple[int, str, str]:
        body.setdefault("network_id", net.id)
        return _error(_raw(sandbox, demo, "POST", "/ports", json={"port": body}))

    assert create(fixed_ips=[{"ip_address": "192.168.10.10"}]) == (
        409,
        "IpAddressAlreadyAllocated",
        f"IP address 192.168.10.10 already allocated in subnet {subnet.id}",
    )
    assert create(fixed_ips=[{"ip_address": "192.168.10.1"}])[1] == "IpAddressAlreadyAllocated"
    assert create(fixed_ips=[{"subnet_id": subnet.id, "ip_address": "10.0.0.5"}]) == (
        400,
        "InvalidIpForSubnet",
        "IP address 10.0.0.5 is not a valid IP for the specified subnet.",
    )
    assert create(fixed_ips=[{"ip_address": "10.0.0.5"}])[1] == "InvalidIpForNetwork"
    assert create(mac_address=first.mac_address)[1] == "MacAddressInUse"
    assert create(port_security_enabled=False, security_groups=[default.id]) == (
        400,
        "PortSecurityAndIPRequiredForSecurityGroups",
        "Port security must be enabled and port must have an IP address in order to use "
        "security groups.",
    )
    assert (
        create(port_security_enabled=False, allowed_address_pairs=[{"ip_address": "10.0.0.9"}])[1]
        == "AddressPairAndPortSecurityRequired"
    )
    open_port = demo.network.create_port(network_id=net.id, port_security_enabled=False)
    assert (open_port.security_group_ids, open_port.is_port_security_enabled) == ([], False)
    pairs = demo.network.create_port(
        network_id=net.id, allowed_address_pairs=[{"ip_address": "10.10.0.0/24"}]
    )
    assert pairs.allowed_address_pairs == [
        {"ip_address": "10.10.0.0/24", "mac_address": pairs.mac_address}
    ]
    # the pool (10..12) is used up now
    assert create() == (
        409,
        "IpAddressGenerationFailure",
        f"No more IP addresses available on network {net.id}.",
    )
    # deleting a port frees its address; an update may move the port's address
    demo.network.delete_port(open_port)
    again = demo.network.create_port(network_id=net.id)
    assert again.fixed_ips[0]["ip_address"] == open_port.fixed_ips[0]["ip_address"]
    moved = demo.network.update_port(
        first,
        fixed_ips=[{"subnet_id": subnet.id, "ip_address": "192.168.10.100"}],
        device_id="server-1",
        device_owner="compute:nova",
    )
    assert moved.fixed_ips[0]["ip_address"] == "192.168.10.100"
    assert moved.status == "ACTIVE"
    found = list(demo.network.ports(fixed_ips=["ip_address=192.168.10.100"]))
    assert [p.id for p in found] == [first.id]
    assert {p.id for p in demo.network.ports(network_id=net.id, device_owner="compute:nova")} == {
        first.id
    }
    assert _error(_raw(sandbox, demo, "DELETE", f"/subnets/{subnet.id}")) == (
        409,
        "SubnetInUse",
        f"Unable to complete operation on subnet {subnet.id}: One or more ports have an IP "
        "allocation from this subnet.",
    )
    assert _error(_raw(sandbox, demo, "DELETE", f"/networks/{net.id}")) == (
        409,
        "NetworkInUse",
        f"Unable to complete operation on network {net.id}. There are one or more ports "
        "still in use on the network.",
    )
    for port in demo.network.ports(network_id=net.id):
        demo.network.delete_port(port)
    demo.network.delete_network(net)
    assert _error(_raw(sandbox, demo, "GET", f"/ports/{first.id}")) == (
        404,
        "PortNotFound",
        f"Port {first.id} could not be found.",
    )


def test_routers_interfaces_and_floating_ips(sandbox: RunningSandbox, cloud: Any) -> None:
    public = cloud.network.create_network(name=_name("ext"), is_router_external=True)
    cloud.network.create_subnet(network_id=public.id, cidr="172.30.0.0/29", ip_version=4)
    net = cloud.network.create_network(name=_name("net"))
    subnet = cloud.network.create_subnet(network_id=net.id, cidr="10.20.0.0/24", ip_version=4)
    port = cloud.network.create_port(network_id=net.id)
    with pytest.raises(openstack.exceptions.BadRequestException, match="not an external"):
        cloud.network.create_router(name="r0", external_gateway_info={"network_id": net.id})
    router = cloud.network.create_router(
        name=_name("router"), external_gateway_info={"network_id": public.id}
    )
    gateway = router.external_gateway_info
    assert gateway["network_id"] == public.id and gateway["enable_snat"] is True
    assert gateway["external_fixed_ips"][0]["ip_address"] == "172.30.0.2"
    # a floating IP can't reach a subnet no router joins to the external network
    fip = cloud.network.create_ip(floating_network_id=public.id)
    assert (fip.floating_ip_address, fip.status, fip.port_id) == ("172.30.0.3", "DOWN", None)
    refused = _raw(
        sandbox, cloud, "PUT", f"/floatingips/{fip.id}", json={"floatingip": {"port_id": port.id}}
    )
    assert _error(refused)[:2] == (404, "ExternalGatewayForFloatingIPNotFound")
    info = cloud.network.add_interface_to_router(router, subnet=subnet.id)
    assert info["subnet_id"] == subnet.id and info["network_id"] == net.id
    interface = cloud.network.get_port(info["port_id"])
    assert interface.fixed_ips == [{"subnet_id": subnet.id, "ip_address": "10.20.0.1"}]
    assert (interface.device_owner, interface.device_id) == (
        "network:router_interface",
        router.id,
    )
    again = _raw(
        sandbox,
        cloud,
        "PUT",
        f"/routers/{router.id}/add_router_interface",
        json={"subnet_id": subnet.id},
    )
    assert _error(again) == (
        400,
        "BadRequest",
        f"Bad router request: Router already has a port on subnet {subnet.id}.",
    )
    fip = cloud.network.update_ip(fip, port_id=port.id)
    assert (fip.fixed_ip_address, fip.router_id, fip.status) == (
        port.fixed_ips[0]["ip_address"],
        router.id,
        "ACTIVE",
    )
    assert _error(
        _raw(
            sandbox,
            cloud,
            "PUT",
            f"/routers/{router.id}/remove_router_interface",
            json={"subnet_id": subnet.id},
        )
    )[:2] == (409, "RouterInterfaceInUseByFloatingIP")
    assert _error(_raw(sandbox, cloud, "DELETE", f"/routers/{router.id}")) == (
        409,
        "RouterInUse",
        f"Router {router.id} still has ports",
    )
    assert _error(_raw(sandbox, cloud, "DELETE", f"/ports/{interface.id}"))[:2] == (
        409,
        "ServicePortInUse",
    )
    # the external network holds the gateway's and the floating IP's ports
    assert _error(_raw(sandbox, cloud, "DELETE", f"/networks/{public.id}"))[1] == "NetworkInUse"
    # deleting the port disassociates its floating IP
    cloud.network.delete_port(port)
    assert cloud.network.get_ip(fip.id).port_id is None
    cloud.network.remove_interface_from_router(router, subnet=subnet.id)
    missing = _raw(
        sandbox,
        cloud,
        "PUT",
        f"/routers/{router.id}/remove_router_interface",
        json={"subnet_id": subnet.id},
    )
    assert _error(missing) == (
        404,
        "RouterInterfaceNotFoundForSubnet",
        f"Router {router.id} has no interface on subnet {subnet.id}",
    )
    cloud.network.delete_ip(fip)
    cloud.network.delete_router(router)
    for network in (net, public):
        cloud.network.delete_network(network)
    assert not list(cloud.network.ports(network_id=public.id))


def test_floating_ip_pool_exhaustion_and_wrong_network(sandbox: RunningSandbox, cloud: Any) -> None:
    public = cloud.network.create_network(name=_name("ext"), is_router_external=True)
    cloud.network.create_subnet(
        network_id=public.id,
        cidr="172.31.0.0/24",
        ip_version=4,
        allocation_pools=[{"start": "172.31.0.5", "end": "172.31.0.5"}],
    )
    fip = cloud.network.create_ip(floating_network_id=public.id)
    assert fip.floating_ip_address == "172.31.0.5"
    exhausted = _raw(
        sandbox,
        cloud,
        "POST",
        "/floatingips",
        json={"floatingip": {"floating_network_id": public.id}},
    )
    assert _error(exhausted)[:2] == (409, "IpAddressGenerationFailure")
    private = cloud.network.create_network(name=_name("net"))
    wrong = _raw(
        sandbox,
        cloud,
        "POST",
        "/floatingips",
        json={"floatingip": {"floating_network_id": private.id}},
    )
    assert _error(wrong) == (
        400,
        "BadRequest",
        f"Bad floatingip request: Network {private.id} is not a valid external network.",
    )
    cloud.network.delete_ip(fip)
    cloud.network.delete_network(public)
    cloud.network.delete_network(private)


def test_security_groups_default_rules_and_checks(sandbox: RunningSandbox, demo: Any) -> None:
    groups = [g for g in demo.network.security_groups() if g.name == "default"]
    assert len(groups) == 1
    default = groups[0]
    rules = {
        (r["direction"], r["ethertype"], r["remote_group_id"]) for r in default.security_group_rules
    }
    assert rules == {
        ("egress", "IPv4", None),
        ("egress", "IPv6", None),
        ("ingress", "IPv4", default.id),
        ("ingress", "IPv6", default.id),
    }
    web = demo.network.create_security_group(name=_name("web"), description="web servers")
    assert sorted((r["direction"], r["ethertype"]) for r in web.security_group_rules) == [
        ("egress", "IPv4"),
        ("egress", "IPv6"),
    ]
    rule = demo.network.create_security_group_rule(
        security_group_id=web.id,
        direction="ingress",
        protocol="tcp",
        port_range_min=80,
        port_range_max=80,
        remote_ip_prefix="0.0.0.0/0",
    )
    assert (rule.protocol, rule.port_range_min, rule.port_range_max) == ("tcp", 80, 80)

    def create(**body: Any) -> tuple[int, str, str]:
        body.setdefault("security_group_id", web.id)
        body.setdefault("direction", "ingress")
        return _error(
            _raw(sandbox, demo, "POST", "/security-group-rules", json={"security_group_rule": body})
        )

    assert create(
        protocol="tcp", port_range_min=80, port_range_max=80, remote_ip_prefix="0.0.0.0/0"
    ) == (
        409,
        "SecurityGroupRuleExists",
        f"Security group rule already exists. Rule id is {rule.id}.",
    )
    assert create(protocol="tcp", port_range_min=90, port_range_max=80) == (
        400,
        "SecurityGroupInvalidPortRange",
        "For TCP/UDP protocols, port_range_min must be <= port_range_max",
    )
    assert create(port_range_min=22, port_range_max=22)[1] == (
        "SecurityGroupProtocolRequiredWithPorts"
    )
    assert create(protocol="icmp", port_range_min=300)[1] == "SecurityGroupInvalidIcmpValue"
    assert create(remote_ip_prefix="::/0") == (
        400,
        "SecurityGroupRuleParameterConflict",
        "Conflicting value ethertype IPv4 for CIDR ::/0",
    )
    assert create(remote_ip_prefix="10.0.0.0/8", remote_group_id=default.id)[1] == (
        "SecurityGroupRemoteGroupAndRemoteIpPrefix"
    )
    assert create(protocol="bogus")[1] == "SecurityGroupRuleInvalidProtocol"
    assert _error(_raw(sandbox, demo, "DELETE", f"/security-groups/{default.id}")) == (
        409,
        "SecurityGroupCannotRemoveDefault",
        "Insufficient rights for removing default security group.",
    )
    net = demo.network.create_network(name=_name("net"))
    demo.network.create_subnet(network_id=net.id, cidr="10.50.0.0/24", ip_version=4)
    port = demo.network.create_port(network_id=net.id, security_groups=[web.id])
    assert port.security_group_ids == [web.id]
    assert _error(_raw(sandbox, demo, "DELETE", f"/security-groups/{web.id}")) == (
        409,
        "SecurityGroupInUse",
        f"Security Group {web.id} in use.",
    )
    demo.network.delete_port(port)
    demo.network.delete_security_group_rule(rule)
    demo.network.delete_security_group(web)
    assert _error(_raw(sandbox, demo, "GET", f"/security-groups/{web.id}")) == (
        404,
        "SecurityGroupNotFound",
        f"Security group {web.id} does not exist",
    )
    demo.network.delete_network(net)


def test_nova_plugs_servers_in_through_the_port_provider(
    sandbox: RunningSandbox, demo: Any
) -> None:
    neutron = sandbox.hub.find(PortProvider)
    assert neutron is not None
    project = demo.current_project_id
    net = demo.network.create_network(name=_name("net"))
    demo.network.create_subnet(network_id=net.id, cidr="10.60.0.0/24", ip_version=4)
    with sandbox.hub.store.transaction():
        made = neutron.plug(project, "server-a", network_id=net.id, fixed_ip="10.60.0.77")
    port = demo.network.get_port(made)
    assert (port.device_id, port.device_owner, port.status) == (
        "server-a",
        "compute:nova",
        "ACTIVE",
    )
    group = demo.network.create_security_group(name=_name("app"))
    with sandbox.hub.store.transaction():
        grouped = neutron.plug(
            project, "server-b", network_id=net.id, security_groups=(group.name, "default")
        )
    default = next(g for g in demo.network.security_groups() if g.name == "default")
    assert demo.network.get_port(grouped).security_group_ids == [group.id, default.id]
    with pytest.raises(NotFound, match="Security group nope not found"):
        neutron.plug(project, "server-b", network_id=net.id, security_groups=("nope",))
    neutron.unplug(grouped, delete=True)
    demo.network.delete_security_group(group)
    own = demo.network.create_port(network_id=net.id)
    assert neutron.plug(project, "server-a", port_id=own.id) == own.id
    (first, second) = neutron.addresses([made, own.id, "gone"])
    assert [(f.ip_address, f.version) for f in first.fixed_ips] == [("10.60.0.77", 4)]
    assert first.network_name == net.name
    assert second.port_id == own.id
    neutron.unplug(own.id, delete=False)
    assert demo.network.get_port(own.id).device_id == ""
    neutron.unplug(made, delete=True)
    neutron.unplug(made, delete=True)  # gone already: no error
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.network.get_port(made)
    demo.network.delete_port(own)
    demo.network.delete_network(net)


def test_tags_on_creation_and_through_the_tags_api(sandbox: RunningSandbox, demo: Any) -> None:
    net = demo.network.create_network(name=_name("tagged"), tags=["web", "prod"])
    assert sorted(net.tags) == ["prod", "web"]
    demo.network.set_tags(net, ["blue"])
    assert demo.network.get_network(net.id).tags == ["blue"]
    assert _raw(sandbox, demo, "PUT", f"/networks/{net.id}/tags/green").status_code == 201
    assert _raw(sandbox, demo, "GET", f"/networks/{net.id}/tags/green").status_code == 204
    assert [n.id for n in demo.network.networks(tags="blue,green")] == [net.id]
    assert net.id not in {n.id for n in demo.network.networks(not_tags="green")}
    missing = _raw(sandbox, demo, "DELETE", f"/networks/{net.id}/tags/red")
    assert _error(missing)[:2] == (404, "TagNotFound")
    demo.network.delete_network(net)


def test_malformed_attributes_are_400_not_500(sandbox: RunningSandbox, cloud: Any) -> None:
    net = cloud.network.create_network(name=_name("shape"))
    port = cloud.network.create_port(network_id=net.id)
    cases = [
        ("POST", "/networks", {"network": {"mtu": "x"}}),
        ("POST", "/subnets", {"subnet": {"network_id": net.id, "cidr": "10.8.0.0/24",
                                         "ip_version": []}}),
        ("POST", "/subnets", {"subnet": {"network_id": net.id, "cidr": "10.8.0.0/24",
                                         "dns_nameservers": 1}}),
        ("POST", "/subnets", {"subnet": {"network_id": net.id, "cidr": "10.8.0.0/24",
                                         "allocation_pools": [{"start": "x"}]}}),
        ("POST", "/ports", {"port": {"network_id": net.id, "binding:profile": "x"}}),
        ("POST", "/ports", {"port": {"network_id": net.id, "fixed_ips": [1]}}),
        ("PUT", f"/ports/{port.id}", {"port": {"allowed_address_pairs": True}}),
        ("PUT", f"/ports/{port.id}", {"port": {"security_groups": "default"}}),
        ("POST", "/routers", {"router": {"external_gateway_info": "x"}}),
        ("POST", "/security-group-rules", {"security_group_rule": {"direction": "up"}}),
        ("POST", "/networks", {"nets": {}}),
    ]  # fmt: skip
    for method, path, body in cases:
        response = _raw(sandbox, cloud, method, path, json=body)
        assert response.status_code == 400, (method, path, body, response.text)
        assert response.json()["NeutronError"]["message"], (method, path, body)
    cloud.network.delete_port(port)
    cloud.network.delete_network(net)
