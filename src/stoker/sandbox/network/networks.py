"""Networks and subnets: the provider attributes an admin sees, and subnets whose
allocation pools, gateway and host routes are checked as Neutron checks them."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, Forbidden
from stoker.sandbox.network import ipam
from stoker.sandbox.network.records import (
    Records,
    as_list,
    boolean,
    integer,
    reject_read_only,
    require,
)
from stoker.sandbox.service import Hub
from stoker.sandbox.store import Document

NETWORK_TYPES = ("vxlan", "geneve", "vlan", "flat", "local", "gre")
#: the MTU Neutron gives a network of each type on a 1500-byte underlay
MTU = {"vxlan": 1450, "geneve": 1442, "gre": 1458}


def _shared_or_external(network: Document) -> bool:
    return bool(network.get("shared") or network.get("router:external"))


class Networks:
    """``/v2.0/networks``."""

    def __init__(self, hub: Hub) -> None:
        self.records = Records(hub, "network", "Network", visible_extra=_shared_or_external)

    def create(self, project: str, body: Mapping[str, Any]) -> Document:
        reject_read_only(body)
        network_type = str(body.get("provider:network_type") or "vxlan")
        if network_type not in NETWORK_TYPES:
            raise ipam.invalid_input(f"network_type value '{network_type}' not supported")
        physical = body.get("provider:physical_network")
        segment = body.get("provider:segmentation_id")
        if network_type in ("flat", "vlan") and not physical:
            raise ipam.invalid_input(
                f"physical_network required for {network_type} provider network"
            )
        if network_type in ("flat", "local") and segment is not None:
            raise ipam.invalid_input(
                f"segmentation_id specified for {network_type} provider network"
            )
        if segment is None and network_type not in ("flat", "local"):
            taken = {
                n.get("provider:segmentation_id")
                for n in self.records.where(lambda n: n["provider:network_type"] == network_type)
            }
            segment = next(s for s in range(1, 1 << 24) if s not in taken)
        elif segment is not None:
            segment = self._segment(network_type, segment)
        external = boolean(body, "router:external", False)
        network = self.records.new(
            project,
            body,
            name=str(body.get("name") or ""),
            admin_state_up=boolean(body, "admin_state_up", True),
            status="ACTIVE",
            subnets=[],
            shared=boolean(body, "shared", False),
            mtu=integer(body.get("mtu") or MTU.get(network_type, 1500), "mtu"),
            port_security_enabled=boolean(body, "port_security_enabled", True),
            **{
                "router:external": external,
                "is_default": boolean(body, "is_default", False) if external else False,
                "provider:network_type": network_type,
                "provider:physical_network": physical,
                "provider:segmentation_id": segment,
            },
            availability_zone_hints=list(body.get("availability_zone_hints") or []),
            availability_zones=["nova"],
            ipv4_address_scope=None,
            ipv6_address_scope=None,
            l2_adjacency=True,
            dns_domain=str(body.get("dns_domain") or ""),
            qos_policy_id=body.get("qos_policy_id"),
        )
        return self.records.insert(network)

    def _segment(self, network_type: str, value: Any) -> int:
        try:
            segment = int(value)
        except (TypeError, ValueError):
            raise ipam.invalid_input(f"'{value}' is not an integer") from None
        limit = 4094 if network_type == "vlan" else (1 << 24) - 1
        if not 1 <= segment <= limit:
            raise ipam.invalid_input(
                f"provider:segmentation_id out of range ({segment} is not between 1 and {limit})"
            )
        clash = self.records.where(
            lambda n: (
                n["provider:network_type"] == network_type
                and n["provider:segmentation_id"] == segment
            )
        )
        if clash:
            raise Conflict(
                f"Unable to create the network. The {network_type} {segment} is in use.",
                kind="SegmentationIdInUse" if network_type != "vlan" else "VlanIdInUse",
            )
        return segment

    def update(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        reject_read_only(body, "PUT")
        network = self.records.get(id, project)
        for name in ("name", "description", "dns_domain", "qos_policy_id"):
            if name in body:
                network[name] = body[name] if name == "qos_policy_id" else str(body[name] or "")
        for name in ("admin_state_up", "shared", "port_security_enabled", "router:external"):
            if name in body:
                network[name] = boolean(body, name, bool(network[name]))
        if "mtu" in body:
            network["mtu"] = integer(body["mtu"], "mtu")
        for name in ("provider:network_type", "provider:physical_network"):
            if name in body and body[name] != network[name]:
                raise ipam.invalid_input("Plugin does not support updating provider attributes")
        return self.records.save(network)


class Subnets:
    """``/v2.0/subnets``; ports' addresses come from here (`ipam`)."""

    def __init__(self, hub: Hub, networks: Networks) -> None:
        self.networks = networks
        self.records = Records(
            hub,
            "subnet",
            "Subnet",
            visible_extra=lambda subnet: self._network_visible_to_all(subnet),
        )

    def _network_visible_to_all(self, subnet: Document) -> bool:
        network = self.networks.records.find(subnet["network_id"], None)
        return network is not None and _shared_or_external(network)

    def create(self, project: str, body: Mapping[str, Any]) -> Document:
        reject_read_only(body)
        require(body, "network_id")
        network = self.networks.records.get(body["network_id"], project)
        if network["project_id"] != project and not network.get("shared"):
            # an external network is visible to all, but only its owner adds subnets to it
            raise Forbidden(
                "(rule:create_subnet) is disallowed by policy", kind="PolicyNotAuthorized"
            )
        version = integer(body.get("ip_version", 4), "ip_version")
        if version not in (4, 6):
            raise ipam.invalid_input(f"{version} is not in [4, 6]")
        if "cidr" not in body:
            raise BadRequest(
                "Bad subnets request: a subnetpool must be specified in the absence of a cidr.",
                kind="BadRequest",
            )
        cidr = ipam.parse_cidr(body["cidr"], version)
        for other in self.records.where(lambda s: s["network_id"] == network["id"]):
            if ipam.overlaps(str(cidr), other["cidr"]):
                raise ipam.invalid_input(
                    f"Requested subnet with cidr: {cidr} for network: {network['id']} "
                    "overlaps with another subnet"
                )
        gateway = self._gateway(body, cidr)
        if "allocation_pools" in body and body["allocation_pools"] is not None:
            pools = ipam.parse_pools(
                as_list(body["allocation_pools"], "allocation_pools"), cidr, gateway
            )
        else:
            pools = ipam.default_pools(cidr, gateway)
        subnet = self.records.new(
            project,
            body,
            name=str(body.get("name") or ""),
            network_id=network["id"],
            ip_version=version,
            cidr=str(cidr),
            gateway_ip=None if gateway is None else str(gateway),
            allocation_pools=ipam.pools_document(pools, version),
            enable_dhcp=boolean(body, "enable_dhcp", True),
            dns_nameservers=self._nameservers(body.get("dns_nameservers")),
            host_routes=self._routes(body.get("host_routes"), version),
            ipv6_ra_mode=body.get("ipv6_ra_mode"),
            ipv6_address_mode=body.get("ipv6_address_mode"),
            subnetpool_id=None,
            segment_id=None,
            service_types=list(body.get("service_types") or []),
            dns_publish_fixed_ip=False,
        )
        self.records.insert(subnet)
        network["subnets"] = [*network["subnets"], subnet["id"]]
        self.networks.records.save(network)
        return subnet

    @staticmethod
    def _gateway(body: Mapping[str, Any], cidr: ipam.Network) -> ipam.Address | None:
        if "gateway_ip" not in body:
            return ipam.default_gateway(cidr)
        if body["gateway_ip"] is None:
            return None
        gateway = ipam.parse_address(body["gateway_ip"], "gateway_ip")
        if gateway.version != cidr.version:
            raise ipam.invalid_input(f"Gateway IP version inconsistent with subnet {cidr}")
        if gateway in (cidr.network_address, cidr.broadcast_address) and cidr.version == 4:
            raise ipam.invalid_input(f"Gateway is not valid on subnet {cidr}")
        return gateway

    @staticmethod
    def _nameservers(raw: Any) -> list[str]:
        servers = [
            str(ipam.parse_address(s, "dns_nameservers")) for s in as_list(raw, "dns_nameservers")
        ]
        if len(set(servers)) != len(servers):
            raise ipam.invalid_input(f"Duplicate nameserver '{servers}'")
        return servers

    @staticmethod
    def _routes(raw: Any, version: int) -> list[dict[str, str]]:
        routes = []
        for route in as_list(raw, "host_routes"):
            if not isinstance(route, Mapping) or {"destination", "nexthop"} - set(route):
                raise ipam.invalid_input(f"Invalid data format for hostroute: '{route}'")
            try:
                destination = ipaddress.ip_network(str(route["destination"]))
            except ValueError:
                raise ipam.invalid_input(
                    f"'{route['destination']}' is not a valid IP subnet"
                ) from None
            nexthop = ipam.parse_address(route["nexthop"], "host_routes")
            if destination.version != version or nexthop.version != version:
                raise ipam.invalid_input(
                    f"Host route {route} is not of the subnet's IP version {version}"
                )
            routes.append({"destination": str(destination), "nexthop": str(nexthop)})
        return routes

    def update(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        reject_read_only(body, "PUT")
        subnet = self.records.get(id, project)
        for name in ("cidr", "network_id", "ip_version"):
            if name in body and str(body[name]) != str(subnet[name]):
                raise BadRequest(f"Cannot update read-only attribute {name}", kind="HTTPBadRequest")
        version = int(subnet["ip_version"])
        cidr = ipaddress.ip_network(subnet["cidr"])
        for name in ("name", "description"):
            if name in body:
                subnet[name] = str(body[name] or "")
        if "enable_dhcp" in body:
            subnet["enable_dhcp"] = boolean(body, "enable_dhcp", True)
        if "dns_nameservers" in body:
            subnet["dns_nameservers"] = self._nameservers(body["dns_nameservers"])
        if "host_routes" in body:
            subnet["host_routes"] = self._routes(body["host_routes"], version)
        gateway = (
            self._gateway(body, cidr)
            if "gateway_ip" in body
            else (
                None if subnet["gateway_ip"] is None else ipaddress.ip_address(subnet["gateway_ip"])
            )
        )
        if "allocation_pools" in body:
            pools = ipam.parse_pools(
                as_list(body["allocation_pools"], "allocation_pools"), cidr, gateway
            )
            subnet["allocation_pools"] = ipam.pools_document(pools, version)
        elif "gateway_ip" in body:
            ipam.parse_pools(subnet["allocation_pools"], cidr, gateway)
        subnet["gateway_ip"] = None if gateway is None else str(gateway)
        return self.records.save(subnet)

    def of_network(self, network_id: str) -> list[Document]:
        return self.records.where(lambda s: s["network_id"] == network_id)
