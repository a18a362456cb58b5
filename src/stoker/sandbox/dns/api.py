"""Designate's DNS v2 API over `DesignateBackend`: ``/dns/v2/zones[/{id}/recordsets]``.

Lists as Designate pages them (``links`` with ``next``, ``metadata.total_count``),
filtered on any attribute; zones and recordsets answered with 202 while they are
``PENDING``; errors as Designate writes them: ``{"code", "type", "message",
"request_id"}`` (and the schema's ``errors`` for ``invalid_object``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.sandbox.dns.backend import DesignateBackend, InvalidObject
from stoker.sandbox.http import base_url, link, next_page, paginate, public, read_json, reply
from stoker.sandbox.http_errors import ApiError
from stoker.sandbox.service import (
    Handler,
    Operation,
    RequestContext,
    Service,
    routes,
    version_routes,
)
from stoker.sandbox.store import Document

CONTROL = {"limit", "marker", "sort_key", "sort_dir"}
#: Designate's error types by status, for errors raised without one
TYPES = {
    400: "bad_request",
    401: "authentication_required",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "over_quota",
    500: "unknown",
    503: "service_unavailable",
}


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    href = f"{base}/dns/v2/"
    return 200, {
        "versions": [
            {"id": "v2.1", "status": "CURRENT", "links": [link(href)]},
            {"id": "v2.0", "status": "SUPPORTED", "links": [link(href)]},
        ]
    }


def error_body(error: ApiError) -> Response:
    kind = error.kind if error.kind != type(error).__name__ else TYPES.get(error.status, "unknown")
    body: Document = {"code": error.status, "type": kind, "message": error.message}
    if isinstance(error, InvalidObject):
        body["errors"] = {"errors": error.errors}
    return JSONResponse(body, status_code=error.status)


def _view(document: Document, base: str) -> Document:
    shown = public(document)
    if "zone_id" in document:
        path = f"/dns/v2/zones/{document['zone_id']}/recordsets/{document['id']}"
    else:
        path = f"/dns/v2/zones/{document['id']}"
    shown["links"] = {"self": base + path}
    return shown


def _zone(request: Request) -> str:
    return str(request.path_params["zone_id"])


def _recordset(request: Request) -> tuple[str, str]:
    """The ids of the zone and the recordset the path names."""
    return _zone(request), str(request.path_params["recordset_id"])


def _matches(value: Any, wanted: str) -> bool:
    if isinstance(value, list):
        return wanted in [str(v) for v in value]
    return fnmatch.fnmatchcase(str(value), wanted.replace("%", "*"))


class DesignateApi:
    def __init__(self, backend: DesignateBackend) -> None:
        self.backend = backend

    @staticmethod
    def _scope(request: Request, ctx: RequestContext) -> str | None:
        """Whose zones: the caller's project's, even for an admin, unless an admin asks
        for every project's (``X-Auth-All-Projects: true``), as Designate scopes them."""
        every = request.headers.get("x-auth-all-projects", "").lower() in ("true", "1")
        return None if ctx.is_admin and every else ctx.project_id

    def _listing(self, request: Request, key: str, documents: list[Document]) -> Response:
        base = base_url(request)
        shown = [_view(d, base) for d in documents]
        for name, value in request.query_params.items():
            if name not in CONTROL:
                shown = [d for d in shown if _matches(d.get(name), value)]
        total = len(shown)
        page = paginate(request, shown)
        links: Document = {"self": str(request.url)}
        following = next_page(request, page)
        if following is not None and page[-1] is not shown[-1]:
            links["next"] = following
        return reply({key: page, "links": links, "metadata": {"total_count": total}})

    async def list_zones(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.settle()
        return self._listing(request, "zones", self.backend.zones(self._scope(request, ctx)))

    async def show_zone(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.settle()
        zone = self.backend.zone(_zone(request), self._scope(request, ctx))
        return reply(_view(zone, base_url(request)))

    async def list_recordsets(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.settle()
        zone_id = request.path_params.get("zone_id")
        documents = self.backend.recordsets(zone_id, self._scope(request, ctx))
        return self._listing(request, "recordsets", documents)

    async def show_recordset(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.settle()
        found = self.backend.recordset(
            request.path_params.get("zone_id"),
            request.path_params["recordset_id"],
            self._scope(request, ctx),
        )
        return reply(_view(found, base_url(request)))

    def _changer(self, change: Callable[[Request, RequestContext, Any], Document]) -> Handler:
        """The handler of a change: its body read (a delete takes none), what the clock
        says is done settled, then the change, in one transaction; 202 with the zone or
        recordset as it is now."""

        async def handler(request: Request, ctx: RequestContext) -> Response:
            body = None if request.method == "DELETE" else await read_json(request)
            self.backend.settle()
            with self.backend.transaction():
                changed = change(request, ctx, body)
            return reply(_view(changed, base_url(request)), 202)

        return handler

    def operations(self) -> list[Operation]:
        zone = "/zones/{zone_id}"
        recordsets = zone + "/recordsets"
        recordset = recordsets + "/{recordset_id}"
        b, scope, change = self.backend, self._scope, self._changer
        create_zone = change(lambda r, ctx, body: b.create_zone(ctx.project_id, body))
        update_zone = change(lambda r, ctx, body: b.update_zone(_zone(r), scope(r, ctx), body))
        delete_zone = change(lambda r, ctx, _: b.delete_zone(_zone(r), scope(r, ctx)))
        create = change(lambda r, ctx, body: b.create_recordset(_zone(r), scope(r, ctx), body))
        update = change(
            lambda r, ctx, body: b.update_recordset(*_recordset(r), scope(r, ctx), body)
        )
        delete = change(lambda r, ctx, _: b.delete_recordset(*_recordset(r), scope(r, ctx)))
        table = [
            ("GET", "/zones", "zones.list", self.list_zones),
            ("POST", "/zones", "zones.create", create_zone),
            ("GET", zone, "zones.show", self.show_zone),
            ("PATCH", zone, "zones.update", update_zone),
            ("DELETE", zone, "zones.delete", delete_zone),
            ("GET", recordsets, "recordsets.list", self.list_recordsets),
            ("POST", recordsets, "recordsets.create", create),
            ("GET", recordset, "recordsets.show", self.show_recordset),
            ("PUT", recordset, "recordsets.update", update),
            ("DELETE", recordset, "recordsets.delete", delete),
            ("GET", "/recordsets", "recordsets.list", self.list_recordsets),
            ("GET", "/recordsets/{recordset_id}", "recordsets.show", self.show_recordset),
        ]
        return version_routes("/v2", lambda base: versions(base)[1]) + routes("/v2", table)


SERVICE = Service(
    name="designate",
    type="dns",
    prefix="/dns",
    make_backend=DesignateBackend,
    operations=lambda backend: DesignateApi(backend).operations(),
    versions=versions,
    error_body=error_body,
)
