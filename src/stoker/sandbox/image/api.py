"""Glance v2's REST API over `ImageBackend`: ``/image/v2/...``."""

from __future__ import annotations

import asyncio
import html
import logging
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from stoker.sandbox.http import (
    base_url,
    link,
    no_content,
    public,
    read_body,
    read_json,
    read_json_value,
    reply,
)
from stoker.sandbox.http_errors import ApiError, BadRequest
from stoker.sandbox.image.backend import (
    IMPORT_LIMIT,
    IMPORT_METHODS,
    READ_ONLY,
    ImageBackend,
    import_allowed,
)
from stoker.sandbox.service import Operation, RequestContext, Service, routes
from stoker.sandbox.store import Document

logger = logging.getLogger("stoker.sandbox")

CURRENT = "2.16"
#: Glance's own list of the versions a v2 server speaks (newest first)
SUPPORTED = ("2.15", "2.14", "2.13", "2.12", "2.11", "2.10", "2.9", "2.8", "2.7", "2.6")


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    href = f"{base}/image/v2/"
    entries = [{"id": f"v{CURRENT}", "status": "CURRENT", "links": [link(href)]}]
    entries += [{"id": f"v{v}", "status": "SUPPORTED", "links": [link(href)]} for v in SUPPORTED]
    return 300, {"versions": entries}


def error_body(error: ApiError) -> Response:
    """Glance answers errors in the HTML page its WSGI layer (webob) renders (clients
    strip the tags: openstacksdk shows ``404 Not Found: No image found with ID ...``)."""
    status = f"{error.status} {error.title}"
    page = (
        f"<html>\n <head>\n  <title>{status}</title>\n </head>\n <body>\n"
        f"  <h1>{status}</h1>\n  {html.escape(error.message, quote=False)}<br /><br />\n\n\n\n"
        " </body>\n</html>"
    )
    return HTMLResponse(page, status_code=error.status)


_PAGE_SIZE = 25
_FILTERS_NOT_PROPERTIES = frozenset(
    {"limit", "marker", "sort_key", "sort_dir", "sort", "member_status", "tag"}
)


