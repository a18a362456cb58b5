"""Nova's REST API over `ComputeBackend`: ``/compute/v2.1/...``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.sandbox.compute import views
from stoker.sandbox.compute.backend import QUOTA_NAMES, ComputeBackend
from stoker.sandbox.compute.catalog_api import CatalogApi
from stoker.sandbox.compute.rules import name_filter
from stoker.sandbox.http import (
    base_url,
    boolean,
    member,
    no_content,
    paginate,
    read_json,
    reply,
)
from stoker.sandbox.http_errors import ApiError, BadRequest, NotFound, fault, policy_refusal
from stoker.sandbox.service import (
    Microversions,
    Operation,
    RequestContext,
    Service,
    routes,
    version_routes,
)
from stoker.sandbox.store import Document

MICROVERSIONS = Microversions(
    service_type="compute",
    minimum=(2, 1),
    maximum=(2, 96),
    legacy_header="X-OpenStack-Nova-API-Version",
)


def _version(base: str) -> Document:
    media_type = "application/vnd.openstack.compute+json;version=2.1"
    href = f"{base}/compute/v2.1/"
    return MICROVERSIONS.document("v2.1", "2013-07-23T11:33:21Z", href, media_type)


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    return 200, {"versions": [_version(base)]}


def error_body(error: ApiError) -> Response:
    if error.status == 401:
        body = {"error": {"code": 401, "title": error.title, "message": error.message}}
    else:
        body = fault(error.status, error.message)
    return JSONResponse(body, status_code=error.status)


def _id_from_ref(value: Any) -> str:
    return str(value or "").rstrip("/").rsplit("/", 1)[-1]


class ComputeApi:
    def __init__(self, backend: ComputeBackend) -> None:
        self.backend = backend
        self.catalog = backend.catalog

    # -- servers ----------------------------------------------------------------------

    def _listed_servers(self, request: Request, ctx: RequestContext) -> list[Mapping[str, Any]]:
        """The servers a listing shows, as the store holds them: read only."""
        query = request.query_params
        every = ctx.is_admin and boolean(query.get("all_tenants"), "all_tenants")
        project = query.get("project_id") or query.get("tenant_id")
        servers = self.backend.listed(
            None if every or (project and ctx.is_admin) else ctx.project_id
        )
        if project and ctx.is_admin:
            servers = [s for s in servers if s["project_id"] == project]
        if "name" in query:
            pattern = name_filter(query["name"])
            servers = [s for s in servers if pattern.search(s["name"])]
        if "status" in query:
            servers = [s for s in servers if s["status"] == query["status"].upper()]
        if "flavor" in query:
            servers = [s for s in servers if s["flavor_id"] == _id_from_ref(query["flavor"])]
        if "image" in query:
            servers = [s for s in servers if s["image_id"] == _id_from_ref(query["image"])]
        if "key_name" in query:
            servers = [s for s in servers if s["key_name"] == query["key_name"]]
        # Nova lists the newest first
        return paginate(request, list(reversed(servers)))

    def _server(self, request: Request, ctx: RequestContext) -> Document:
        return self.backend.server(ctx, request.path_params["server_id"])

    async def list_servers(self, request: Request, ctx: RequestContext) -> Response:
        """``/servers`` (names and links) and ``/servers/detail``."""
        base = base_url(request)
        servers = self._listed_servers(request, ctx)
        if request.url.path.endswith("/detail"):
            return reply({"servers": [views.server(ctx, base, self.backend, s) for s in servers]})
        shown = [
            {"id": s["id"], "name": s["name"], "links": views.links(base, "servers", s["id"])}
            for s in servers
        ]
        return reply({"servers": shown})

    async def create_server(self, request: Request, ctx: RequestContext) -> Response:
        outer = await read_json(request)
        body = member(outer, "server")
        for key in ("os:scheduler_hints", "OS-SCH-HNT:scheduler_hints"):
            if key in outer:
                body[key] = outer[key]
        server = self.backend.create_server(ctx, body)
        base = base_url(request)
        shown = {
            "id": server["id"],
            "links": views.links(base, "servers", server["id"]),
            "OS-DCF:diskConfig": "MANUAL",
            "security_groups": [{"name": name} for name in server["security_groups"]],
            "adminPass": server["admin_pass"],
        }
        location = f"{base}/compute/v2.1/servers/{server['id']}"
        return reply({"server": shown}, 202, {"location": location})

    async def show_server(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        return reply({"server": views.server(ctx, base_url(request), self.backend, server)})

    async def update_server(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="server")
        server = self.backend.update_server(ctx, request.path_params["server_id"], body)
        return reply({"server": views.server(ctx, base_url(request), self.backend, server)})

    async def delete_server(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.delete_server(ctx, request.path_params["server_id"])
        return no_content()

    async def action(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        if len(body) != 1:
            raise BadRequest("There is no such action: one action per request")
        ((name, args),) = body.items()
        server = self.backend.act(ctx, request.path_params["server_id"], name, args)
        if name == "createImage":
            image_id = server.pop("_snapshot_id")
            location = f"{base_url(request)}/image/v2/images/{image_id}"
            if ctx.at_least(2, 45):
                return reply({"image_id": image_id}, 202)
            return Response(status_code=202, headers={"location": location})
        if name == "rebuild":
            shown = views.server(ctx, base_url(request), self.backend, server)
            return reply({"server": shown}, 202)
        return no_content(204 if name == "confirmResize" else 202)

    async def ips(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        return reply({"addresses": views.addresses(self.backend.addresses(server))})

    # -- metadata ---------------------------------------------------------------------

    async def show_metadata(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        return reply({"metadata": dict(server["metadata"])})

    async def set_metadata(self, request: Request, ctx: RequestContext) -> Response:
        """POST merges the metadata given, PUT replaces it."""
        body, server_id = await read_json(request), request.path_params["server_id"]
        replace = request.method == "PUT"
        metadata = self.backend.set_metadata(ctx, server_id, body.get("metadata"), replace=replace)
        return reply({"metadata": metadata})

    async def show_metadata_item(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        key = request.path_params["key"]
        if key not in server["metadata"]:
            raise NotFound("Metadata item was not found")
        return reply({"meta": {key: server["metadata"][key]}})

    async def set_metadata_item(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        key = request.path_params["key"]
        meta = body.get("meta")
        if not isinstance(meta, dict) or list(meta) != [key]:
            raise BadRequest("Request body and URI mismatch")
        self.backend.set_metadata(ctx, request.path_params["server_id"], meta, replace=False)
        return reply({"meta": meta})

    async def delete_metadata_item(self, request: Request, ctx: RequestContext) -> Response:
        params = request.path_params
        self.backend.delete_metadata_key(ctx, params["server_id"], params["key"])
        return no_content()

    # -- tags ------------------------------------------------------------------------

    async def list_tags(self, request: Request, ctx: RequestContext) -> Response:
        return reply({"tags": list(self._server(request, ctx)["tags"])})

    async def replace_tags(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        body = await read_json(request)
        return reply({"tags": self.backend.set_tags(ctx, server["id"], body.get("tags"))})

    async def clear_tags(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        self.backend.set_tags(ctx, server["id"], [])
        return no_content()

    async def check_tag(self, request: Request, ctx: RequestContext) -> Response:
        tag = request.path_params["tag"]
        if tag not in self._server(request, ctx)["tags"]:
            raise NotFound(f"Tag {tag} could not be found.")
        return no_content()

    async def add_tag(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        tag = request.path_params["tag"]
        if tag in server["tags"]:
            return no_content()
        self.backend.set_tags(ctx, server["id"], [*server["tags"], tag])
        location = f"{base_url(request)}/compute/v2.1/servers/{server['id']}/tags/{tag}"
        return Response(status_code=201, headers={"location": location})

    async def remove_tag(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        tag = request.path_params["tag"]
        if tag not in server["tags"]:
            raise NotFound(f"Tag {tag} could not be found.")
        self.backend.set_tags(ctx, server["id"], [t for t in server["tags"] if t != tag])
        return no_content()

    # -- interfaces and volume attachments -----------------------------------------------

    async def list_interfaces(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        ports = self.backend.addresses(server)
        return reply({"interfaceAttachments": [views.interface(p) for p in ports]})

    async def attach_interface(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="interfaceAttachment")
        port = self.backend.attach_interface(ctx, request.path_params["server_id"], body)
        return reply({"interfaceAttachment": views.interface(port)})

    async def show_interface(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        port_id = request.path_params["port_id"]
        for port in self.backend.addresses(server):
            if port.port_id == port_id:
                return reply({"interfaceAttachment": views.interface(port)})
        raise NotFound(f"Port {port_id} is not attached")

    async def detach_interface(self, request: Request, ctx: RequestContext) -> Response:
        params = request.path_params
        self.backend.detach_interface(ctx, params["server_id"], params["port_id"])
        return no_content(202)

    async def list_volume_attachments(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        shown = [views.volume_attachment(ctx, server["id"], v) for v in server["volumes"]]
        return reply({"volumeAttachments": shown})

    async def attach_volume(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="volumeAttachment")
        server_id = request.path_params["server_id"]
        entry = self.backend.attach_volume(ctx, server_id, body)
        return reply({"volumeAttachment": views.volume_attachment(ctx, server_id, entry)})

    async def show_volume_attachment(self, request: Request, ctx: RequestContext) -> Response:
        server = self._server(request, ctx)
        volume_id = request.path_params["volume_id"]
        for entry in server["volumes"]:
            if entry["volumeId"] == volume_id:
                shown = views.volume_attachment(ctx, server["id"], entry)
                return reply({"volumeAttachment": shown})
        raise NotFound(f"Instance {server['id']} is not attached to volume {volume_id}.")

    async def detach_volume(self, request: Request, ctx: RequestContext) -> Response:
        params = request.path_params
        self.backend.detach_volume(ctx, params["server_id"], params["volume_id"])
        return no_content(202)

    # -- zones, limits, quotas -----------------------------------------------------------

    async def availability_zones(self, request: Request, ctx: RequestContext) -> Response:
        """The one zone, ``nova``; its ``/detail`` names the one host too."""
        hosts = None
        if request.url.path.endswith("/detail"):
            service = {"available": True, "active": True, "updated_at": None}
            hosts = {"sandbox": {"nova-compute": service}}
        zone = {"zoneName": "nova", "zoneState": {"available": True}, "hosts": hosts}
        return reply({"availabilityZoneInfo": [zone]})

    def _quota_set(self, project_id: str) -> Document:
        quota = {name: self.backend.quota(name) for name in QUOTA_NAMES}
        quota.update(
            injected_files=-1,
            injected_file_content_bytes=-1,
            injected_file_path_bytes=-1,
            server_group_members=-1,
        )
        return {"id": project_id, **quota}

    async def limits(self, request: Request, ctx: RequestContext) -> Response:
        used = self.backend.usage(ctx.project_id)
        absolute = {
            "maxTotalInstances": self.backend.quota("instances"),
            "maxTotalCores": self.backend.quota("cores"),
            "maxTotalRAMSize": self.backend.quota("ram"),
            "maxTotalKeypairs": self.backend.quota("key_pairs"),
            "maxServerMeta": self.backend.quota("metadata_items"),
            "maxServerGroups": self.backend.quota("server_groups"),
            "maxServerGroupMembers": -1,
            "maxPersonality": -1,
            "maxPersonalitySize": -1,
            "maxImageMeta": -1,
            "totalInstancesUsed": used["instances"],
            "totalCoresUsed": used["cores"],
            "totalRAMUsed": used["ram"],
            "totalServerGroupsUsed": len(self.catalog.server_groups(ctx, False)),
        }
        return reply({"limits": {"rate": [], "absolute": absolute}})

    async def show_quota_set(self, request: Request, ctx: RequestContext) -> Response:
        project_id = request.path_params["project_id"]
        if not ctx.reaches(project_id):
            raise policy_refusal("os_compute_api:os-quota-sets:show")
        quota = self._quota_set(project_id)
        if request.url.path.endswith("/detail"):
            used = self.backend.usage(project_id)
            quota = {
                key: value
                if key == "id"
                else {"limit": value, "in_use": used.get(key, 0), "reserved": 0}
                for key, value in quota.items()
            }
        return reply({"quota_set": quota})

    # -- routes -----------------------------------------------------------------------

    def operations(self) -> list[Operation]:
        server = "/servers/{server_id}"
        meta, tags = server + "/metadata", server + "/tags"
        ports, volumes = server + "/os-interface", server + "/os-volume_attachments"
        volume, zones = volumes + "/{volume_id}", "/os-availability-zone"
        quotas = "/os-quota-sets/{project_id}"
        table = [
            ("GET", "/servers", "servers.list", self.list_servers),
            ("GET", "/servers/detail", "servers.list_detail", self.list_servers),
            ("POST", "/servers", "servers.create", self.create_server),
            ("GET", server, "servers.show", self.show_server),
            ("PUT", server, "servers.update", self.update_server),
            ("DELETE", server, "servers.delete", self.delete_server),
            ("POST", server + "/action", "servers.action", self.action),
            ("GET", server + "/ips", "servers.ips", self.ips),
            ("GET", meta, "metadata.list", self.show_metadata),
            ("POST", meta, "metadata.update", self.set_metadata),
            ("PUT", meta, "metadata.replace", self.set_metadata),
            ("GET", meta + "/{key}", "metadata.show", self.show_metadata_item),
            ("PUT", meta + "/{key}", "metadata.set", self.set_metadata_item),
            ("DELETE", meta + "/{key}", "metadata.delete", self.delete_metadata_item),
            ("GET", ports, "interfaces.list", self.list_interfaces),
            ("POST", ports, "interfaces.create", self.attach_interface),
            ("GET", ports + "/{port_id}", "interfaces.show", self.show_interface),
            ("DELETE", ports + "/{port_id}", "interfaces.delete", self.detach_interface),
            ("GET", volumes, "volume_attachments.list", self.list_volume_attachments),
            ("POST", volumes, "volume_attachments.create", self.attach_volume),
            ("GET", volume, "volume_attachments.show", self.show_volume_attachment),
            ("DELETE", volume, "volume_attachments.delete", self.detach_volume),
            ("GET", zones, "availability_zones.list", self.availability_zones),
            ("GET", zones + "/detail", "availability_zones.detail", self.availability_zones),
            ("GET", "/limits", "limits.show", self.limits),
            ("GET", quotas, "quotas.show", self.show_quota_set),
            ("GET", quotas + "/detail", "quotas.detail", self.show_quota_set),
        ]
        tagging = [  # from 2.26
            ("GET", tags, "tags.list", self.list_tags),
            ("PUT", tags, "tags.replace", self.replace_tags),
            ("DELETE", tags, "tags.clear", self.clear_tags),
            ("GET", tags + "/{tag}", "tags.check", self.check_tag),
            ("PUT", tags + "/{tag}", "tags.add", self.add_tag),
            ("DELETE", tags + "/{tag}", "tags.delete", self.remove_tag),
        ]
        return routes("/v2.1", table) + routes("/v2.1", tagging, since=(2, 26))


def _operations(backend: ComputeBackend) -> list[Operation]:
    return (
        version_routes("/v2.1", lambda base: {"version": _version(base)})
        + ComputeApi(backend).operations()
        + CatalogApi(backend.catalog).operations()
    )


SERVICE = Service(
    name="nova",
    type="compute",
    prefix="/compute",
    make_backend=ComputeBackend,
    operations=_operations,
    versions=versions,
    error_body=error_body,
    endpoint_path="/compute/v2.1",
    microversions=MICROVERSIONS,
)
