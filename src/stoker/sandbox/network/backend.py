"""Neutron's backend: the collections, the checks that span them (what a delete must find
gone first), and the `PortProvider` face Nova's backend uses to plug servers in."""

from __future__ import annotations

import ipaddress
from typing import Any

from stoker.sandbox.http_errors import Conflict, NotFound
from stoker.sandbox.interfaces import FixedIp, PortAddress
from stoker.sandbox.network.networks import Networks, Subnets
from stoker.sandbox.network.ports import FLOATING_IP, ROUTER_GATEWAY, ROUTER_INTERFACE, Ports
from stoker.sandbox.network.routers import FloatingIps, Routers
from stoker.sandbox.network.security import SecurityGroups
from stoker.sandbox.service import Hub, HubBackend
from stoker.sandbox.store import Document

#: device owners of the ports Neutron deletes with their network (none in the sandbox yet:
#: it runs no DHCP agent, so no DHCP ports are made)
NETWORK_OWNED = ("network:dhcp", "network:distributed")
#: the owner Nova gives the ports it binds
COMPUTE_OWNER = "compute:nova"


class NeutronBackend(HubBackend):
    """Every Neutron collection of one sandbox; see the package docstring."""

    def __init__(self, hub: Hub) -> None:
        super().__init__(hub)
        self.networks = Networks(hub)
        self.subnets = Subnets(hub, self.networks)
        self.security = SecurityGroups(hub)
        self.ports = Ports(hub, self.networks, self.subnets, self.security)
        self.routers = Routers(hub, self.ports)
        self.floating_ips = FloatingIps(hub, self.routers)

    def quota(self, resource: str) -> int:
        return self.hub.quota("network", resource)

    def usage(self, project: str, resource: str) -> int:
        return int(self.hub.store.count(f"network.{resource}", project_id=project))

    # deletes, which look across collections

    def delete_network(self, id: str, project: str | None) -> None:
        network = self.networks.records.get(id, project)
        ports = self.ports.on_network(id)
        if any(p["device_owner"] not in NETWORK_OWNED for p in ports):
            raise Conflict(
                f"Unable to complete operation on network {id}. There are one or more ports "
                "still in use on the network.",
                kind="NetworkInUse",
            )
        for port in ports:
            self.ports.records.delete(port["id"])
        for subnet in self.subnets.of_network(id):
            self.subnets.records.delete(subnet["id"])
        self.networks.records.delete(network["id"])

    def delete_subnet(self, id: str, project: str | None) -> None:
        subnet = self.subnets.records.get(id, project)
        holders = self.ports.records.where(
            lambda p: (
                p["device_owner"] not in NETWORK_OWNED
                and any(ip["subnet_id"] == id for ip in p["fixed_ips"])
            )
        )
        if holders:
            raise Conflict(
                f"Unable to complete operation on subnet {id}: One or more ports have an IP "
                "allocation from this subnet.",
                kind="SubnetInUse",
            )
        self.subnets.records.delete(id)
        network = self.networks.records.find(subnet["network_id"], None)
        if network is not None:
            network["subnets"] = [s for s in network["subnets"] if s != id]
            self.networks.records.save(network)

    def delete_port(self, id: str, project: str | None) -> None:
        port = self.ports.records.get(id, project)
        if port["device_owner"] in (ROUTER_INTERFACE, ROUTER_GATEWAY, FLOATING_IP):
            raise Conflict(
                f"Port {id} cannot be deleted directly via the port API: has device owner "
                f"{port['device_owner']}.",
                kind="ServicePortInUse",
            )
        self._release(port)

    def _release(self, port: Document) -> None:
        for fip in self._floating_of(port["id"]):
            self.floating_ips.disassociate(fip)
            self.floating_ips.records.save(fip)
        self.ports.records.delete(port["id"])

    def delete_security_group(self, id: str, project: str | None) -> None:
        in_use = bool(self.ports.records.where(lambda p: id in p["security_groups"]))
        self.security.delete_group(id, project, in_use)

    # PortProvider: what Nova's backend asks of Neutron

    def plug(
        self,
        project_id: str,
        server_id: str,
        *,
        network_id: str | None = None,
        port_id: str | None = None,
        fixed_ip: str | None = None,
        security_groups: tuple[str, ...] = (),
    ) -> str:
        if port_id is not None:
            port = self.ports.records.get(port_id, project_id)
            if port["device_id"] and port["device_id"] != server_id:
                raise Conflict(
                    f"Port {port_id} is still in use.",
                    kind="PortInUse",
                )
            self.ports.update(
                port_id,
                project_id,
                {"device_id": server_id, "device_owner": COMPUTE_OWNER},
            )
            return port_id
        if network_id is None:
            raise ValueError("plug needs a network or a port")
        body: dict[str, Any] = {
            "network_id": network_id,
            "device_id": server_id,
            "device_owner": COMPUTE_OWNER,
        }
        if fixed_ip is not None:
            body["fixed_ips"] = [{"ip_address": fixed_ip}]
        if security_groups:
            body["security_groups"] = [self._group_id(project_id, g) for g in security_groups]
        return str(self.ports.create(project_id, body)["id"])

    def _group_id(self, project_id: str, name_or_id: str) -> str:
        """A security group Nova names by id or by name, as Nova resolves one."""
        if name_or_id == "default":
            return str(self.security.default_group(project_id)["id"])
        groups = self.security.groups.all(project_id)
        for group in groups:
            if group["id"] == name_or_id:
                return name_or_id
        named = [g for g in groups if g["name"] == name_or_id]
        if len(named) > 1:
            raise Conflict(
                f"Multiple security_group matches found for name '{name_or_id}', use an ID to "
                "be more specific.",
                kind="NoUniqueMatch",
            )
        if not named:
            raise NotFound(f"Security group {name_or_id} not found.", kind="SecurityGroupNotFound")
        return str(named[0]["id"])

    def unplug(self, port_id: str, *, delete: bool) -> None:
        port = self.ports.records.find(port_id, None)
        if port is None:
            return
        if delete:
            self._release(port)
            return
        port.update(device_id="", device_owner="")
        port["binding:host_id"] = ""
        self.ports._bind(port)
        self.ports.records.save(port)

    def addresses(self, port_ids: list[str]) -> list[PortAddress]:
        result = []
        for port_id in port_ids:
            port = self.ports.records.find(port_id, None)
            if port is None:
                continue
            network = self.networks.records.find(port["network_id"], None)
            floating = self._floating_of(port_id)
            result.append(
                PortAddress(
                    port_id=port["id"],
                    network_id=port["network_id"],
                    network_name=network["name"] if network else "",
                    mac_address=port["mac_address"],
                    fixed_ips=tuple(
                        FixedIp(
                            ip["subnet_id"],
                            ip["ip_address"],
                            ipaddress.ip_address(ip["ip_address"]).version,
                        )
                        for ip in port["fixed_ips"]
                    ),
                    floating_ips=tuple(f["floating_ip_address"] for f in floating),
                    status=port["status"],
                )
            )
        return result

    def _floating_of(self, port_id: str) -> list[Document]:
        return self.floating_ips.records.where(lambda f: f["port_id"] == port_id)

    def auto_network(self, project_id: str) -> str | None:
        networks = self.networks.records.scan(project_id)
        for network in networks:
            if network["project_id"] == project_id and not network.get("router:external"):
                return str(network["id"])
        shared = [n for n in networks if n.get("shared")]
        return str(shared[0]["id"]) if shared else None
