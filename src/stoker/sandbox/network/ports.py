"""Ports: fixed IPs allocated from the network's subnets, MAC addresses, security groups,
allowed address pairs and binding.

Ports the sandbox makes for itself (a router's gateway, a floating IP's address) belong to
no project (``project_id`` empty), as in Neutron, so they never show in a project's
listings; router interfaces belong to the router's project.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict
from stoker.sandbox.network import ipam
from stoker.sandbox.network.networks import Networks, Subnets
from stoker.sandbox.network.records import (
    Records,
    as_list,
    as_mapping,
    boolean,
    invalid,
    reject_read_only,
    require,
)
from stoker.sandbox.network.security import SecurityGroups
from stoker.sandbox.service import Hub
from stoker.sandbox.store import Document

ROUTER_INTERFACE = "network:router_interface"
ROUTER_GATEWAY = "network:router_gateway"
FLOATING_IP = "network:floatingip"
#: owners whose ports may take a subnet's gateway address
GATEWAY_OWNERS = {
    ROUTER_INTERFACE,
    "network:router_interface_distributed",
    "network:ha_router_replicated_interface",
}


#: index kinds: an address held in a subnet (id ``"<subnet> <address>"``) and a MAC used on
#: a network (``"<network> <mac>"``), each naming the port that holds it
ADDRESSES = "network.address"
MACS = "network.mac"


class PortRecords(Records):
    """The ports, with two indexes kept beside them in the same writes: who holds each
    address of a subnet and each MAC of a network. An allocation then asks about one
    address (a key) instead of reading every port: creating the n-th port of a network
    costs the same as the first, not n reads."""

    def __init__(self, hub: Hub) -> None:
        super().__init__(hub, "port", "Port")
        #: subnet id -> (its pools, the lowest pool address that may be free, as an
        #: integer): every pool address below it is held, so a search starts there;
        #: lowered when one is freed, unused once the pools change
        self.lowest_free: dict[str, tuple[str, int]] = {}
        store = hub.store
        if store.count(self.kind) and not (store.count(ADDRESSES) or store.count(MACS)):
            with store.transaction():  # a database from before the indexes
                for port in store.list(self.kind):
                    self._index(None, port)

    def insert(self, document: Document) -> Document:
        super().insert(document)
        self._index(None, document)
        return document

    def save(self, document: Document) -> Document:
        before = self.store.get(self.kind, document["id"])
        super().save(document)
        self._index(before, document)
        return document

    def delete(self, id: str) -> None:
        before = self.store.get(self.kind, id)
        super().delete(id)
        if before is not None:
            self._index(before, None)

    def holder(self, subnet_id: str, address: str) -> str | None:
        """The id of the port holding ``address`` in the subnet (None: it is free)."""
        found = self.store.get(ADDRESSES, f"{subnet_id} {address}")
        return None if found is None else str(found["port_id"])

    def mac_used(self, network_id: str, mac: str) -> bool:
        return self.store.get(MACS, f"{network_id} {mac}") is not None

    def _index(self, before: Document | None, after: Document | None) -> None:
        old, new = _keys(before), _keys(after)
        for kind, key in old - new:
            self.store.delete(kind, key)
            if kind == ADDRESSES:
                subnet, _, address = key.partition(" ")
                value = ipam.address_value(address)
                pools, lowest = self.lowest_free.get(subnet, ("", value + 1))
                if value < lowest:
                    self.lowest_free[subnet] = (pools, value)
        for kind, key in new - old:
            assert after is not None
            if self.store.get(kind, key) is None:
                self.store.insert(kind, key, {"port_id": after["id"]}, None)
            else:
                self.store.put(kind, key, {"port_id": after["id"]})


def _keys(port: Document | None) -> set[tuple[str, str]]:
    if port is None:
        return set()
    keys = {(ADDRESSES, f"{ip['subnet_id']} {ip['ip_address']}") for ip in port["fixed_ips"]}
    keys.add((MACS, f"{port['network_id']} {port['mac_address']}"))
    return keys


class Ports:
    """``/v2.0/ports``."""

    def __init__(
        self, hub: Hub, networks: Networks, subnets: Subnets, security: SecurityGroups
    ) -> None:
        self.networks = networks
        self.subnets = subnets
        self.security = security
        self.records = PortRecords(hub)
        self._random = random.Random()

    def on_network(self, network_id: str) -> list[Document]:
        return self.records.where(lambda p: p["network_id"] == network_id)

    def free_address(self, subnet: Document, also: Sequence[Mapping[str, str]] = ()) -> str | None:
        """The subnet's lowest free pool address (not one of ``also``, the addresses this
        request already took); None when the pools are used up."""
        pending = {ip["ip_address"] for ip in also if ip["subnet_id"] == subnet["id"]}

        def held(address: str) -> bool:
            return address in pending or self.records.holder(subnet["id"], address) is not None

        pools = str(subnet["allocation_pools"])
        known, start = self.records.lowest_free.get(subnet["id"], (pools, None))
        address = next(ipam.free_addresses(subnet, held, start if known == pools else None), None)
        if address is not None and not pending:
            self.records.lowest_free[subnet["id"]] = (pools, ipam.address_value(address))
        return address

    def create(
        self, project: str | None, body: Mapping[str, Any], *, owner_project: str | None = None
    ) -> Document:
        """A port of ``project`` (the caller's, who must see the network; None: the sandbox
        itself); ``owner_project`` ("" for the sandbox's own ports) overrides the owner."""
        reject_read_only(body)
        require(body, "network_id")
        network = self.networks.records.get(body["network_id"], project)
        owner = project if owner_project is None else owner_project
        if owner is None:
            raise ValueError("a port needs an owner")
        device_owner = str(body.get("device_owner") or "")
        port = self.records.new(
            owner,
            body,
            name=str(body.get("name") or ""),
            network_id=network["id"],
            admin_state_up=boolean(body, "admin_state_up", True),
            mac_address=self._mac(network["id"], body.get("mac_address")),
            device_id=str(body.get("device_id") or ""),
            device_owner=device_owner,
            fixed_ips=[],
            allowed_address_pairs=[],
            extra_dhcp_opts=as_list(body.get("extra_dhcp_opts"), "extra_dhcp_opts"),
            security_groups=[],
            port_security_enabled=boolean(
                body, "port_security_enabled", bool(network.get("port_security_enabled", True))
            ),
            status="DOWN",
            dns_name=str(body.get("dns_name") or ""),
            dns_assignment=[],
            qos_policy_id=body.get("qos_policy_id"),
            propagate_uplink_status=False,
            **{
                "binding:vnic_type": str(body.get("binding:vnic_type") or "normal"),
                "binding:host_id": str(body.get("binding:host_id") or ""),
                "binding:profile": as_mapping(body.get("binding:profile"), "binding:profile"),
                "binding:vif_type": "unbound",
                "binding:vif_details": {},
            },
        )
        port["fixed_ips"] = self._allocate(network, body.get("fixed_ips"), device_owner, [])
        self._apply_security(port, body, project, creating=True)
        self._bind(port)
        return self.records.insert(port)

    def create_own(
        self, project: str | None, network: Document, device_id: str, owner: str, fixed: Any
    ) -> Document:
        """A port of the sandbox's own for a device on ``network`` (a router's gateway, a
        floating IP's address), on the ``fixed`` IPs asked for (None: any free one)."""
        body = {"network_id": network["id"], "device_id": device_id, "device_owner": owner}
        if fixed is not None:
            body["fixed_ips"] = fixed
        return self.create(project, body, owner_project="")

    def _mac(self, network_id: str, given: Any) -> str:
        if given:
            mac = str(given).lower()
            parts = mac.split(":")
            if len(parts) != 6 or not all(len(p) == 2 for p in parts):
                raise invalid("mac_address", f"'{given}' is not a valid MAC address")
            if self.records.mac_used(network_id, mac):
                raise Conflict(
                    f"Unable to complete operation for network {network_id}. "
                    f"The mac address {mac} is in use.",
                    kind="MacAddressInUse",
                )
            return mac
        while True:
            tail = ":".join(f"{self._random.randrange(256):02x}" for _ in range(3))
            mac = f"fa:16:3e:{tail}"
            if not self.records.mac_used(network_id, mac):
                return mac

    def _allocate(
        self,
        network: Document,
        requested: Any,
        device_owner: str,
        keep: Sequence[Mapping[str, str]],
    ) -> list[dict[str, str]]:
        """The port's fixed IPs: as requested (by subnet, address or both), or one address
        from the network's first IPv4 subnet that has room (else its first IPv6 subnet).
        ``keep`` are the port's current addresses, which an update may list again."""
        subnets = self.subnets.of_network(network["id"])
        if requested is None:
            if not subnets:
                return []
            ordered = [s for s in subnets if s["ip_version"] == 4] or subnets
            for subnet in ordered:
                address = self.free_address(subnet)
                if address is not None:
                    return [{"subnet_id": subnet["id"], "ip_address": address}]
            raise Conflict(
                f"No more IP addresses available on network {network['id']}.",
                kind="IpAddressGenerationFailure",
            )
        if not isinstance(requested, list):
            raise invalid("fixed_ips", f"Invalid data format for fixed IP: '{requested}'")
        kept = {(ip["subnet_id"], ip["ip_address"]) for ip in keep}
        result: list[dict[str, str]] = []
        for entry in requested:
            if not isinstance(entry, Mapping) or not ({"subnet_id", "ip_address"} & set(entry)):
                raise invalid("fixed_ips", f"Invalid data format for fixed IP: '{entry}'")
            subnet = self._subnet_for(network, subnets, entry)
            address = entry.get("ip_address")
            if address is None:
                address = self.free_address(subnet, result)
                if address is None:
                    raise Conflict(
                        f"No more IP addresses available on network {network['id']}.",
                        kind="IpAddressGenerationFailure",
                    )
            else:
                address = str(ipam.parse_address(address, "fixed_ips"))
                mine = (subnet["id"], address) in kept
                clash = self.records.holder(subnet["id"], address) is not None or any(
                    ip["ip_address"] == address for ip in result
                )
                if (clash and not mine) or (
                    address == subnet.get("gateway_ip")
                    and device_owner not in GATEWAY_OWNERS
                    and not mine
                ):
                    raise Conflict(
                        f"IP address {address} already allocated in subnet {subnet['id']}",
                        kind="IpAddressAlreadyAllocated",
                    )
            result.append({"subnet_id": subnet["id"], "ip_address": address})
        return result

    @staticmethod
    def _subnet_for(
        network: Document, subnets: Sequence[Document], entry: Mapping[str, Any]
    ) -> Document:
        if "subnet_id" in entry:
            subnet = next((s for s in subnets if s["id"] == entry["subnet_id"]), None)
            if subnet is None:
                raise ipam.invalid_input(
                    f"Failed to create port on network {network['id']}, because fixed_ips "
                    f"included invalid subnet {entry['subnet_id']}"
                )
            if "ip_address" in entry and not ipam.in_subnet(str(entry["ip_address"]), subnet):
                raise BadRequest(
                    f"IP address {entry['ip_address']} is not a valid IP for the specified subnet.",
                    kind="InvalidIpForSubnet",
                )
            return subnet
        address = str(entry["ip_address"])
        for subnet in subnets:
            if ipam.in_subnet(address, subnet):
                return subnet
        raise BadRequest(
            f"IP address {address} is not a valid IP for any of the subnets on the specified "
            "network.",
            kind="InvalidIpForNetwork",
        )

    def _apply_security(
        self, port: Document, body: Mapping[str, Any], project: str | None, *, creating: bool
    ) -> None:
        """Security groups and allowed address pairs, which need port security on."""
        service_port = port["device_owner"].startswith("network:")
        if "security_groups" in body:
            groups = as_list(body["security_groups"], "security_groups")
            for group in groups:
                self.security.groups.get(str(group), project)
            port["security_groups"] = [str(g) for g in dict.fromkeys(groups)]
        elif creating and port["port_security_enabled"] and not service_port:
            port["security_groups"] = [self.security.default_group(port["project_id"])["id"]]
        if "allowed_address_pairs" in body:
            pairs = []
            for pair in as_list(body["allowed_address_pairs"], "allowed_address_pairs"):
                if not isinstance(pair, Mapping) or "ip_address" not in pair:
                    raise BadRequest(
                        "Allowed address pairs must be a list of dictionaries with ip_address.",
                        kind="AllowedAddressPairsMissingIP",
                    )
                pairs.append(
                    {
                        "ip_address": str(pair["ip_address"]),
                        "mac_address": str(pair.get("mac_address") or port["mac_address"]),
                    }
                )
            port["allowed_address_pairs"] = pairs
        if not port["port_security_enabled"]:
            if port["security_groups"] and "security_groups" in body:
                raise BadRequest(
                    "Port security must be enabled and port must have an IP address in order "
                    "to use security groups.",
                    kind="PortSecurityAndIPRequiredForSecurityGroups",
                )
            if port["security_groups"]:
                raise Conflict(
                    "Port has security group associated. Cannot disable port security or IP "
                    "address until security group is removed",
                    kind="PortSecurityPortHasSecurityGroup",
                )
            if port["allowed_address_pairs"]:
                raise Conflict(
                    "Port Security must be enabled in order to have allowed address pairs on "
                    "a port.",
                    kind="AddressPairAndPortSecurityRequired",
                )

    @staticmethod
    def _bind(port: Document) -> None:
        """A port with a device is bound and up (the sandbox has no agents to wait for)."""
        if port["device_owner"].startswith("compute:") or port["device_owner"] in (
            ROUTER_INTERFACE,
            ROUTER_GATEWAY,
        ):
            port["status"] = "ACTIVE" if port["admin_state_up"] else "DOWN"
            port["binding:vif_type"] = "ovs"
            port["binding:host_id"] = port["binding:host_id"] or "sandbox"
            port["binding:vif_details"] = {"port_filter": True, "connectivity": "l2"}
        elif not port["device_id"]:
            port["status"] = "DOWN"
            port["binding:vif_type"] = "unbound"
            port["binding:vif_details"] = {}

    def update(self, id: str, project: str | None, body: Mapping[str, Any]) -> Document:
        reject_read_only(body, "PUT")
        port = self.records.get(id, project)
        if "network_id" in body and body["network_id"] != port["network_id"]:
            raise BadRequest("Cannot update read-only attribute network_id", kind="HTTPBadRequest")
        for name in ("name", "description", "device_id", "device_owner", "dns_name"):
            if name in body:
                port[name] = str(body[name] or "")
        for name in ("binding:host_id", "binding:vnic_type"):
            if name in body:
                port[name] = str(body[name] or "")
        if "binding:profile" in body:
            port["binding:profile"] = as_mapping(body["binding:profile"], "binding:profile")
        if "admin_state_up" in body:
            port["admin_state_up"] = boolean(body, "admin_state_up", True)
        if "qos_policy_id" in body:
            port["qos_policy_id"] = body["qos_policy_id"]
        if "extra_dhcp_opts" in body:
            port["extra_dhcp_opts"] = as_list(body["extra_dhcp_opts"], "extra_dhcp_opts")
        if "port_security_enabled" in body:
            port["port_security_enabled"] = boolean(body, "port_security_enabled", True)
        if "fixed_ips" in body:
            network = self.networks.records.get(port["network_id"], None)
            port["fixed_ips"] = self._allocate(
                network, body["fixed_ips"] or [], port["device_owner"], port["fixed_ips"]
            )
        if "mac_address" in body and str(body["mac_address"]).lower() != port["mac_address"]:
            if port["device_owner"].startswith("compute:") and port["device_id"]:
                raise Conflict(
                    f"Port {id} has an attached device; its MAC address cannot be changed.",
                    kind="PortBound",
                )
            port["mac_address"] = self._mac(port["network_id"], body["mac_address"])
        self._apply_security(port, body, project, creating=False)
        self._bind(port)
        return self.records.save(port)
