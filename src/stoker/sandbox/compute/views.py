"""Nova's documents as its API shows them, by microversion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stoker.sandbox.compute.backend import ComputeBackend
from stoker.sandbox.http import link
from stoker.sandbox.interfaces import PortAddress
from stoker.sandbox.service import RequestContext
from stoker.sandbox.store import Document


def links(base: str, collection: str, item_id: str) -> list[Document]:
    return [
        link(f"{base}/compute/v2.1/{collection}/{item_id}"),
        link(f"{base}/compute/{collection}/{item_id}", "bookmark"),
    ]


def flavor(ctx: RequestContext, base: str, document: Document, *, detail: bool) -> Document:
    shown: Document = {"id": document["id"], "name": document["name"]}
    if ctx.at_least(2, 55):
        shown["description"] = document["description"]
    shown["links"] = links(base, "flavors", document["id"])
    if detail:
        shown.update(
            {
                key: document[key]
                for key in (
                    "vcpus",
                    "ram",
                    "disk",
                    "OS-FLV-EXT-DATA:ephemeral",
                    "rxtx_factor",
                    "os-flavor-access:is_public",
                    "OS-FLV-DISABLED:disabled",
                )
            }
        )
        swap = document["swap"]
        shown["swap"] = swap if swap or ctx.at_least(2, 75) else ""
        if ctx.at_least(2, 61):
            shown["extra_specs"] = dict(document["extra_specs"])
    return shown


def keypair(ctx: RequestContext, document: Document, *, detail: bool) -> Document:
    keys = ["name", "public_key", "fingerprint"]
    if ctx.at_least(2, 2):
        keys.append("type")
    if detail:
        keys += ["id", "created_at", "deleted", "deleted_at", "updated_at"]
        if ctx.at_least(2, 10):
            keys.append("user_id")
    shown = {key: document[key] for key in keys}
    if "private_key" in document:
        shown["private_key"] = document["private_key"]
    if "user_id" in document and detail and not ctx.at_least(2, 10):
        shown["user_id"] = document["user_id"]
    return shown


def server_group(ctx: RequestContext, document: Document) -> Document:
    shown: Document = {
        "id": document["id"],
        "name": document["name"],
        "members": list(document["members"]),
    }
    if ctx.at_least(2, 64):
        shown["policy"] = document["policy"]
        shown["rules"] = document["rules"]
    else:
        shown["policies"] = [document["policy"]]
        shown["metadata"] = document["metadata"]
    if ctx.at_least(2, 13):
        shown["project_id"] = document["project_id"]
        shown["user_id"] = document["user_id"]
    return shown


def addresses(ports: list[PortAddress]) -> dict[str, list[Document]]:
    shown: dict[str, list[Document]] = {}
    for port in ports:
        held = [(fixed.version, fixed.ip_address, "fixed") for fixed in port.fixed_ips]
        held += [(6 if ":" in ip else 4, ip, "floating") for ip in port.floating_ips]
        shown.setdefault(port.network_name, []).extend(
            {
                "version": version,
                "addr": address,
                "OS-EXT-IPS:type": kind,
                "OS-EXT-IPS-MAC:mac_addr": port.mac_address,
            }
            for version, address, kind in held
        )
    return shown


def interface(port: PortAddress) -> Document:
    return {
        "port_id": port.port_id,
        "net_id": port.network_id,
        "mac_addr": port.mac_address,
        "port_state": port.status,
        "fixed_ips": [
            {"subnet_id": f.subnet_id, "ip_address": f.ip_address} for f in port.fixed_ips
        ],
    }


def volume_attachment(ctx: RequestContext, server_id: str, entry: Document) -> Document:
    shown: Document = {
        "id": entry["volumeId"],
        "serverId": server_id,
        "volumeId": entry["volumeId"],
        "device": entry["device"],
    }
    if ctx.at_least(2, 70):
        shown["tag"] = None
    if ctx.at_least(2, 79):
        shown["delete_on_termination"] = entry["delete_on_termination"]
    if ctx.at_least(2, 89):
        del shown["id"]
        shown["attachment_id"] = entry["attachment_id"]
        shown["bdm_uuid"] = entry["attachment_id"]
    return shown


def server(
    ctx: RequestContext, base: str, backend: ComputeBackend, document: Mapping[str, Any]
) -> Document:
    """The server as Nova shows it; ``document`` is only read (a listing passes the
    store's own)."""
    server_id = document["id"]
    flavor_doc = backend.store.get("compute.flavor", document["flavor_id"])
    if ctx.at_least(2, 47):
        flavor_doc = flavor_doc or {}
        flavor_shown: Document = {
            "vcpus": flavor_doc.get("vcpus", 0),
            "ram": flavor_doc.get("ram", 0),
            "disk": flavor_doc.get("disk", 0),
            "ephemeral": flavor_doc.get("OS-FLV-EXT-DATA:ephemeral", 0),
            "swap": flavor_doc.get("swap", 0),
            "original_name": flavor_doc.get("name", document["flavor_id"]),
            "extra_specs": dict(flavor_doc.get("extra_specs", {})),
        }
    else:
        flavor_shown = {
            "id": document["flavor_id"],
            "links": [links(base, "flavors", document["flavor_id"])[1]],
        }
    image: Any = ""
    if document["image_id"]:
        image = {
            "id": document["image_id"],
            "links": [link(f"{base}/compute/images/{document['image_id']}", "bookmark")],
        }
    volumes = []
    for entry in document["volumes"]:
        attached: Document = {"id": entry["volumeId"]}
        if ctx.at_least(2, 3):
            attached["delete_on_termination"] = entry["delete_on_termination"]
        volumes.append(attached)
    shown: Document = {
        "id": server_id,
        "name": document["name"],
        "status": document["status"],
        "tenant_id": document["project_id"],
        "user_id": document["user_id"],
        "metadata": dict(document["metadata"]),
        "hostId": document["host_id"],
        "image": image,
        "flavor": flavor_shown,
        "created": document["created"],
        "updated": document["updated"],
        "addresses": addresses(backend.addresses(document)),
        "accessIPv4": document["access_ipv4"],
        "accessIPv6": document["access_ipv6"],
        "links": links(base, "servers", server_id),
        "OS-DCF:diskConfig": "MANUAL",
        "progress": 100 if document["status"] == "ACTIVE" else 0,
        "OS-EXT-AZ:availability_zone": document["availability_zone"],
        "config_drive": document["config_drive"],
        "key_name": document["key_name"],
        "OS-SRV-USG:launched_at": document["launched_at"],
        "OS-SRV-USG:terminated_at": None,
        "OS-EXT-STS:task_state": document["task_state"],
        "OS-EXT-STS:vm_state": document["vm_state"],
        "OS-EXT-STS:power_state": document["power_state"],
        "os-extended-volumes:volumes_attached": volumes,
        "security_groups": [{"name": name} for name in document["security_groups"]],
    }
    if ctx.is_admin:
        shown.update(
            {
                "OS-EXT-SRV-ATTR:host": "sandbox",
                "OS-EXT-SRV-ATTR:hypervisor_hostname": "sandbox",
                "OS-EXT-SRV-ATTR:instance_name": f"instance-{server_id[:8]}",
            }
        )
    if ctx.is_admin and ctx.at_least(2, 3):
        shown.update(
            {
                "OS-EXT-SRV-ATTR:reservation_id": f"r-{server_id[:8]}",
                "OS-EXT-SRV-ATTR:launch_index": 0,
                "OS-EXT-SRV-ATTR:kernel_id": "",
                "OS-EXT-SRV-ATTR:ramdisk_id": "",
                "OS-EXT-SRV-ATTR:root_device_name": "/dev/vda",
                "OS-EXT-SRV-ATTR:user_data": document.get("user_data"),
            }
        )
    if document["status"] == "ERROR" and document.get("fault"):
        shown["fault"] = document["fault"]
    if ctx.at_least(2, 9):
        shown["locked"] = document["locked"]
    if ctx.at_least(2, 19):
        shown["description"] = document["description"]
    if ctx.at_least(2, 26):
        shown["tags"] = list(document["tags"])
    if ctx.at_least(2, 71):
        shown["server_groups"] = list(document["server_groups"])
    if ctx.at_least(2, 73):
        shown["locked_reason"] = None
    if ctx.at_least(2, 90) and ctx.is_admin:
        shown["OS-EXT-SRV-ATTR:hostname"] = document["name"]
    return shown
