"""Nova's server: create with its networks, ports and volumes, poll to ACTIVE, update in
place as Heat does (name, metadata, resize and confirm, rebuild, interfaces), and the
attributes Heat computes from Nova's and Neutron's views of it."""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from stoker.cloud.backoff import POLL
from stoker.cloud.batch import Coalescer
from stoker.cloud.rest import find_id, request
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack import server_listings as listings
from stoker.resources.openstack.base import (
    PENDING,
    CloudResource,
    first_id,
    given,
    pause,
    plain,
    scheduler_hints,
)
from stoker.resources.openstack.neutron import network_id, security_group_ids, subnet_id
from stoker.resources.openstack.nova import NovaResource, flavor_id, image_id
from stoker.resources.openstack.userdata import user_data


class Server(NovaResource):
    type_name = "OS::Nova::Server"
    key, collection = "server", "servers"
    show_call = "compute.get_server"
    ready_statuses: ClassVar[frozenset[str]] = frozenset({"ACTIVE"})

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
        built = self._user_data.get(id(context))
        if built:
            body["user_data"] = base64.b64encode(built.encode()).decode()
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
        return self.post(connection, body, beside=scheduler_hints(p, "os:scheduler_hints"))

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
        listed = self.listing(connection, {}, params, "compute.list_servers")
        return first_id([s for s in listed if s.get("name") == name])

    def __init__(self, cloud: Any) -> None:
        super().__init__(cloud)
        #: the user data each create under way sends (by its context), built before the
        #: create call (a config resource's text is looked up), not recorded
        self._user_data: dict[int, str | None] = {}
        #: the port listing of each create whose server has left BUILD, asked while the
        #: server itself is read (`wait_ready`), for `note_ports`
        self._ports: dict[int, asyncio.Future[Any]] = {}

    async def create(self, context: ResourceContext) -> None:
        self._user_data[id(context)] = await user_data(context)
        try:
            await super().create(context)
            await self.note_ports(context)
        finally:
            self._user_data.pop(id(context), None)
            early = self._ports.pop(id(context), None)
            if early is not None and not early.done():
                early.cancel()  # the create failed before its ports were wanted
            elif early is not None and not early.cancelled():
                early.exception()  # seen: a failed listing no one awaits is no warning

    async def wait_ready(
        self, context: ResourceContext, shown: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Poll until ACTIVE. While the server builds, the poll is one listing of the
        project's servers in BUILD shared by every server waiting (`building`); once it
        has left that list it is read (`read_out_of_build`) while its ports are listed.

        Each server asks on its own cadence, counted from when it was made (the delays
        add up from there, whatever each answer took), and the shared listing starts at
        most every fifth of the shortest delay of the servers waiting for it (0.02 s in
        their first second, 0.6 s once their delays reach 3 s). A server made last in a
        batch of a hundred is then seen about as soon after it is ready as a lone one
        is. Counted from each answer instead, lateness added up: the servers' asks
        drifted into a few clusters within ten polls, and a listing every `POLL.first`
        missed the last one by up to a whole delay. In traces of a 100-server create, the
        time from the last server's readiness to the stack's end shrank as the shortest
        listing interval did, for a few more listings, each cheap for the cloud (the
        figures are in docs/benchmarks.md's history)."""
        server = context.physical_id
        assert server is not None
        delays = POLL.delays()
        clock = asyncio.get_running_loop().time
        due = clock()
        while True:
            if shown is not None and self.is_ready(context, shown):
                return shown
            if shown is not None:
                delay = next(delays)
                due = max(due + delay, clock())
                await pause(context, due - clock())
                if str(shown.get("status") or "BUILD").upper() == "BUILD":
                    if await self.building(server, delay / 5):
                        continue
                    if id(context) in self._user_data and id(context) not in self._ports:
                        # Out of BUILD: its ports are listed while it is read, not after
                        self._ports[id(context)] = asyncio.ensure_future(self.ports_of(server))
                    shown = await self.read_out_of_build(context, server)
                    continue
            shown = await self.read(server, context.data)

    async def read_out_of_build(self, context: ResourceContext, server: str) -> dict[str, Any]:
        """The server as Nova shows it, now that it has left BUILD: read together with the
        servers that left it at the same time, in one listing of the project's servers in
        detail filtered by their names (Nova's detail listing shows each server as its
        show does, at the same microversion); by itself when that listing cannot answer
        for it (no name noted, a listing cut into pages, a listing refused)."""
        name = context.data.get(PENDING)
        if isinstance(name, str) and name:
            coalescer = self.shared(
                "compute.list_servers detail by name", listings.detail_by_name, size=25, parallel=4
            )
            try:
                found = await coalescer.ask((server, name))
            except CloudError:
                found = None
            if found is not None:
                return dict(found)
        return await self.read(server, context.data)

    async def wait_gone(self, context: ResourceContext, physical_id: str) -> None:
        """Poll until Nova no longer lists the server: one listing of the project's servers
        (ids only) shared by every server being deleted; a server the listing cannot
        answer for (a listing cut into pages) is read by itself."""
        coalescer = self.shared(
            "compute.list_servers", listings.listed, size=10**6, spacing=POLL.first
        )
        delays = POLL.delays()
        while True:
            try:
                listed = await coalescer.ask(physical_id)
            except CloudError:
                listed = None
            if listed is False:
                return
            if listed is None:
                await super().wait_gone(context, physical_id)
                return
            await pause(context, next(delays))

    async def building(self, server: str, spacing: float) -> bool:
        """Whether ``server`` is in the project's listing of servers in BUILD (false when
        that listing cannot be had: the server is then read by itself). The listing
        starts no sooner than ``spacing`` after the last one (the least any waiting
        server asks for: a fifth of its delay between polls)."""
        coalescer = self.shared(
            "compute.list_servers status=BUILD", listings.in_build, size=10**6, spacing=POLL.first
        )
        try:
            return bool(await coalescer.ask(server, spacing=spacing))
        except CloudError:
            return False

    async def note_ports(self, context: ResourceContext) -> None:
        """The server's ports as Neutron shows them (its addresses carry only MACs):
        ``networks`` and ``addresses`` need their ids and networks. Asked for many servers
        at once (``device_id`` repeated) when many are made together."""
        server = context.physical_id
        assert server is not None
        early = self._ports.pop(id(context), None)
        ports = await early if early is not None else await self.ports_of(server)
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

    async def ports_of(self, server: str) -> list[dict[str, Any]]:
        """The ports Neutron shows for ``server`` (one listing for many servers)."""
        coalescer = self.shared(
            "network.list_ports by device", listings.ports_of_devices, size=40, parallel=4
        )
        return list(await coalescer.ask(server) or [])

    def shared(
        self, name: str, read: Callable[[Any, list[Any]], Mapping[Any, Any]], **batching: Any
    ) -> Coalescer[Any, Any]:
        """The cloud's one listing ``name`` (`Coalescer` of ``read``) that every server
        waiting asks together; its call is the name's first word."""
        what = name.split(" ")[0]
        return self.cloud.coalescer(name, lambda: Coalescer(self.cloud, what, read, **batching))

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
        server, new, old = self.updating(context, previous)
        if new.get("name") != old.get("name"):
            renamed = {"server": {"name": self.cloud_name(context)}}
            await self.ask_api("PUT", f"/servers/{server}", "compute.update_server", renamed)
        if new.get("metadata") != old.get("metadata"):
            metadata = _metadata(new.get("metadata") or {})
            what = "compute.set_server_metadata"
            path = f"/servers/{server}/metadata"
            await self.ask_api("PUT", path, what, {"metadata": metadata})
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
        await self.ask_api("POST", f"/servers/{server}/action", what, body)

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
            shown = await self.read(server, context.data)
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
                    path = f"/servers/{server}/os-interface/{port}"
                    self.api(connection, "DELETE", path, "compute.delete_server_interface")

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
                    path = f"/servers/{server}/os-interface"
                    what = "compute.create_server_interface"
                    self.api(connection, "POST", path, what, {"interfaceAttachment": body})

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
        if name in ("console_urls", "os_collect_config"):
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


TYPES: tuple[type[CloudResource], ...] = (Server,)
