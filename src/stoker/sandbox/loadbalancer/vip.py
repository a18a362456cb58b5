"""A load balancer's VIP: a real port of the sandbox's Neutron, as Octavia makes one.

On ``vip_subnet_id`` (or the first subnet of ``vip_network_id``, the one holding
``vip_address`` when it is given) Octavia makes a port named ``octavia-lb-<id>``, owned by
``Octavia``, with an address from the subnet's pools (or ``vip_address``); on
``vip_port_id`` it uses that port's first address and leaves the port alone afterwards.
Neutron's own refusals (an address in use, a pool used up) reach the client as they are.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.http_errors import BadRequest
from stoker.sandbox.loadbalancer import checks
from stoker.sandbox.network.backend import NeutronBackend
from stoker.sandbox.service import Hub
from stoker.sandbox.store import Document

#: the device owner of the ports Octavia makes
VIP_OWNER = "Octavia"


def neutron_of(hub: Hub) -> NeutronBackend:
    neutron = hub.backends.get("network")
    if not isinstance(neutron, NeutronBackend):
        raise BadRequest("The networking service is not available to allocate a VIP.")
    return neutron


def allocate(hub: Hub, project: str, body: Mapping[str, Any], lb_id: str) -> Document:
    """The VIP's port, subnet, network and address (``_vip_owned``: whether the port is
    Octavia's own, to delete with the load balancer)."""
    port_id = body.get("vip_port_id")
    subnet_id = body.get("vip_subnet_id")
    network_id = body.get("vip_network_id")
    wanted = checks.address(body, "vip_address")
    if not (port_id or subnet_id or network_id):
        raise checks.validation(
            "VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id."
        )
    neutron = neutron_of(hub)
    if port_id:
        given = neutron.ports.records.find(str(port_id), project)
        if given is None:
            raise checks.missing_subresource("Port", str(port_id))
        if not given["fixed_ips"]:
            raise checks.validation(f"Port {port_id} has no fixed IP address.")
        fixed = given["fixed_ips"][0]
        return {
            "vip_port_id": given["id"],
            "vip_subnet_id": fixed["subnet_id"],
            "vip_network_id": given["network_id"],
            "vip_address": fixed["ip_address"],
            "_vip_owned": False,
        }
    subnet = _subnet(neutron, project, subnet_id, network_id, wanted)
    fixed_ip: Document = {"subnet_id": subnet["id"]}
    if wanted is not None:
        fixed_ip["ip_address"] = wanted
    port = neutron.ports.create(
        project,
        {
            "network_id": subnet["network_id"],
            "fixed_ips": [fixed_ip],
            "name": f"octavia-lb-{lb_id}",
            "device_owner": VIP_OWNER,
            "device_id": f"lb-{lb_id}",
        },
    )
    return {
        "vip_port_id": port["id"],
        "vip_subnet_id": subnet["id"],
        "vip_network_id": subnet["network_id"],
        "vip_address": port["fixed_ips"][0]["ip_address"],
        "_vip_owned": True,
    }


def _subnet(
    neutron: NeutronBackend,
    project: str,
    subnet_id: Any,
    network_id: Any,
    wanted: str | None,
) -> Document:
    if subnet_id:
        subnet = neutron.subnets.records.find(str(subnet_id), project)
        if subnet is None:
            raise checks.missing_subresource("Subnet", str(subnet_id))
        if network_id and network_id != subnet["network_id"]:
            raise checks.validation("vip_subnet_id is not on vip_network_id.")
        return subnet
    network = neutron.networks.records.find(str(network_id), project)
    if network is None:
        raise checks.missing_subresource("Network", str(network_id))
    subnets = neutron.subnets.of_network(network["id"])
    if wanted is not None:
        address = ipaddress.ip_address(wanted)
        subnets = [s for s in subnets if address in ipaddress.ip_network(s["cidr"])]
    if not subnets:
        raise checks.validation("Supplied network does not contain a subnet.")
    return sorted(subnets, key=lambda s: int(s["ip_version"]))[0]


def release(hub: Hub, lb: Mapping[str, Any]) -> None:
    """Delete the VIP port Octavia made (a given one stays)."""
    if lb.get("_vip_owned"):
        neutron_of(hub).unplug(str(lb["vip_port_id"]), delete=True)
