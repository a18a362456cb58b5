"""Nova's types: servers, key pairs, server groups, flavors, and the volume attachment
(Nova attaches, Cinder shows the volume in use)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from stoker.cloud.backoff import POLL
from stoker.cloud.connection import NotFoundError
from stoker.cloud.rest import find_id, request
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import (
    CloudResource,
    catalog_schemas,
    given,
    pause,
    plain,
)
from stoker.resources.openstack.neutron import network_id, security_group_ids, subnet_id


def flavor_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "compute", "flavor", name_or_id)


def image_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "image", "image", name_or_id)


class NovaResource(CloudResource):
    """A Nova resource at ``/<collection>/<id>`` under key ``<kind>``."""

    kind: ClassVar[str]
    collection: ClassVar[str]

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        body = request(
            connection, "compute", "GET", f"/{self.collection}/{physical_id}", self.show_call
        )
        return dict(body[self.kind])

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        request(
            connection,
            "compute",
            "DELETE",
            f"/{self.collection}/{physical_id}",
            self.calls()[1],
        )

    def post(self, connection: Any, body: dict[str, Any]) -> dict[str, Any]:
        answer = request(
            connection,
            "compute",
            "POST",
            f"/{self.collection}",
            self.calls()[0],
            {self.kind: body},
        )
        return dict(answer[self.kind])


class Server(NovaResource):
    type_name = "OS::Nova::Server"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    kind, collection = "server", "servers"
    show_call = "compute.get_server"
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"ACTIVE"})

    def calls(self) -> tuple[str, str]:
        return ("compute.create_server", "compute.delete_server")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, "flavorRef": flavor_id(connection, str(p["flavor"]))}
        if p.get("image"):
            body["imageRef"] = image_id(connection, str(p["image"]))
        body.update(given(p, "key_name", "availability_zone", "config_drive"))
        if p.get("admin_pass"):
            body["adminPass"] = p["admin_pass"]
        if p.get("metadata"):
            body["metadata"] = _metadata(p["metadata"])
        if p.get("user_data"):
            body["user_data"] = base64.b64encode(str(p["user_data"]).encode()).decode()
        if p.get("security_groups"):
            body["security_groups"] = [{"name": str(g)} for g in p["security_groups"]]
        networks = self.networks(connection, list(p.get("networks") or []))
        if networks is not None:
            body["networks"] = networks
        mappings = p.get("block_device_mapping_v2")
        if mappings:
            body["block_device_mapping_v2"] = [_bdm_v2(connection, m) for m in mappings]
        elif p.get("block_device_mapping"):
            body["block_device_mapping"] = [
                {k: v for k, v in m.items() if v is not None} for m in p["block_device_mapping"]
            ]
        extra: dict[str, Any] = {}
        if p.get("scheduler_hints"):
            extra["os:scheduler_hints"] = dict(p["scheduler_hints"])
        answer = request(
            connection,
            "compute",
            "POST",
            "/servers",
            "compute.create_server",
            {"server": body, **extra},
        )
        return dict(answer["server"])

    @staticmethod
    def networks(connection: Any, entries: list[Mapping[str, Any]]) -> Any:
        """Nova's ``networks`` from Heat's: ports by id, networks (with a fixed IP or a
        subnet's network), or ``allocate_network``'s "auto"/"none"."""
        result: list[dict[str, Any]] = []
        for entry in entries:
            if entry.get("allocate_network"):
                return str(entry["allocate_network"])
            if entry.get("port"):
                result.append({"port": find_id(connection, "network", "port", str(entry["port"]))})
                continue
            nic: dict[str, Any] = {}
            if entry.get("network"):
                nic["uuid"] = network_id(connection, str(entry["network"]))
            elif entry.get("subnet"):
                sid = subnet_id(connection, str(entry["subnet"]))
                nic["uuid"] = str(connection.network.get_subnet(sid).network_id)
            if entry.get("fixed_ip"):
                nic["fixed_ip"] = entry["fixed_ip"]
            if entry.get("tag"):
                nic["tag"] = entry["tag"]
            if nic:
                result.append(nic)
        return result or None

    def find(self, connection: Any, name: str) -> str | None:
        # Nova filters names by regular expression: anchored, escaped, exact
        params = {"name": f"^{re.escape(name)}$"}
        body = request(
            connection, "compute", "GET", "/servers", "compute.list_servers", params=params
        )
        found = [s for s in (body or {}).get("servers") or [] if s.get("name") == name]
        return str(found[0]["id"]) if found else None

    async def create(self, context: ResourceContext) -> None:
        await super().create(context)
        await self.note_ports(context)

    async def note_ports(self, context: ResourceContext) -> None:
        """The server's ports as Neutron shows them (its addresses carry only MACs):
        ``networks`` and ``addresses`` need their ids and networks."""
        server = context.physical_id
        answer = await self.cloud.call(
            "network.list_ports",
            lambda c: request(
                c, "network", "GET", "/ports", "network.list_ports", params={"device_id": server}
            ),
        )
        ports = answer.get("ports", []) if isinstance(answer, dict) else []
        context.data["ports"] = plain(
            [
                {
                    "id": p["id"],
                    "mac": p.get("mac_address"),
                    "network_id": p.get("network_id"),
                    "fixed_ips": p.get("fixed_ips", []),
                }
                for p in ports
            ]
        )

    def needs_replace(self, previous: ResourceView, properties: Mapping[str, Any]) -> bool:
        """Heat's update policies: REPLACE (or a change Nova cannot make in place)."""
        old = previous.properties
        for prop, policy in (
            ("flavor", "flavor_update_policy"),
            ("image", "image_update_policy"),
            ("user_data", "user_data_update_policy"),
        ):
            if old.get(prop) != properties.get(prop) and properties.get(policy) == "REPLACE":
                return True
        return False

    def normalize(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's hidden ``uuid`` of a networks entry is its ``network``."""
        result = super().normalize(properties)
        entries = result.get("networks")
        if isinstance(entries, list):
            result["networks"] = [
                {**{k: v for k, v in e.items() if k != "uuid"},
                 "network": e.get("network") or e.get("uuid")}
                if isinstance(e, dict) and e.get("uuid") else e
                for e in entries
            ]  # fmt: skip
        return result

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        server = context.physical_id
        assert server is not None
        context.properties = self.normalize(context.properties)
        new, old = context.properties, self.normalize(previous.properties)
        if new.get("name") != old.get("name"):
            name = self.cloud_name(context)
            await self.cloud.call(
                "compute.update_server",
                lambda c: request(
                    c,
                    "compute",
                    "PUT",
                    f"/servers/{server}",
                    "compute.update_server",
                    {"server": {"name": name}},
                ),
            )
        if new.get("metadata") != old.get("metadata"):
            metadata = _metadata(new.get("metadata") or {})
            await self.cloud.call(
                "compute.set_server_metadata",
                lambda c: request(
                    c,
                    "compute",
                    "PUT",
                    f"/servers/{server}/metadata",
                    "compute.set_server_metadata",
                    {"metadata": metadata},
                ),
            )
        if new.get("flavor") != old.get("flavor"):
            await self.resize(context, str(new["flavor"]))
        if new.get("image") != old.get("image") and new.get("image"):
            await self.rebuild(context, str(new["image"]))
        if (new.get("networks") or []) != (old.get("networks") or []):
            await self.replug(
                context, list(old.get("networks") or []), list(new.get("networks") or [])
            )
        if new.get("security_groups") != old.get("security_groups"):
            await self.regroup(
                context,
                list(old.get("security_groups") or []),
                list(new.get("security_groups") or []),
            )
        await self.refresh(context)
        await self.note_ports(context)

    async def action(self, context: ResourceContext, what: str, body: dict[str, Any]) -> None:
        server = context.physical_id
        await self.cloud.call(
            what,
            lambda c: request(c, "compute", "POST", f"/servers/{server}/action", what, body),
        )

    async def resize(self, context: ResourceContext, flavor: str) -> None:
        """Resize, wait for VERIFY_RESIZE, confirm, wait for ACTIVE (Heat's steps); a
        cloud that confirms by itself goes straight back to ACTIVE on the new flavor."""
        ref = await self.cloud.call("compute.find_flavor", lambda c: flavor_id(c, flavor))
        await self.action(context, "compute.resize_server", {"resize": {"flavorRef": ref}})

        def resized(shown: Mapping[str, Any]) -> bool:
            status = str(shown.get("status") or "").upper()
            on_new = (shown.get("flavor") or {}).get("id") == ref
            return status == "VERIFY_RESIZE" or (status == "ACTIVE" and on_new)

        shown = await self.wait_for(context, resized)
        if str(shown.get("status")).upper() == "VERIFY_RESIZE":
            await self.action(context, "compute.confirm_server_resize", {"confirmResize": None})
        await self.wait_ready(context)

    async def rebuild(self, context: ResourceContext, image: str) -> None:
        ref = await self.cloud.call("image.find_image", lambda c: image_id(c, image))
        await self.action(context, "compute.rebuild_server", {"rebuild": {"imageRef": ref}})

        def rebuilt(shown: Mapping[str, Any]) -> bool:
            status = str(shown.get("status") or "").upper()
            return status == "ACTIVE" and (shown.get("image") or {}).get("id") == ref

        await self.wait_for(context, rebuilt)

    async def wait_for(
        self, context: ResourceContext, done: Callable[[Mapping[str, Any]], bool]
    ) -> dict[str, Any]:
        """Poll the server until ``done`` says so (ERROR fails the resource)."""
        server = context.physical_id
        assert server is not None
        for delay in POLL.delays():
            shown = await self.cloud.call(self.show_call, lambda c: self.show(c, server))
            if str(shown.get("status") or "").upper() == "ERROR":
                self.is_ready(context, shown)
            if done(shown):
                return shown
            await pause(context, delay)
        raise AssertionError("unreachable: the delays never end")

    async def replug(
        self, context: ResourceContext, old: list[Mapping[str, Any]], new: list[Mapping[str, Any]]
    ) -> None:
        """Detach the interfaces of entries the template dropped; attach the new ones."""
        server = context.physical_id
        removed = [e for e in old if e not in new]
        added = [e for e in new if e not in old]
        ports = list(context.data.get("ports") or [])

        def detach(connection: Any) -> None:
            for entry in removed:
                for port in _ports_of(connection, entry, ports):
                    request(
                        connection,
                        "compute",
                        "DELETE",
                        f"/servers/{server}/os-interface/{port}",
                        "compute.delete_server_interface",
                    )

        def attach(connection: Any) -> None:
            for entry in added:
                nics = self.networks(connection, [entry]) or []
                for nic in nics if isinstance(nics, list) else []:
                    body: dict[str, Any] = {}
                    if "port" in nic:
                        body["port_id"] = nic["port"]
                    else:
                        body["net_id"] = nic["uuid"]
                        if nic.get("fixed_ip"):
                            body["fixed_ips"] = [{"ip_address": nic["fixed_ip"]}]
                    request(
                        connection,
                        "compute",
                        "POST",
                        f"/servers/{server}/os-interface",
                        "compute.create_server_interface",
                        {"interfaceAttachment": body},
                    )

        if removed:
            await self.cloud.call("compute.delete_server_interface", detach)
        if added:
            await self.cloud.call("compute.create_server_interface", attach)

    async def regroup(self, context: ResourceContext, old: list[str], new: list[str]) -> None:
        """Security groups of the server's ports, as Heat updates them."""
        ports = [str(p["id"]) for p in context.data.get("ports") or []]

        def apply(connection: Any) -> None:
            ids = security_group_ids(connection, new) if new else []
            for port in ports:
                request(
                    connection,
                    "network",
                    "PUT",
                    f"/ports/{port}",
                    "network.update_port",
                    {"port": {"security_groups": ids}},
                )

        await self.cloud.call("network.update_port", apply)

    def attribute_of(self, shown: Mapping[str, Any], name: str) -> Any:
        raise AssertionError("Server answers through attribute()")

    def attribute(self, view: ResourceView, name: str) -> Any:
        shown = view.data.get("show")
        if not isinstance(shown, dict):
            return None
        ports = list(view.data.get("ports") or [])
        if name == "show":
            return shown
        if name == "addresses":
            return _addresses(shown, ports)
        if name == "networks":
            return _networks(shown, ports)
        if name == "first_address":
            for entries in (shown.get("addresses") or {}).values():
                for entry in entries:
                    if entry.get("version") == 4:
                        return entry.get("addr")
            return ""
        if name == "instance_name":
            return shown.get("OS-EXT-SRV-ATTR:instance_name")
        if name == "console_urls":
            return {}
        if name == "os_collect_config":
            return {}
        return shown.get(name)


def _ports_of(connection: Any, entry: Mapping[str, Any], ports: list[Any]) -> list[str]:
    if entry.get("port"):
        return [find_id(connection, "network", "port", str(entry["port"]))]
    if entry.get("network"):
        net = network_id(connection, str(entry["network"]))
        return [str(p["id"]) for p in ports if p.get("network_id") == net]
    return []


def _addresses(shown: Mapping[str, Any], ports: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Nova's addresses, each with the id of its port (Heat adds ``port``)."""
    by_mac = {p.get("mac"): p for p in ports}
    result: dict[str, Any] = {}
    for net, entries in (shown.get("addresses") or {}).items():
        result[net] = []
        for entry in entries:
            item = dict(entry)
            port = by_mac.get(entry.get("OS-EXT-IPS-MAC:mac_addr"))
            item["port"] = port["id"] if port else None
            result[net].append(item)
    return result


def _networks(shown: Mapping[str, Any], ports: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Heat's ``networks``: the addresses by network name and by network id."""
    by_mac = {p.get("mac"): p for p in ports}
    result: dict[str, list[str]] = {}
    for net, entries in (shown.get("addresses") or {}).items():
        for entry in entries:
            result.setdefault(net, []).append(entry.get("addr"))
            port = by_mac.get(entry.get("OS-EXT-IPS-MAC:mac_addr"))
            if port and port.get("network_id"):
                result.setdefault(str(port["network_id"]), []).append(entry.get("addr"))
    return result


def _metadata(values: Mapping[str, Any]) -> dict[str, str]:
    """Nova takes strings only; Heat sends anything else as JSON."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}


def _bdm_v2(connection: Any, mapping: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {
        k: v for k, v in mapping.items()
        if v is not None and k in ("device_name", "boot_index", "delete_on_termination",
                                   "disk_bus", "device_type", "volume_size", "guest_format")
    }  # fmt: skip
    if mapping.get("volume_id"):
        result.update(source_type="volume", uuid=mapping["volume_id"], destination_type="volume")
    elif mapping.get("snapshot_id"):
        result.update(
            source_type="snapshot", uuid=mapping["snapshot_id"], destination_type="volume"
        )
    elif mapping.get("image") or mapping.get("image_id"):
        image = str(mapping.get("image") or mapping.get("image_id"))
        result.update(
            source_type="image",
            uuid=image_id(connection, image),
            destination_type="volume" if mapping.get("volume_size") else "local",
        )
    else:
        result.update(source_type="blank", destination_type="local")
    return result


class KeyPair(NovaResource):
    """A key pair; its physical id is its name, as Nova's is."""

    type_name = "OS::Nova::KeyPair"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    kind, collection = "keypair", "os-keypairs"
    show_call = "compute.get_keypair"

    def calls(self) -> tuple[str, str]:
        return ("compute.create_keypair", "compute.delete_keypair")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body = {"name": name, **given(p, "public_key", "type", "user_id")}
        if p.get("user"):
            body["user_id"] = p["user"]
        shown = self.post(connection, body)
        context.data["private_key"] = shown.get("private_key") if p.get("save_private_key") else ""
        return {**shown, "id": name}

    def find(self, connection: Any, name: str) -> str | None:
        try:
            self.show(connection, name)
        except NotFoundError:
            return None
        return name

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name == "private_key":
            return view.data.get("private_key") or ""
        return super().attribute(view, name)


class ServerGroup(NovaResource):
    type_name = "OS::Nova::ServerGroup"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    kind, collection = "server_group", "os-server-groups"
    show_call = "compute.get_server_group"

    def calls(self) -> tuple[str, str]:
        return ("compute.create_server_group", "compute.delete_server_group")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, "policies": list(p.get("policies") or [])}
        if p.get("rules"):
            body["rules"] = dict(p["rules"])
        return self.post(connection, body)


class Flavor(NovaResource):
    type_name = "OS::Nova::Flavor"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    kind, collection = "flavor", "flavors"
    show_call = "compute.get_flavor"

    def calls(self) -> tuple[str, str]:
        return ("compute.create_flavor", "compute.delete_flavor")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {
            "name": name,
            "ram": p["ram"],
            "vcpus": p["vcpus"],
            "disk": p.get("disk") or 0,
            "swap": p.get("swap") or 0,
            "OS-FLV-EXT-DATA:ephemeral": p.get("ephemeral") or 0,
            "rxtx_factor": p.get("rxtx_factor") or 1.0,
            "os-flavor-access:is_public": p.get("is_public", True),
        }
        if p.get("flavorid"):
            body["id"] = p["flavorid"]
        shown = self.post(connection, body)
        flavor = shown["id"]
        self.set_extra_specs(connection, flavor, {}, dict(p.get("extra_specs") or {}))
        for tenant in p.get("tenants") or []:
            request(
                connection,
                "compute",
                "POST",
                f"/flavors/{flavor}/action",
                "compute.flavor_add_tenant_access",
                {"addTenantAccess": {"tenant": tenant}},
            )
        return shown

    @staticmethod
    def set_extra_specs(
        connection: Any, flavor: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        for key in old:
            if key not in new:
                request(
                    connection,
                    "compute",
                    "DELETE",
                    f"/flavors/{flavor}/os-extra_specs/{key}",
                    "compute.delete_flavor_extra_spec",
                )
        if new:
            request(
                connection,
                "compute",
                "POST",
                f"/flavors/{flavor}/os-extra_specs",
                "compute.create_flavor_extra_specs",
                {"extra_specs": {k: str(v) for k, v in new.items()}},
            )

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        flavor = context.physical_id
        assert flavor is not None
        old = dict(previous.properties.get("extra_specs") or {})
        new = dict(context.properties.get("extra_specs") or {})
        await self.cloud.call(
            "compute.create_flavor_extra_specs",
            lambda c: self.set_extra_specs(c, flavor, old, new),
        )
        await self.refresh(context)
        context.data["extra_specs"] = new

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name == "extra_specs":
            return view.data.get("extra_specs", view.properties.get("extra_specs") or {})
        if name == "is_public":
            shown = view.data.get("show") or {}
            return shown.get("os-flavor-access:is_public")
        return super().attribute(view, name)


class VolumeAttachment(CloudResource):
    """A volume attached to a server through Nova; ready when Cinder shows it in use.
    Its physical id is Nova's attachment id (the volume's id)."""

    type_name = "OS::Cinder::VolumeAttachment"
    properties_schema, attributes_schema = catalog_schemas(type_name)
    show_call = "block_storage.get_volume"
    name_property = None
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"IN-USE"})
    failed_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR", "ERROR_ATTACHING"})

    def calls(self) -> tuple[str, str]:
        return ("compute.create_volume_attachment", "compute.delete_volume_attachment")

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        server, volume = str(p["instance_uuid"]), str(p["volume_id"])
        context.data["server"] = server
        shown = self.show(connection, volume)
        if any(a.get("server_id") == server for a in shown.get("attachments") or []):
            return {"id": volume, "status": ""}  # attached before a crash cut the record off
        body: dict[str, Any] = {"volumeId": volume}
        if p.get("mountpoint"):
            body["device"] = p["mountpoint"]
        answer = request(
            connection,
            "compute",
            "POST",
            f"/servers/{server}/os-volume_attachments",
            "compute.create_volume_attachment",
            {"volumeAttachment": body},
        )
        return {"id": str(answer["volumeAttachment"].get("id") or volume), "status": ""}

    def show(self, connection: Any, physical_id: str) -> dict[str, Any]:
        body = request(
            connection, "block_storage", "GET", f"/volumes/{physical_id}", self.show_call
        )
        return dict(body["volume"])

    def drop(self, connection: Any, physical_id: str, data: Mapping[str, Any]) -> None:
        server = data.get("server")
        if not server:
            raise NotFoundError("attachment has no server", 404)
        request(
            connection,
            "compute",
            "DELETE",
            f"/servers/{server}/os-volume_attachments/{physical_id}",
            "compute.delete_volume_attachment",
        )

    async def wait_gone(self, context: ResourceContext, physical_id: str) -> None:
        """Detached: the volume is no longer in use (or is gone)."""
        for delay in POLL.delays():
            try:
                shown = await self.cloud.call(self.show_call, lambda c: self.show(c, physical_id))
            except NotFoundError:
                return
            status = str(shown.get("status") or "").lower()
            if status in ("available", "error", "deleting"):
                return
            if status == "error_detaching":
                raise CloudError(f"{self.show_call}: {physical_id} went to {status}")
            await pause(context, delay)

    async def update(self, context: ResourceContext, previous: ResourceView) -> None:
        await self.delete(context)
        context.physical_id = None
        context.data.pop("server", None)
        await self.create(context)

    def attribute_of(self, shown: Mapping[str, Any], name: str) -> Any:
        return None


TYPES: tuple[type[CloudResource], ...] = (Server, KeyPair, ServerGroup, Flavor, VolumeAttachment)