class ImageApi:
    def __init__(self, backend: ImageBackend) -> None:
        self.backend = backend

    async def list_images(self, request: Request, ctx: RequestContext) -> Response:
        query = request.query_params
        visibility = query.get("visibility")
        images = self.backend.images(ctx) if visibility is None else self.backend.all_images(ctx)
        if visibility not in (None, "all"):
            images = [i for i in images if i["visibility"] == visibility]
        for tag in query.getlist("tag"):
            images = [i for i in images if tag in i["tags"]]
        for key, wanted in query.items():
            if key in _FILTERS_NOT_PROPERTIES or key == "visibility":
                continue
            if key in ("size_min", "size_max"):
                bound = int(wanted)
                images = [
                    i
                    for i in images
                    if i["size"] is not None
                    and (i["size"] >= bound if key == "size_min" else i["size"] <= bound)
                ]
                continue
            if wanted.startswith("in:"):
                options = wanted[3:].split(",")
                images = [i for i in images if str(i.get(key)) in options]
            else:
                images = [i for i in images if _text(i.get(key)) == wanted]
        images = self._sorted(
            query.get("sort_key", "created_at"), query.get("sort_dir", "desc"), images
        )
        marker = query.get("marker")
        if marker:
            ids = [i["id"] for i in images]
            if marker not in ids:
                raise BadRequest(f"marker {marker} could not be found.")
            images = images[ids.index(marker) + 1 :]
        try:
            limit = int(query.get("limit", _PAGE_SIZE))
        except ValueError:
            raise BadRequest("limit param must be an integer") from None
        if limit < 0:
            raise BadRequest("limit param must be positive")
        page = images[:limit]
        body: Document = {
            "images": [public(i) for i in page],
            "first": "/v2/images",
            "schema": "/v2/schemas/images",
        }
        if len(images) > limit and page:
            params = {k: v for k, v in query.items() if k != "marker"}
            params["marker"] = page[-1]["id"]
            body["next"] = f"/v2/images?{urlencode(params)}"
        return reply(body)

    @staticmethod
    def _sorted(key: str, direction: str, images: list[Document]) -> list[Document]:
        if direction not in ("asc", "desc"):
            raise BadRequest(f"Invalid sort direction: {direction}")
        return sorted(
            images,
            key=lambda i: (i.get(key) is None, _text(i.get(key)), i["created_at"]),
            reverse=direction == "desc",
        )

    async def create_image(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        image = self.backend.create(ctx, body)
        headers = {"location": f"{base_url(request)}/image/v2/images/{image['id']}"}
        return reply(public(image), 201, headers)

    async def show_image(self, request: Request, ctx: RequestContext) -> Response:
        return reply(public(self.backend.image(ctx, request.path_params["image_id"])))

    async def update_image(self, request: Request, ctx: RequestContext) -> Response:
        patch = await read_json_value(request)
        image = self.backend.update(ctx, request.path_params["image_id"], patch)
        return reply(public(image))

    async def delete_image(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.delete(ctx, request.path_params["image_id"])
        return no_content()

    async def upload(self, request: Request, ctx: RequestContext) -> Response:
        data = await read_body(request, IMPORT_LIMIT, "image data")
        self.backend.upload(ctx, request.path_params["image_id"], data)
        return no_content()

    async def download(self, request: Request, ctx: RequestContext) -> Response:
        image_id = request.path_params["image_id"]
        data = self.backend.data(ctx, image_id)
        if data is None:
            return no_content()
        image = self.backend.image(ctx, image_id)
        headers = {"content-md5": image["checksum"] or ""}
        return Response(data, media_type="application/octet-stream", headers=headers)

    async def tag(self, request: Request, ctx: RequestContext) -> Response:
        """PUT adds the tag, DELETE removes it."""
        params, present = request.path_params, request.method == "PUT"
        self.backend.set_tag(ctx, params["image_id"], params["tag"], present)
        return no_content()

    async def set_active(self, request: Request, ctx: RequestContext) -> Response:
        """``actions/deactivate`` and ``actions/reactivate``."""
        active = request.url.path.endswith("/reactivate")
        self.backend.set_active(ctx, request.path_params["image_id"], active)
        return no_content()

    async def image_schema(self, request: Request, ctx: RequestContext) -> Response:
        return reply(_schema())

    async def images_schema(self, request: Request, ctx: RequestContext) -> Response:
        return reply(
            {
                "name": "images",
                "properties": {
                    "images": {"type": "array", "items": _schema()},
                    "schema": {"type": "string"},
                    "first": {"type": "string"},
                    "next": {"type": "string"},
                },
                "links": [
                    {"rel": "first", "href": "{first}"},
                    {"rel": "next", "href": "{next}"},
                    {"rel": "describedby", "href": "{schema}"},
                ],
            }
        )

    async def import_info(self, request: Request, ctx: RequestContext) -> Response:
        methods = {"description": "Import methods", "type": "array", "value": list(IMPORT_METHODS)}
        return reply({"import-methods": methods})

    async def import_image(self, request: Request, ctx: RequestContext) -> Response:
        image_id = request.path_params["image_id"]
        uri = self.backend.begin_import(ctx, image_id, await read_json(request))
        data = await asyncio.to_thread(_fetch, uri, self.backend.hub.config.import_allow)
        self.backend.finish_import(image_id, data)
        return Response(status_code=202)

    async def stores_info(self, request: Request, ctx: RequestContext) -> Response:
        return reply(
            {
                "stores": [
                    {"id": "sandbox", "description": "the sandbox's database", "default": True}
                ]
            }
        )

    def operations(self) -> list[Operation]:
        image, actions = "/images/{image_id}", "/images/{image_id}/actions"
        table = [
            ("GET", "/images", "images.list", self.list_images),
            ("POST", "/images", "images.create", self.create_image),
            ("GET", image, "images.show", self.show_image),
            ("PATCH", image, "images.update", self.update_image),
            ("DELETE", image, "images.delete", self.delete_image),
            ("PUT", image + "/file", "images.upload", self.upload),
            ("GET", image + "/file", "images.download", self.download),
            ("PUT", image + "/tags/{tag}", "tags.add", self.tag),
            ("DELETE", image + "/tags/{tag}", "tags.delete", self.tag),
            ("POST", image + "/import", "images.import", self.import_image),
            ("POST", actions + "/deactivate", "images.deactivate", self.set_active),
            ("POST", actions + "/reactivate", "images.reactivate", self.set_active),
            ("GET", "/schemas/image", "schemas.image", self.image_schema),
            ("GET", "/schemas/images", "schemas.images", self.images_schema),
            ("GET", "/info/import", "info.import", self.import_info),
            ("GET", "/info/stores", "info.stores", self.stores_info),
        ]
        return routes("/v2", table)


def _fetch(uri: str, allowed: tuple[str, ...]) -> bytes | None:
    """A web-download's data (None when the URI cannot be read, redirects to a host not
    on ``allowed``, or holds more than the sandbox keeps). Any port is allowed: the
    sandbox serves tests, which serve their images from a local server (Glance's defaults
    allow only 80 and 443)."""
    opener = urllib.request.build_opener(_AllowedRedirects(allowed))
    try:
        with opener.open(uri, timeout=30) as response:
            data = bytes(response.read(IMPORT_LIMIT + 1))
    except (OSError, ValueError, urllib.error.URLError) as error:
        logger.warning("web-download of %s failed: %s", uri, error)
        return None
    return data if len(data) <= IMPORT_LIMIT else None


class _AllowedRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a host on the allow-list: an allowed host must not
    lead the fetch to one that is not (the sandbox's loopback services, say)."""

    def __init__(self, allowed: tuple[str, ...]) -> None:
        self.allowed = allowed

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        if not import_allowed(newurl, self.allowed):
            raise urllib.error.URLError(f"redirected to {newurl}, not on --import-allow")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _schema() -> Document:
    string = {"type": ["null", "string"]}
    properties: Document = {
        "id": {"type": "string"},
        "name": {"type": ["null", "string"], "maxLength": 255},
        "visibility": {"type": "string", "enum": ["public", "private", "shared", "community"]},
        "protected": {"type": "boolean"},
        "os_hidden": {"type": "boolean"},
        "min_disk": {"type": "integer"},
        "min_ram": {"type": "integer"},
        "disk_format": string,
        "container_format": string,
        "tags": {"type": "array", "items": {"type": "string"}},
    }
    for name in sorted(READ_ONLY):
        properties[name] = {"readOnly": True}
    return {
        "name": "image",
        "properties": properties,
        "additionalProperties": {"type": "string"},
        "links": [
            {"rel": "self", "href": "{self}"},
            {"rel": "enclosure", "href": "{file}"},
            {"rel": "describedby", "href": "{schema}"},
        ],
    }


SERVICE = Service(
    name="glance",
    type="image",
    prefix="/image",
    make_backend=ImageBackend,
    operations=lambda backend: ImageApi(backend).operations(),
    versions=versions,
    error_body=error_body,
)
