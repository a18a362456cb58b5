"""Nova's types but the server (`server`): key pairs, server groups, flavors, and the
volume attachment (Nova attaches, Cinder shows the volume in use); the lookups and the
base the server shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from stoker.cloud.backoff import POLL
from stoker.cloud.connection import NotFoundError
from stoker.cloud.rest import find_id, request
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext, ResourceView
from stoker.resources.openstack.base import (
    ApiResource,
    CloudResource,
    given,
    pause,
)


def flavor_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "compute", "flavor", name_or_id)


def image_id(connection: Any, name_or_id: str) -> str:
    return find_id(connection, "image", "image", name_or_id)


class NovaResource(ApiResource):
    """A Nova resource at ``/<collection>/<id>`` under key ``<key>``."""

    service = "compute"


class KeyPair(NovaResource):
    """A key pair; its physical id is its name, as Nova's is."""

    type_name = "OS::Nova::KeyPair"
    key, collection = "keypair", "os-keypairs"
    show_call = "compute.get_keypair"

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body = {"name": name, **given(p, "public_key", "type", "user_id")}
        if p.get("user"):
            body["user_id"] = p["user"]
        shown = self.post(connection, body)
        context.data["private_key"] = shown.get("private_key") if p.get("save_private_key") else ""
        return {**shown, "id": name}

    def find(self, connection: Any, name: str) -> str | None:
        return name if self.exists(connection, name) else None

    def attribute(self, view: ResourceView, name: str) -> Any:
        if name == "private_key":
            return view.data.get("private_key") or ""
        return super().attribute(view, name)


class ServerGroup(NovaResource):
    type_name = "OS::Nova::ServerGroup"
    key, collection = "server_group", "os-server-groups"
    show_call = "compute.get_server_group"

    def make(self, connection: Any, context: ResourceContext, name: str) -> dict[str, Any]:
        p = context.properties
        body: dict[str, Any] = {"name": name, "policies": list(p.get("policies") or [])}
        if p.get("rules"):
            body["rules"] = dict(p["rules"])
        return self.post(connection, body)


class Flavor(NovaResource):
    type_name = "OS::Nova::Flavor"
    key, collection = "flavor", "flavors"
    show_call = "compute.get_flavor"

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
            access = {"addTenantAccess": {"tenant": tenant}}
            what = "compute.flavor_add_tenant_access"
            self.api(connection, "POST", f"/flavors/{flavor}/action", what, access)
        return shown

    def set_extra_specs(
        self, connection: Any, flavor: str, old: Mapping[str, Any], new: Mapping[str, Any]
    ) -> None:
        path = f"/flavors/{flavor}/os-extra_specs"
        for key in old:
            if key not in new:
                self.api(connection, "DELETE", f"{path}/{key}", "compute.delete_flavor_extra_spec")
        if new:
            specs = {"extra_specs": {k: str(v) for k, v in new.items()}}
            self.api(connection, "POST", path, "compute.create_flavor_extra_specs", specs)

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


class VolumeAttachment(ApiResource):
    """A volume attached to a server through Nova; ready when Cinder shows it in use.
    Its physical id is Nova's attachment id (the volume's id)."""

    type_name = "OS::Cinder::VolumeAttachment"
    show_call = "block_storage.get_volume"
    service, collection, key = "block_storage", "volumes", "volume"
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
                shown = await self.read(physical_id, context.data)
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


TYPES: tuple[type[CloudResource], ...] = (KeyPair, ServerGroup, Flavor, VolumeAttachment)
