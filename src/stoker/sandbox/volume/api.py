"""Cinder v3's REST API over `CinderBackend`: ``/volume/v3/{project_id}/...``.

Microversions 3.0 to 3.70 (``OpenStack-API-Version: volume 3.x``); the fields a volume
shows grow with them as Cinder's do. Errors as Cinder writes them:
``{"itemNotFound": {"code": 404, "message": ...}}``, ``badRequest``, ``overLimit`` (413).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.sandbox.http import (
    base_url,
    boolean,
    link,
    no_content,
    paginate,
    public,
    read_json,
    reply,
)
from stoker.sandbox.http_errors import (
    FAULT_NAMES,
    ApiError,
    BadRequest,
    OverQuota,
    fault,
    policy_refusal,
)
from stoker.sandbox.service import (
    Microversions,
    Operation,
    RequestContext,
    Service,
    routes,
    version_routes,
)
from stoker.sandbox.store import Document
from stoker.sandbox.volume import backups
from stoker.sandbox.volume.backend import DEFAULT_TYPE, HOST, CinderBackend

MICROVERSIONS = Microversions(service_type="volume", minimum=(3, 0), maximum=(3, 70))
#: what Cinder counts against a project's quota
QUOTA_RESOURCES = (
    "volumes",
    "gigabytes",
    "snapshots",
    "backups",
    "backup_gigabytes",
    "groups",
    "per_volume_gigabytes",
)
#: Cinder's fault names: Nova's, without 429
CINDER_FAULTS = {status: name for status, name in FAULT_NAMES.items() if status != 429}


def _version(base: str) -> Document:
    media_type = "application/vnd.openstack.volume+json;version=3"
    return MICROVERSIONS.document("v3.0", "2023-08-31T00:00:00Z", f"{base}/volume/v3/", media_type)


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    return 300, {"versions": [_version(base)]}


def error_body(error: ApiError) -> Response:
    status = 413 if isinstance(error, OverQuota) else error.status
    return JSONResponse(fault(status, error.message, CINDER_FAULTS), status_code=status)


class CinderApi:
    """The handlers; one instance per sandbox."""

    def __init__(self, backend: CinderBackend) -> None:
        self.backups = backups.Backups(backend)
        self.backend = backend

    @staticmethod
    def _scope(request: Request, ctx: RequestContext) -> str | None:
        """Whose volumes the request reaches: the URL's project, which must be the token's
        (an admin reaches any volume by id)."""
        project = request.path_params.get("project_id", ctx.project_id)
        if not ctx.reaches(project):
            raise policy_refusal("this operation")
        return None if ctx.is_admin and "volume_id" in request.path_params else project

    @staticmethod
    def _links(request: Request, volume: Document) -> list[Document]:
        href = f"{base_url(request)}/volume/v3/{volume['project_id']}/volumes/{volume['id']}"
        return [link(href), link(href, "bookmark")]

    def _view(self, request: Request, ctx: RequestContext, volume: Document) -> Document:
        shown: Document = {
            "id": volume["id"],
            "name": volume["name"],
            "description": volume["description"],
            "status": volume["status"],
            "size": volume["size"],
            "availability_zone": volume["availability_zone"],
            "created_at": volume["created_at"],
            "updated_at": volume["updated_at"],
            "volume_type": volume["volume_type"],
            "snapshot_id": volume["snapshot_id"],
            "source_volid": volume["source_volid"],
            "bootable": volume["bootable"],
            "encrypted": volume["encrypted"],
            "multiattach": volume["multiattach"],
            "metadata": volume["metadata"],
            "attachments": self.backend.volume_attachments(volume),
            "links": self._links(request, volume),
            "user_id": volume["user_id"],
            "os-vol-tenant-attr:tenant_id": volume["project_id"],
            "replication_status": volume["replication_status"],
            "consistencygroup_id": volume["consistencygroup_id"],
            "os-vol-mig-status-attr:migstat": None,
            "os-vol-mig-status-attr:name_id": None,
        }
        if ctx.is_admin:
            shown["os-vol-host-attr:host"] = HOST
        if ctx.at_least(3, 13):
            shown["group_id"] = volume["group_id"]
        if ctx.at_least(3, 21):
            shown["provider_id"] = None
        if ctx.at_least(3, 48):
            shown["service_uuid"] = "9f0c3e2a-5b1d-4c8e-8a57-5a4c2b1d0e01"
            shown["shared_targets"] = False
        if ctx.at_least(3, 61):
            shown["cluster_name"] = None
        if ctx.at_least(3, 63):
            shown["volume_type_id"] = volume["volume_type_id"]
        if ctx.at_least(3, 65):
            shown["consumes_quota"] = True
        if volume.get("_image"):
            shown["volume_image_metadata"] = dict(volume["_image"])
        return shown

    def _listed(self, request: Request, ctx: RequestContext) -> list[Document]:
        everyone = boolean(request.query_params.get("all_tenants"), "all_tenants")
        project = None if everyone and ctx.is_admin else self._scope(request, ctx)
        volumes = self.backend.volumes(project)
        for key in ("name", "status", "bootable", "availability_zone"):
            wanted = request.query_params.get(key)
            if wanted is not None:
                volumes = [v for v in volumes if str(v.get(key)) == wanted]
        return paginate(request, volumes)

    async def list_volumes(self, request: Request, ctx: RequestContext) -> Response:
        """``/volumes`` (names and links) and ``/volumes/detail``."""
        volumes = self._listed(request, ctx)
        if request.url.path.endswith("/detail"):
            return reply({"volumes": [self._view(request, ctx, v) for v in volumes]})
        summaries = [
            {"id": v["id"], "name": v["name"], "links": self._links(request, v)} for v in volumes
        ]
        return reply({"volumes": summaries})

    async def create_volume(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="volume")
        project = self._scope(request, ctx) or ctx.project_id
        with self.backend.transaction():
            volume = self.backend.create(project, ctx.user_id, body)
        return reply({"volume": self._view(request, ctx, volume)}, 202)

    async def show_volume(self, request: Request, ctx: RequestContext) -> Response:
        volume = self.backend.get(request.path_params["volume_id"], self._scope(request, ctx))
        return reply({"volume": self._view(request, ctx, volume)})

    async def update_volume(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="volume")
        with self.backend.transaction():
            volume = self.backend.update(
                request.path_params["volume_id"], self._scope(request, ctx), body
            )
        return reply({"volume": self._view(request, ctx, volume)})

    async def delete_volume(self, request: Request, ctx: RequestContext) -> Response:
        with self.backend.transaction():
            self.backend.delete(request.path_params["volume_id"], self._scope(request, ctx))
        return no_content(202)

    async def volume_action(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        if len(body) != 1:
            raise BadRequest("There should be exactly one action in the request body.")
        ((action, argument),) = body.items()
        argument = argument if isinstance(argument, dict) else {}
        id, scope = request.path_params["volume_id"], self._scope(request, ctx)
        b = self.backend
        if action in ("os-reset_status", "os-force_delete"):
            ctx.require_admin("volume_extension:volume_admin_actions")
        if action == "os-initialize_connection":
            volume = b.get(id, scope)
            connector = argument.get("connector") or {}
            if not isinstance(connector, dict):
                raise BadRequest("Invalid input received: connector must be a mapping")
            return reply({"connection_info": b.connection_info(volume, connector)})
        changes: dict[str, Callable[[], object]] = {
            "os-extend": lambda: b.extend(id, scope, argument.get("new_size")),
            "os-reserve": lambda: b.reserve(id, scope),
            "os-unreserve": lambda: b.unreserve(id, scope),
            "os-attach": lambda: b.attach_action(id, scope, argument),
            "os-begin_detaching": lambda: b.begin_detaching(id, scope),
            "os-roll_detaching": lambda: b.roll_detaching(id, scope),
            "os-detach": lambda: b.detach_action(id, scope, argument),
            "os-terminate_connection": lambda: b.get(id, scope),
            "os-set_bootable": lambda: b.set_bootable(id, scope, argument.get("bootable")),
            "os-reset_status": lambda: b.reset_status(id, scope, argument),
            "os-force_delete": lambda: b.delete(id, scope, force=True),
            "os-update_readonly_flag": lambda: b.set_readonly(id, scope, argument.get("readonly")),
            "os-retype": lambda: b.retype(id, scope, argument),
        }
        if action not in changes:
            raise BadRequest(f"There is no such action: {action}")
        with b.transaction():
            changes[action]()
        return reply({}) if action == "os-set_bootable" else no_content(202)

    # volume types

    async def list_types(self, request: Request, ctx: RequestContext) -> Response:
        return reply({"volume_types": self.backend.types()})

    async def show_type(self, request: Request, ctx: RequestContext) -> Response:
        """``/types/{id}`` (by id or name) and ``/types/default``."""
        name_or_id = request.path_params.get("type_id", DEFAULT_TYPE)
        return reply({"volume_type": self.backend.get_type(name_or_id)})

    async def create_type(self, request: Request, ctx: RequestContext) -> Response:
        ctx.require_admin("volume_extension:types_manage")
        body = await read_json(request, required="volume_type")
        with self.backend.transaction():
            volume_type = self.backend.create_type(body)
        return reply({"volume_type": volume_type})

    async def delete_type(self, request: Request, ctx: RequestContext) -> Response:
        ctx.require_admin("volume_extension:types_manage")
        with self.backend.transaction():
            self.backend.delete_type(request.path_params["type_id"])
        return no_content(202)

    # attachments (3.27 and later)

    async def list_attachments(self, request: Request, ctx: RequestContext) -> Response:
        found = self.backend.attachments(self._scope(request, ctx))
        wanted = request.query_params.get("volume_id")
        if wanted:
            found = [a for a in found if a["volume_id"] == wanted]
        if request.url.path.endswith("/detail"):
            shown = [public(a) for a in found]
        else:
            shown = [{k: a[k] for k in ("id", "volume_id", "instance", "status")} for a in found]
        return reply({"attachments": shown})

    async def create_attachment(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="attachment")
        with self.backend.transaction():
            attachment = self.backend.create_attachment(ctx.project_id, body)
        return reply({"attachment": public(attachment)})

    async def show_attachment(self, request: Request, ctx: RequestContext) -> Response:
        attachment = self.backend.get_attachment(
            request.path_params["attachment_id"], self._scope(request, ctx)
        )
        return reply({"attachment": public(attachment)})

    async def update_attachment(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="attachment")
        with self.backend.transaction():
            attachment = self.backend.update_attachment(
                request.path_params["attachment_id"], ctx.project_id, body.get("connector")
            )
        return reply({"attachment": public(attachment)})

    async def delete_attachment(self, request: Request, ctx: RequestContext) -> Response:
        with self.backend.transaction():
            remaining = self.backend.delete_attachment(
                request.path_params["attachment_id"], ctx.project_id
            )
        return reply({"attachments": [public(a) for a in remaining]})

    async def complete(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        if "os-complete" not in body:
            raise BadRequest(f"There is no such action: {', '.join(body)}")
        with self.backend.transaction():
            self.backend.complete_attachment(request.path_params["attachment_id"], ctx.project_id)
        return no_content()

    async def quota_set(self, request: Request, ctx: RequestContext) -> Response:
        """``os-quota-sets/{project}`` (``?usage=True``: with use; ``/defaults``)."""
        target = request.path_params["target_id"]
        if not ctx.reaches(target):
            raise policy_refusal("volume_extension:quotas:show")
        usage = boolean(request.query_params.get("usage"), "usage")
        used = self.backend.usage(target)
        quota: Document = {"id": target}
        for resource in QUOTA_RESOURCES:
            limit = self.backend.quota(resource)
            if usage and not request.url.path.endswith("/defaults"):
                quota[resource] = {
                    "limit": limit,
                    "in_use": used.get(resource, 0),
                    "reserved": 0,
                    "allocated": 0,
                }
            else:
                quota[resource] = limit
        return reply({"quota_set": quota})

    async def zones(self, request: Request, ctx: RequestContext) -> Response:
        zone = {"zoneName": "nova", "zoneState": {"available": True}}
        return reply({"availabilityZoneInfo": [zone]})

    # backups (what Heat's deletion_policy Snapshot makes of a volume)

    async def list_backups(self, request: Request, ctx: RequestContext) -> Response:
        found = self.backups.list(self._scope(request, ctx))
        if request.url.path.endswith("/detail"):
            return reply({"backups": [backups.view(b) for b in found]})
        summary = [{"id": b["id"], "name": b["name"]} for b in found]
        return reply({"backups": summary})

    async def create_backup(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="backup")
        with self.backend.transaction():
            backup = self.backups.create(ctx.project_id, body)
        return reply({"backup": {"id": backup["id"], "name": backup["name"]}}, 202)

    async def show_backup(self, request: Request, ctx: RequestContext) -> Response:
        backup = self.backups.get(request.path_params["backup_id"], self._scope(request, ctx))
        return reply({"backup": backups.view(backup)})

    async def delete_backup(self, request: Request, ctx: RequestContext) -> Response:
        with self.backend.transaction():
            self.backups.delete(request.path_params["backup_id"], self._scope(request, ctx))
        return no_content(202)

    def operations(self) -> list[Operation]:
        p = "/{project_id}"
        volume, types = p + "/volumes/{volume_id}", p + "/types"
        attachments, backups, quotas = p + "/attachments", p + "/backups", p + "/os-quota-sets"
        attachment = attachments + "/{attachment_id}"
        table = [
            ("GET", p + "/volumes", "volumes.list", self.list_volumes),
            ("GET", p + "/volumes/detail", "volumes.list", self.list_volumes),
            ("POST", p + "/volumes", "volumes.create", self.create_volume),
            ("GET", volume, "volumes.show", self.show_volume),
            ("PUT", volume, "volumes.update", self.update_volume),
            ("DELETE", volume, "volumes.delete", self.delete_volume),
            ("POST", volume + "/action", "volumes.action", self.volume_action),
            ("GET", types, "types.list", self.list_types),
            ("GET", types + "/default", "types.default", self.show_type),
            ("GET", types + "/{type_id}", "types.show", self.show_type),
            ("POST", types, "types.create", self.create_type),
            ("DELETE", types + "/{type_id}", "types.delete", self.delete_type),
            ("GET", backups, "backups.list", self.list_backups),
            ("GET", backups + "/detail", "backups.list", self.list_backups),
            ("POST", backups, "backups.create", self.create_backup),
            ("GET", backups + "/{backup_id}", "backups.show", self.show_backup),
            ("DELETE", backups + "/{backup_id}", "backups.delete", self.delete_backup),
            ("GET", quotas + "/{target_id}", "quotas.show", self.quota_set),
            ("GET", quotas + "/{target_id}/defaults", "quotas.defaults", self.quota_set),
            ("GET", p + "/os-availability-zone", "availability_zones.list", self.zones),
        ]
        attaching = [  # the attachments API, from 3.27
            ("GET", attachments, "attachments.list", self.list_attachments),
            ("GET", attachments + "/detail", "attachments.list", self.list_attachments),
            ("POST", attachments, "attachments.create", self.create_attachment),
            ("GET", attachment, "attachments.show", self.show_attachment),
            ("PUT", attachment, "attachments.update", self.update_attachment),
            ("DELETE", attachment, "attachments.delete", self.delete_attachment),
        ]
        complete = [("POST", attachment + "/action", "attachments.complete", self.complete)]
        return [
            *version_routes("/v3", lambda base: {"versions": [_version(base)]}),
            *routes("/v3", table),
            *routes("/v3", attaching, since=(3, 27)),
            *routes("/v3", complete, since=(3, 44)),
        ]


SERVICE = Service(
    name="cinderv3",
    type="block-storage",
    prefix="/volume",
    make_backend=CinderBackend,
    operations=lambda backend: CinderApi(backend).operations(),
    versions=versions,
    error_body=error_body,
    endpoint_path="/volume/v3",
    microversions=MICROVERSIONS,
    project_in_url=True,
)
