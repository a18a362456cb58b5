"""Routers (gateway and interfaces) and floating IPs.

A router's external gateway is a port of the sandbox's own on the external network; an
interface is a port on the subnet's gateway address, owned by the router's project. A
floating IP holds an address of the external network (a port of its own, as Neutron makes
one) and associates with a port only when a router joins the port's subnet to that network,
the check Neutron makes (``ExternalGatewayForFloatingIPNotFound``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, NotFound
from stoker.sandbox.network import ipam
from stoker.sandbox.network.ports import FLOATING_IP, ROUTER_GATEWAY, ROUTER_INTERFACE, Ports
from stoker.sandbox.network.records import (
    Records,
    as_list,
    boolean,
    reject_read_only,
    require,
)
from stoker.sandbox.service import Hub
from stoker.sandbox.store import Document


def bad_router(message: str) -> BadRequest:
    return BadRequest(f"Bad router request: {message}.", kind="BadRequest")


def bad_floatingip(message: str) -> BadRequest:
    return BadRequest(f"Bad floatingip request: {message}.", kind="BadRequest")


class Routers:
    """``/v2.0/routers`` and its ``add_router_interface``/``remove_router_interface``."""

    def __init__(self, hub: Hub, ports: Ports) -> None:
        self.ports = ports
        self.records = Records(
            hub, "router", "Router", missing=lambda id: f"Router {id} could not be found"
        )

    def create(self, project: str, body: Mapping[str, Any]) -> Document:
        reject_read_only(body)
        router = self.records.new(
            project,
            body,
            name=str(body.get("name") or ""),
            admin_state_up=boolean(body, "admin_state_up", True),
            status="ACTIVE",
            external_gateway_info=None,
            routes=[],
            distributed=boolean(body, "distributed", False),
            ha=boolean(body, "ha", False),
            availability_zone_hints=list(body.get("availability_zone_hints") or []),
            availability_zones=["nova"],
            flavor_id=body.get("flavor_id"),
            enable_ndp_proxy=None,
        )
        self.records.insert(router)
        if body.get("external_gateway_info"):
            self._set_gateway(router, body["external_gateway_info"], project)
        return router

    def _set_gateway(self, router: Document, info: Any, project: str | None) -> None:
        if not isinstance(info, Mapping) or "network_id" not in info:
            raise ipam.invalid_input(f"Invalid data format for external_gateway_info: '{info}'")
        network = self.ports.networks.records.get(info["network_id"], project)
        if not network.get("router:external"):
            raise bad_router(f"Network {network['id']} is not an external network")
        current = router.get("external_gateway_info") or {}
        fixed = info.get("external_fixed_ips")
        if current.get("network_id") != network["id"] or fixed is not None:
            self._drop_gateway_port(router)
            port = self.ports.create_own(project, network, router["id"], ROUTER_GATEWAY, fixed)
            fixed_ips = port["fixed_ips"]
        else:
            fixed_ips = current["external_fixed_ips"]
        router["external_gateway_info"] = {
            "network_id": network["id"],
            "enable_snat": boolean(info, "enable_snat", True),
            "external_fixed_ips": fixed_ips,
        }
        self.records.save(router)

    def gateway_port(self, router_id: str) -> Document | None:
        found = self.ports.records.where(
            lambda p: p["device_id"] == router_id and p["device_owner"] == ROUTER_GATEWAY
        )
        return found[0] if found else None

    def _drop_gateway_port(self, router: Document) -> None:
        port = self.gateway_port(router["id"])
        if port is not None:
            self.ports.records.delete(port["id"])

    def interfaces(self, router_id: str) -> list[Document]:
        return self.ports.records.where(
            lambda p: p["device_id"] == router_id and p["device_owner"] == ROUTER_INTERFACE
        )

    def update(
        self, id: str, project: str | None, body: Mapping[str, Any], floating: FloatingIps
    ) -> Document:
        reject_read_only(body, "PUT")
        router = self.records.get(id, project)
        for name in ("name", "description"):
            if name in body:
                router[name] = str(body[name] or "")
        if "admin_state_up" in body:
            router["admin_state_up"] = boolean(body, "admin_state_up", True)
        if "routes" in body:
            router["routes"] = self._routes(router, as_list(body["routes"], "routes"))
        self.records.save(router)
        if "external_gateway_info" in body:
            info = body["external_gateway_info"]
            current = router.get("external_gateway_info") or {}
            leaving = current.get("network_id")
            if (
                leaving
                and (not info or info.get("network_id") != leaving)
                and floating.records.where(
                    lambda f: f["router_id"] == id and f["floating_network_id"] == leaving
                )
            ):
                raise Conflict(
                    f"Gateway cannot be updated for router {id}, since a gateway to "
                    f"external network {leaving} is required by one or more floating IPs.",
                    kind="RouterExternalGatewayInUseByFloatingIp",
                )
            if info:
                self._set_gateway(router, info, project)
            else:
                self._drop_gateway_port(router)
                router["external_gateway_info"] = None
                self.records.save(router)
        return router

    def _routes(self, router: Document, raw: Any) -> list[dict[str, str]]:
        cidrs = [
            ipaddress.ip_network(s["cidr"])
            for port in self.interfaces(router["id"])
            for s in (
                self.ports.subnets.records.get(ip["subnet_id"], None) for ip in port["fixed_ips"]
            )
        ]
        routes = []
        for route in raw:
            if not isinstance(route, Mapping) or {"destination", "nexthop"} - set(route):
                raise ipam.invalid_input(f"Invalid data format for hostroute: '{route}'")
            nexthop = ipam.parse_address(route["nexthop"], "routes")
            if not any(nexthop in cidr for cidr in cidrs):
                raise BadRequest(
                    f"Invalid format for routes: {route}, the nexthop is not connected with router",
                    kind="InvalidRoutes",
                )
            routes.append({"destination": str(route["destination"]), "nexthop": str(nexthop)})
        return routes

    def add_interface(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        router = self.records.get(id, project)
        if "subnet_id" in body and "port_id" in body:
            raise bad_router("Cannot specify both subnet-id and port-id")
        if "port_id" in body:
            port = self.ports.records.get(str(body["port_id"]), project)
            if port["device_id"] or port["device_owner"]:
                raise Conflict(
                    f"Unable to complete operation on port {port['id']} for network "
                    f"{port['network_id']}. Port already has an attached device "
                    f"{port['device_id']}.",
                    kind="PortInUse",
                )
            if not port["fixed_ips"]:
                raise bad_router("Router port must have at least one fixed IP")
            subnets = [ip["subnet_id"] for ip in port["fixed_ips"]]
            self._check_overlap(router, subnets)
            port["device_id"] = router["id"]
            port["device_owner"] = ROUTER_INTERFACE
            port["security_groups"] = []
            self.ports._bind(port)
            self.ports.records.save(port)
        elif "subnet_id" in body:
            subnet = self.ports.subnets.records.get(str(body["subnet_id"]), project)
            if not subnet.get("gateway_ip"):
                raise bad_router(f"Subnet {subnet['id']} does not have a gateway IP")
            for existing in self.interfaces(router["id"]):
                if any(ip["subnet_id"] == subnet["id"] for ip in existing["fixed_ips"]):
                    raise bad_router(f"Router already has a port on subnet {subnet['id']}")
            self._check_overlap(router, [subnet["id"]])
            port = self.ports.create(
                project,
                {
                    "network_id": subnet["network_id"],
                    "fixed_ips": [{"subnet_id": subnet["id"], "ip_address": subnet["gateway_ip"]}],
                    "device_id": router["id"],
                    "device_owner": ROUTER_INTERFACE,
                    "port_security_enabled": False,
                },
                owner_project=router["project_id"],
            )
            subnets = [subnet["id"]]
        else:
            raise bad_router("Either subnet_id or port_id must be specified")
        return self._interface_info(router, port, subnets)

    def _check_overlap(self, router: Document, subnet_ids: list[str]) -> None:
        for subnet_id in subnet_ids:
            new = self.ports.subnets.records.get(subnet_id, None)
            for port in self.interfaces(router["id"]):
                for ip in port["fixed_ips"]:
                    old = self.ports.subnets.records.get(ip["subnet_id"], None)
                    if ipam.overlaps(new["cidr"], old["cidr"]):
                        raise bad_router(
                            f"Cidr {new['cidr']} of subnet {new['id']} overlaps with cidr "
                            f"{old['cidr']} of subnet {old['id']}"
                        )

    @staticmethod
    def _interface_info(router: Document, port: Document, subnets: list[str]) -> Document:
        return {
            "id": router["id"],
            "tenant_id": router["project_id"],
            "project_id": router["project_id"],
            "port_id": port["id"],
            "network_id": port["network_id"],
            "subnet_id": subnets[0],
            "subnet_ids": subnets,
        }

    def remove_interface(
        self, id: str, project: str | None, body: Mapping[str, Any], floating: FloatingIps
    ) -> Document:
        router = self.records.get(id, project)
        ports = self.interfaces(router["id"])
        if "port_id" in body:
            port = next((p for p in ports if p["id"] == body["port_id"]), None)
            if port is None:
                raise NotFound(
                    f"Router {id} does not have an interface with id {body['port_id']}",
                    kind="RouterInterfaceNotFound",
                )
            if "subnet_id" in body and all(
                ip["subnet_id"] != body["subnet_id"] for ip in port["fixed_ips"]
            ):
                raise Conflict(
                    f"Subnet {body['subnet_id']} is not associated with the interface {port['id']}",
                    kind="SubnetMismatchForPort",
                )
        elif "subnet_id" in body:
            port = next(
                (
                    p
                    for p in ports
                    if any(ip["subnet_id"] == body["subnet_id"] for ip in p["fixed_ips"])
                ),
                None,
            )
            if port is None:
                raise NotFound(
                    f"Router {id} has no interface on subnet {body['subnet_id']}",
                    kind="RouterInterfaceNotFoundForSubnet",
                )
        else:
            raise bad_router("Either subnet_id or port_id must be specified")
        subnets = [ip["subnet_id"] for ip in port["fixed_ips"]]
        for fip in floating.records.where(lambda f: f["router_id"] == id and f["port_id"]):
            inner = self.ports.records.find(fip["port_id"], None)
            if inner is not None and any(ip["subnet_id"] in subnets for ip in inner["fixed_ips"]):
                raise Conflict(
                    f"Router interface for subnet {subnets[0]} on router {id} cannot be "
                    "deleted, as it is required by one or more floating IPs.",
                    kind="RouterInterfaceInUseByFloatingIP",
                )
        self.ports.records.delete(port["id"])
        return self._interface_info(router, port, subnets)

    def delete(self, id: str, project: str | None) -> None:
        router = self.records.get(id, project)
        if self.interfaces(id):
            raise Conflict(f"Router {id} still has ports", kind="RouterInUse")
        self._drop_gateway_port(router)
        self.records.delete(id)


class FloatingIps:
    """``/v2.0/floatingips``."""

    def __init__(self, hub: Hub, routers: Routers) -> None:
        self.routers = routers
        self.ports = routers.ports
        self.records = Records(
            hub,
            "floatingip",
            "Floating IP",
            missing=lambda id: f"Floating IP {id} could not be found",
        )

    def create(self, project: str, body: Mapping[str, Any]) -> Document:
        reject_read_only(body)
        require(body, "floating_network_id")
        network = self.ports.networks.records.get(str(body["floating_network_id"]), project)
        if not network.get("router:external"):
            raise bad_floatingip(f"Network {network['id']} is not a valid external network")
        fixed: list[dict[str, Any]] | None = None
        if body.get("floating_ip_address") or body.get("subnet_id"):
            entry: dict[str, Any] = {}
            if body.get("subnet_id"):
                entry["subnet_id"] = body["subnet_id"]
            if body.get("floating_ip_address"):
                entry["ip_address"] = body["floating_ip_address"]
            fixed = [entry]
        fip = self.records.new(
            project,
            body,
            floating_network_id=network["id"],
            floating_ip_address=None,
            fixed_ip_address=None,
            port_id=None,
            router_id=None,
            status="DOWN",
            port_details=None,
            dns_domain="",
            dns_name="",
            qos_policy_id=body.get("qos_policy_id"),
            port_forwardings=[],
        )
        if not any(s["ip_version"] == 4 for s in self.ports.subnets.of_network(network["id"])):
            raise bad_floatingip(f"Network {network['id']} has no IPv4 subnet")
        port = self.ports.create_own(project, network, fip["id"], FLOATING_IP, fixed)
        fip["floating_ip_address"] = port["fixed_ips"][0]["ip_address"]
        if body.get("port_id"):
            self._associate(fip, str(body["port_id"]), body.get("fixed_ip_address"), project)
        return self.records.insert(fip)

    def _associate(self, fip: Document, port_id: str, fixed_ip: Any, project: str | None) -> None:
        port = self.ports.records.get(port_id, project)
        v4 = [ip for ip in port["fixed_ips"] if ipaddress.ip_address(ip["ip_address"]).version == 4]
        if fixed_ip is not None:
            chosen = next((ip for ip in v4 if ip["ip_address"] == str(fixed_ip)), None)
            if chosen is None:
                raise bad_floatingip(f"Port {port_id} does not have fixed ip {fixed_ip}")
        elif not v4:
            raise bad_floatingip(
                f"Port {port_id} does not have any IPv4 address, which is required to "
                "associate a floating IP"
            )
        elif len(v4) > 1:
            raise bad_floatingip(
                f"Port {port_id} has multiple fixed IPv4 addresses. Must provide a specific "
                "IPv4 address when assigning a floating IP"
            )
        else:
            chosen = v4[0]
        network_id = fip["floating_network_id"]
        router = self._router_between(network_id, chosen["subnet_id"])
        if router is None:
            raise NotFound(
                f"External network {network_id} is not reachable from subnet "
                f"{chosen['subnet_id']}.  Therefore, cannot associate Port {port_id} with a "
                "Floating IP.",
                kind="ExternalGatewayForFloatingIPNotFound",
            )
        if self.records.where(
            lambda f: (
                f["port_id"] == port_id
                and f["fixed_ip_address"] == chosen["ip_address"]
                and f["floating_network_id"] == network_id
                and f["id"] != fip["id"]
            )
        ):
            raise Conflict(
                f"Cannot associate floating IP {fip['floating_ip_address']} ({fip['id']}) with "
                f"port {port_id} using fixed IP {chosen['ip_address']}, as that fixed IP "
                f"already has a floating IP on external network {network_id}.",
                kind="FloatingIPPortAlreadyAssociated",
            )
        fip["port_id"] = port_id
        fip["fixed_ip_address"] = chosen["ip_address"]
        fip["router_id"] = router["id"]
        fip["status"] = "ACTIVE"
        fip["port_details"] = {
            "name": port["name"],
            "network_id": port["network_id"],
            "mac_address": port["mac_address"],
            "admin_state_up": port["admin_state_up"],
            "status": port["status"],
            "device_id": port["device_id"],
            "device_owner": port["device_owner"],
        }

    def _router_between(self, network_id: str, subnet_id: str) -> Document | None:
        for router in self.routers.records.where(
            lambda r: (r.get("external_gateway_info") or {}).get("network_id") == network_id
        ):
            for port in self.routers.interfaces(router["id"]):
                if any(ip["subnet_id"] == subnet_id for ip in port["fixed_ips"]):
                    return router
        return None

    @staticmethod
    def disassociate(fip: Document) -> None:
        fip.update(
            port_id=None, fixed_ip_address=None, router_id=None, status="DOWN", port_details=None
        )

    def update(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        reject_read_only(body, "PUT")
        fip = self.records.get(id, project)
        if "description" in body:
            fip["description"] = str(body["description"] or "")
        if "port_id" in body:
            if body["port_id"]:
                self._associate(fip, str(body["port_id"]), body.get("fixed_ip_address"), project)
            else:
                self.disassociate(fip)
        return self.records.save(fip)

    def delete(self, id: str, project: str | None) -> None:
        self.records.get(id, project)
        for port in self.ports.records.where(
            lambda p: p["device_id"] == id and p["device_owner"] == FLOATING_IP
        ):
            self.ports.records.delete(port["id"])
        self.records.delete(id)
