"""Nova's servers: a state machine on the sandbox's clock.

A server is created in BUILD and becomes ACTIVE ``build_delay`` seconds later (ERROR when
the fault plan names it); resize, reboot and rebuild pass through their transitional
status the same way. Nothing runs in the background: each read settles the server first
(`_settle`), so the sandbox's state is a function of its database and the clock, and a
restarted sandbox carries on where it stopped.

Ports come from Neutron's backend and volumes from Cinder's, through the Protocols of
`stoker.sandbox.interfaces`, when those services run.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Mapping
from typing import Any

from stoker.sandbox.compute.actions import ACTIONS
from stoker.sandbox.compute.catalog import ComputeCatalog
from stoker.sandbox.compute.rules import ALLOWED, STATES, check_user_data, tag_ok
from stoker.sandbox.http_errors import ApiError, BadRequest, Conflict, NotFound, OverQuota
from stoker.sandbox.interfaces import ImageProvider, PortAddress, PortProvider, VolumeProvider
from stoker.sandbox.service import Hub, HubBackend, RequestContext, iso_time, new_id
from stoker.sandbox.store import Document, copy_document

SERVER = "compute.server"

#: default quotas (-1: unlimited): a sandbox is a test bed; the fault plan sets limits
QUOTA_NAMES = ("instances", "cores", "ram", "key_pairs", "server_groups", "metadata_items")


class ComputeBackend(HubBackend):
    def __init__(self, hub: Hub) -> None:
        super().__init__(hub)
        self.catalog = ComputeCatalog(hub)
        self.catalog.seed()

    # -- quotas -----------------------------------------------------------------------

    def quota(self, resource: str) -> int:
        return self.hub.quota("compute", resource)

    def usage(self, project_id: str) -> dict[str, int]:
        servers = self.servers(project_id)
        flavors = {f["id"]: f for f in self.catalog.flavors()}
        used = {"instances": len(servers), "cores": 0, "ram": 0}
        for server in servers:
            flavor = flavors.get(server["flavor_id"])
            if flavor is not None:
                used["cores"] += flavor["vcpus"]
                used["ram"] += flavor["ram"]
        return used

    def _check_quota(self, project_id: str, flavor: Document) -> None:
        if all(self.quota(name) < 0 for name in ("instances", "cores", "ram")):
            return  # unlimited: no need to count (a count reads every server)
        used = self.usage(project_id)
        asked = {"instances": 1, "cores": flavor["vcpus"], "ram": flavor["ram"]}
        for resource, amount in asked.items():
            limit = self.quota(resource)
            if limit >= 0 and used[resource] + amount > limit:
                raise OverQuota(
                    f"Quota exceeded for {resource}: Requested {amount}, but already used "
                    f"{used[resource]} of {limit} {resource}"
                )

    # -- reading ----------------------------------------------------------------------

    def _settle(self, server: Document) -> Document | None:
        """The server as it is now: a transition whose time has come is applied (and
        saved); None once a deleted server is gone."""
        now = self.hub.now()
        deleted_at = server.get("_deleted_at")
        if deleted_at is not None and now >= deleted_at:
            self.store.delete(SERVER, server["id"])
            return None
        ready_at = server.get("_ready_at")
        if ready_at is None or now < ready_at:
            return server
        status = server.pop("_next")
        server["_ready_at"] = None
        self.enter(server, status)
        if status == "ERROR":
            server["fault"] = {
                "code": 500,
                "created": iso_time(now),
                "message": "No valid host was found. There are not enough hosts available.",
            }
        if status == "ACTIVE" and not server.get("launched_at"):
            server["launched_at"] = iso_time(now)
        self.store.put(SERVER, server["id"], server)
        return server

    def enter(self, server: Document, status: str) -> None:
        vm_state, power_state = STATES[status]
        server.update(status=status, vm_state=vm_state, power_state=power_state, task_state=None)
        server["updated"] = iso_time(self.hub.now())

    def transition(
        self, server: Document, status: str, task_state: str, then: str, vm_state: str | None = None
    ) -> None:
        """Enter a transitional ``status`` now and ``then`` after the build delay."""
        server.update(status=status, task_state=task_state, _next=then)
        if vm_state is not None:
            server["vm_state"] = vm_state
        server["_ready_at"] = self.hub.now() + self.delay
        server["updated"] = iso_time(self.hub.now())

    def server(self, ctx: RequestContext, server_id: str) -> Document:
        found = self.store.get(SERVER, server_id)
        if found is not None and ctx.reaches(found["project_id"]):
            settled = self._settle(found)
            if settled is not None:
                return settled
        raise NotFound(f"Instance {server_id} could not be found.")

    def servers(self, project_id: str | None) -> list[Document]:
        """The project's servers (every project's for None), settled, oldest first."""
        found = self.store.list(SERVER, project_id=project_id)
        return [s for s in (self._settle(server) for server in found) if s is not None]

    def listed(self, project_id: str | None) -> list[Mapping[str, Any]]:
        """`servers` for a listing that only reads them: the store's own documents
        (`SandboxStore.scan`), copied and settled only when a transition is due."""
        listed: list[Mapping[str, Any]] = []
        for server in self.store.scan(SERVER, project_id=project_id):
            if not self._due(server):
                listed.append(server)
            elif (settled := self._settle(copy_document(server))) is not None:
                listed.append(settled)
        return listed

    def _due(self, server: Mapping[str, Any]) -> bool:
        """Whether `_settle` would change the server now (a deletion or a transition)."""
        now = self.hub.now()
        deleted_at, ready_at = server.get("_deleted_at"), server.get("_ready_at")
        return (deleted_at is not None and now >= deleted_at) or (
            ready_at is not None and now >= ready_at
        )

    def addresses(self, server: Mapping[str, Any]) -> list[PortAddress]:
        ports = self.hub.find(PortProvider)
        if ports is None or not server["ports"]:
            return []
        return ports.addresses([p["port_id"] for p in server["ports"]])

    # -- creating ---------------------------------------------------------------------

    def create_server(self, ctx: RequestContext, body: Document) -> Document:
        name = body.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 255:
            raise BadRequest(f"Invalid input for field/attribute name. Value: {name}.")
        flavor_ref = str(body.get("flavorRef") or "").rstrip("/").rsplit("/", 1)[-1]
        try:
            flavor = self.catalog.flavor(flavor_ref)
        except NotFound:
            raise BadRequest(f"Flavor {flavor_ref} could not be found.") from None
        image_id = self.image_of(ctx, body)
        key_name = body.get("key_name")
        if key_name is not None:
            try:
                self.catalog.keypair(ctx.user_id, str(key_name))
            except NotFound:
                raise BadRequest("Invalid key_name provided.") from None
        networks = body.get("networks")
        if networks is None and ctx.at_least(2, 37):
            raise BadRequest(
                "Invalid input for field/attribute server. 'networks' is a required property"
            )
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
            raise BadRequest("Invalid input for field/attribute metadata.")
        tags = body.get("tags") or []
        if not isinstance(tags, list) or len(tags) > 50 or not all(tag_ok(t) for t in tags):
            raise BadRequest(f"Invalid input for field/attribute tags. Value: {tags}.")
        user_data = body.get("user_data")
        if user_data is not None:
            check_user_data(user_data)
        groups = body.get("security_groups") or [{"name": "default"}]
        security_groups = tuple(str(g.get("name")) for g in groups if isinstance(g, dict))
        hints = body.get("os:scheduler_hints") or body.get("OS-SCH-HNT:scheduler_hints") or {}
        group_id = hints.get("group") if isinstance(hints, dict) else None
        self._check_quota(ctx.project_id, flavor)
        now = self.hub.now()
        server_id = new_id()
        server: Document = {
            "id": server_id,
            "name": name,
            "project_id": ctx.project_id,
            "user_id": ctx.user_id,
            "flavor_id": flavor["id"],
            "image_id": image_id,
            "key_name": key_name,
            "metadata": dict(metadata),
            "created": iso_time(now),
            "updated": iso_time(now),
            "launched_at": None,
            "access_ipv4": str(body.get("accessIPv4") or ""),
            "access_ipv6": str(body.get("accessIPv6") or ""),
            "config_drive": "True" if body.get("config_drive") else "",
            "user_data": body.get("user_data"),
            "security_groups": list(security_groups),
            "availability_zone": str(body.get("availability_zone") or "nova"),
            "description": body.get("description"),
            "tags": list(dict.fromkeys(tags)),
            "locked": False,
            "host_id": secrets.token_hex(28),
            "ports": [],
            "volumes": [],
            "server_groups": [group_id] if group_id else [],
            "fault": None,
            "admin_pass": str(body.get("adminPass") or secrets.token_urlsafe(9)),
            "status": "BUILD",
            "vm_state": "building",
            "task_state": "scheduling",
            "power_state": 0,
            "_ready_at": None,
            "_deleted_at": None,
        }
        faults = self.hub.config.faults
        fails = faults is not None and faults.server_fails(name)
        self.transition(server, "BUILD", "spawning", "ERROR" if fails else "ACTIVE")
        with self.store.transaction():
            if group_id:
                try:
                    self.catalog.join_group(ctx, str(group_id), server_id)
                except NotFound as error:
                    raise BadRequest(error.message) from None
            server["ports"] = self._plug_all(ctx, server_id, networks, security_groups)
            server["volumes"] = self._attach_boot_volumes(ctx, server_id, body)
            self.store.insert(SERVER, server_id, server, ctx.project_id)
        return self._settle(server) or server

    def image_of(self, ctx: RequestContext, body: Document) -> str:
        image_ref = str(body.get("imageRef") or "").rstrip("/").rsplit("/", 1)[-1]
        mappings = body.get("block_device_mapping_v2") or []
        boots_from_volume = any(
            isinstance(m, dict) and m.get("boot_index") in (0, "0") for m in mappings
        )
        if not image_ref:
            if boots_from_volume:
                return ""
            raise BadRequest("Missing imageRef attribute")
        images = self.hub.find(ImageProvider)
        if images is not None:
            image = images.find_image(ctx.project_id, image_ref)
            if image is None:
                raise BadRequest(f"Image {image_ref} could not be found.")
            if image.get("status") != "active":
                raise BadRequest(f"Image {image_ref} is not active.")
        return image_ref

    def _plug_all(
        self,
        ctx: RequestContext,
        server_id: str,
        networks: Any,
        security_groups: tuple[str, ...],
    ) -> list[Document]:
        ports = self.hub.find(PortProvider)
        if networks in (None, "auto"):
            network_id = ports.auto_network(ctx.project_id) if ports is not None else None
            networks = [{"uuid": network_id}] if network_id else []
        elif networks == "none":
            networks = []
        if not isinstance(networks, list):
            raise BadRequest("Invalid input for field/attribute networks.")
        plugged = []
        for request in networks:
            if not isinstance(request, dict):
                raise BadRequest("Invalid input for field/attribute networks.")
            port_id, network_id = request.get("port"), request.get("uuid")
            if not port_id and not network_id:
                raise BadRequest("Invalid input for field/attribute networks: uuid or port")
            if ports is None:
                missing = f"Port id {port_id}" if port_id else f"Network {network_id}"
                raise BadRequest(f"{missing} could not be found.")
            try:
                plugged_id = ports.plug(
                    ctx.project_id,
                    server_id,
                    network_id=network_id,
                    port_id=port_id,
                    fixed_ip=request.get("fixed_ip"),
                    security_groups=() if port_id else security_groups,
                )
            except NotFound as error:
                raise BadRequest(error.message) from None
            plugged.append({"port_id": plugged_id, "created": not port_id})
        return plugged

    def _attach_boot_volumes(
        self, ctx: RequestContext, server_id: str, body: Document
    ) -> list[Document]:
        attached: list[Document] = []
        for mapping in body.get("block_device_mapping_v2") or []:
            if not isinstance(mapping, dict):
                raise BadRequest("Invalid input for field/attribute block_device_mapping_v2.")
            if mapping.get("source_type") != "volume" or not mapping.get("uuid"):
                continue
            device = "/dev/vda" if mapping.get("boot_index") in (0, "0") else None
            attached.append(
                self._attach(
                    ctx,
                    server_id,
                    attached,
                    str(mapping["uuid"]),
                    device,
                    bool(mapping.get("delete_on_termination", False)),
                )
            )
        return attached

    def _attach(
        self,
        ctx: RequestContext,
        server_id: str,
        existing: list[Document],
        volume_id: str,
        device: str | None,
        delete_on_termination: bool = False,
    ) -> Document:
        volumes = self.hub.find(VolumeProvider)
        if volumes is None:
            raise NotFound(f"Volume {volume_id} could not be found.")
        if any(v["volumeId"] == volume_id for v in existing):
            raise Conflict(f"Volume {volume_id} is already attached to the instance")
        if not device:
            used = {v["device"] for v in existing}
            device = next(
                f"/dev/vd{letter}"
                for letter in "bcdefghijklmnopqrstuvwxyz"
                if f"/dev/vd{letter}" not in used
            )
        try:
            volumes.attach(ctx.project_id, volume_id, server_id, device)
        except Conflict as error:
            raise BadRequest(f"Invalid volume: {error.message}") from None
        return {
            "volumeId": volume_id,
            "device": device,
            "delete_on_termination": delete_on_termination,
            "attachment_id": new_id(),
        }

    # -- changing ---------------------------------------------------------------------

    def update_server(self, ctx: RequestContext, server_id: str, body: Document) -> Document:
        server = self.server(ctx, server_id)
        if "name" in body:
            name = body["name"]
            if not isinstance(name, str) or not name.strip() or len(name) > 255:
                raise BadRequest(f"Invalid input for field/attribute name. Value: {name}.")
            server["name"] = name
        if "description" in body:
            server["description"] = body["description"]
        for key, field in (("accessIPv4", "access_ipv4"), ("accessIPv6", "access_ipv6")):
            if key in body:
                server[field] = str(body[key] or "")
        server["updated"] = iso_time(self.hub.now())
        self.store.put(SERVER, server_id, server)
        return server

    def set_metadata(
        self, ctx: RequestContext, server_id: str, metadata: Any, *, replace: bool
    ) -> Document:
        server = self.server(ctx, server_id)
        if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and 0 < len(k) <= 255 and len(v) <= 255
            for k, v in metadata.items()
        ):
            raise BadRequest("Invalid input for field/attribute metadata.")
        merged = dict(metadata) if replace else {**server["metadata"], **metadata}
        limit = self.quota("metadata_items")
        if limit >= 0 and len(merged) > limit:
            raise OverQuota(f"Quota exceeded for metadata_items: maximum is {limit}")
        server["metadata"] = merged
        self.store.put(SERVER, server_id, server)
        return dict(merged)

    def set_tags(self, ctx: RequestContext, server_id: str, tags: Any) -> list[str]:
        """Replace the server's tags (each 1-60 characters, no ``/`` or ``,``; 50 at most)."""
        server = self.server(ctx, server_id)
        if not isinstance(tags, list) or len(tags) > 50 or not all(tag_ok(t) for t in tags):
            raise BadRequest(f"Invalid input for field/attribute tags. Value: {tags}.")
        server["tags"] = list(dict.fromkeys(tags))
        self.store.put(SERVER, server_id, server)
        return list(server["tags"])

    def delete_metadata_key(self, ctx: RequestContext, server_id: str, key: str) -> None:
        server = self.server(ctx, server_id)
        if key not in server["metadata"]:
            raise NotFound("Metadata item was not found")
        del server["metadata"][key]
        self.store.put(SERVER, server_id, server)

    def act(self, ctx: RequestContext, server_id: str, action: str, args: Any) -> Document:
        """A server action (``POST /servers/{id}/action``); the server afterwards."""
        server = self.server(ctx, server_id)
        if action not in ALLOWED:
            raise BadRequest(f"There is no such action: {action}")
        allowed = ALLOWED[action]
        if server["locked"] and action not in ("lock", "unlock") and not ctx.is_admin:
            raise Conflict(f"Instance {server_id} is locked")
        if allowed is not None:
            if server["task_state"] is not None:
                raise Conflict(
                    f"Cannot '{action}' instance {server_id} while it is in task_state "
                    f"{server['task_state']}"
                )
            if server["status"] not in allowed:
                raise Conflict(
                    f"Cannot '{action}' instance {server_id} while it is in vm_state "
                    f"{server['vm_state']}"
                )
        ACTIONS[action.replace("-", "_").lower()](self, ctx, server, args)
        snapshot = server.pop("_snapshot_id", None)  # an answer, not part of the server
        self.store.put(SERVER, server_id, server)
        result = self._settle(server) or server
        if snapshot is not None:
            result["_snapshot_id"] = snapshot
        return result

    # -- interfaces and volumes ---------------------------------------------------------

    def attach_interface(self, ctx: RequestContext, server_id: str, body: Document) -> PortAddress:
        server = self.server(ctx, server_id)
        port_id, network_id = body.get("port_id"), body.get("net_id")
        fixed_ips = body.get("fixed_ips") or []
        fixed_ip = (
            fixed_ips[0].get("ip_address") if fixed_ips and isinstance(fixed_ips[0], dict) else None
        )
        ports = self.hub.find(PortProvider)
        if ports is None:
            raise NotFound(
                f"Network {network_id} could not be found."
                if network_id
                else f"Port {port_id} could not be found."
            )
        with self.store.transaction():
            plugged = ports.plug(
                ctx.project_id,
                server_id,
                network_id=network_id,
                port_id=port_id,
                fixed_ip=fixed_ip,
                security_groups=() if port_id else tuple(server["security_groups"]),
            )
            server["ports"].append({"port_id": plugged, "created": not port_id})
            self.store.put(SERVER, server_id, server)
        return ports.addresses([plugged])[0]

    def detach_interface(self, ctx: RequestContext, server_id: str, port_id: str) -> None:
        server = self.server(ctx, server_id)
        entry = next((p for p in server["ports"] if p["port_id"] == port_id), None)
        ports = self.hub.find(PortProvider)
        if entry is None or ports is None:
            raise NotFound(f"Port {port_id} is not attached")
        with self.store.transaction():
            ports.unplug(port_id, delete=entry["created"])
            server["ports"].remove(entry)
            self.store.put(SERVER, server_id, server)

    def attach_volume(self, ctx: RequestContext, server_id: str, body: Document) -> Document:
        server = self.server(ctx, server_id)
        volume_id = body.get("volumeId")
        if not isinstance(volume_id, str) or not volume_id:
            raise BadRequest("Invalid input for field/attribute volumeId.")
        device = body.get("device")
        with self.store.transaction():
            attachment = self._attach(
                ctx,
                server_id,
                server["volumes"],
                volume_id,
                str(device) if device else None,
                bool(body.get("delete_on_termination", False)),
            )
            server["volumes"].append(attachment)
            self.store.put(SERVER, server_id, server)
        return attachment

    def detach_volume(self, ctx: RequestContext, server_id: str, volume_id: str) -> None:
        server = self.server(ctx, server_id)
        entry = next((v for v in server["volumes"] if v["volumeId"] == volume_id), None)
        if entry is None:
            raise NotFound(f"volume_id not found: {volume_id}")
        with self.store.transaction():
            volumes = self.hub.find(VolumeProvider)
            if volumes is not None:
                volumes.detach(volume_id, server_id)
            server["volumes"].remove(entry)
            self.store.put(SERVER, server_id, server)

    # -- deleting -----------------------------------------------------------------------

    def delete_server(self, ctx: RequestContext, server_id: str) -> None:
        """Ports are unplugged and volumes detached now; the server shows ``deleting``
        for the build delay, then is gone (404), as Nova deletes asynchronously."""
        server = self.server(ctx, server_id)
        if server.get("_deleted_at") is not None:
            return
        if server["locked"] and not ctx.is_admin:
            raise Conflict(f"Instance {server_id} is locked")
        with self.store.transaction():
            ports = self.hub.find(PortProvider)
            if ports is not None:
                for entry in server["ports"]:
                    with contextlib.suppress(ApiError):  # gone already
                        ports.unplug(entry["port_id"], delete=entry["created"])
            volumes = self.hub.find(VolumeProvider)
            if volumes is not None:
                for entry in server["volumes"]:
                    volumes.detach(entry["volumeId"], server_id)
            self.catalog.leave_groups(server_id)
            server["ports"], server["volumes"] = [], []
            server["task_state"] = "deleting"
            server["_ready_at"] = None
            server["_deleted_at"] = self.hub.now() + self.delay
            self.store.put(SERVER, server_id, server)
        self._settle(server)
