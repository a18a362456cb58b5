"""Neutron's REST API (v2.0) over `NeutronBackend`: ``/network/v2.0/...``.

Every collection answers as Neutron's does: list (filters on any attribute, ``fields``,
``limit``/``marker``), create (one object or a bulk list), show, update, delete; errors as
``{"NeutronError": {"type", "message", "detail"}}``. An admin sees every project's
objects, as in Neutron; others see their own and the shared and external networks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.sandbox.http import base_url, link, no_content, paginate, public, read_json, reply
from stoker.sandbox.http_errors import ApiError, BadRequest
from stoker.sandbox.network.backend import NeutronBackend
from stoker.sandbox.network.records import Records
from stoker.sandbox.service import Operation, RequestContext, Service, routes
from stoker.sandbox.store import Document, copy_document

#: query parameters that are not filters
CONTROL = {"fields", "limit", "marker", "sort_key", "sort_dir", "page_reverse", "verbose"}

#: the resources Neutron counts against a project's quota
QUOTA_RESOURCES = (
    "network",
    "subnet",
    "port",
    "router",
    "floatingip",
    "security_group",
    "security_group_rule",
    "rbac_policy",
    "subnetpool",
)

#: the API extensions the sandbox implements (and only those: clients and Heat check them
#: before using a feature), as ``GET /v2.0/extensions`` lists them
EXTENSIONS = {
    "allowed-address-pairs": "Allowed Address Pairs",
    "availability_zone": "Availability Zone",
    "binding": "Port Binding",
    "dns-integration": "DNS Integration",
    "external-net": "Neutron external network",
    "ext-gw-mode": "Neutron L3 Configurable external gateway mode",
    "extra_dhcp_opt": "Neutron Extra DHCP options",
    "extraroute": "Neutron Extra Route",
    "net-mtu": "Network MTU",
    "network_availability_zone": "Network Availability Zone",
    "port-security": "Port Security",
    "project-id": "project_id field enabled",
    "provider": "Provider Network",
    "quotas": "Quota management support",
    "quota_details": "Quota details management support",
    "router": "Neutron L3 Router",
    "router_availability_zone": "Router Availability Zone",
    "security-group": "security-group",
    "standard-attr-description": "standard-attr-description",
    "standard-attr-revisions": "Resource revision numbers",
    "standard-attr-tag": "Tag support for resources with standard attribute",
    "tag-creation": "Tag support for resources on creation",
    "standard-attr-timestamp": "Resource timestamps",
    "stateful-security-group": "Stateful security group",
}


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    return 200, {
        "versions": [{"id": "v2.0", "status": "CURRENT", "links": [link(f"{base}/network/v2.0/")]}]
    }


def error_body(error: ApiError) -> Response:
    body = {"NeutronError": {"type": error.kind, "message": error.message, "detail": ""}}
    return JSONResponse(body, status_code=error.status)


def _matches(document: Mapping[str, Any], key: str, wanted: list[str]) -> bool:
    """Neutron's filter: the attribute equals one of the values asked for."""
    if key == "fixed_ips":
        # ``fixed_ips=ip_address=10.0.0.3`` / ``fixed_ips=subnet_id=...``
        for condition in wanted:
            field, _, value = condition.partition("=")
            if not any(str(ip.get(field)) == value for ip in document.get("fixed_ips", [])):
                return False
        return True
    if key in ("tags", "tags-any", "not-tags", "not-tags-any"):
        tags = set(document.get("tags") or [])
        asked = {t for w in wanted for t in w.split(",")}
        found = asked <= tags if key.endswith("tags") else bool(asked & tags)
        return found if not key.startswith("not-") else not found
    if key not in document:
        return True  # Neutron ignores filters on attributes a resource lacks
    value = document[key]
    if isinstance(value, bool):
        return str(value).lower() in {w.lower() for w in wanted}
    if isinstance(value, list):
        return any(w in [str(v) for v in value] for w in wanted)
    return ("" if value is None else str(value)) in wanted


@dataclass(frozen=True)
class Collection:
    """One collection's path, keys and the backend calls behind them."""

    path: str  # ``networks``
    key: str  # ``network``
    records: Records
    create: Callable[[str, Mapping[str, Any]], Document]
    update: Callable[[str, str | None, Mapping[str, Any]], Document]
    delete: Callable[[str, str | None], None]
    view: Callable[[Document], Document] = public
    before_list: Callable[[str], Any] | None = None

    @property
    def param(self) -> str:
        """The path parameter of one item's id: ``network_id``."""
        return f"{self.key}_id"


class NeutronApi:
    """The handlers; one instance per sandbox."""

    def __init__(self, backend: NeutronBackend) -> None:
        self.backend = backend
        b, security = backend, backend.security
        self.collections = [
            Collection(
                "networks", "network", b.networks.records, b.networks.create,
                b.networks.update, b.delete_network,
            ),
            Collection(
                "subnets", "subnet", b.subnets.records, b.subnets.create,
                b.subnets.update, b.delete_subnet,
            ),
            Collection(
                "ports", "port", b.ports.records, b.ports.create, b.ports.update, b.delete_port
            ),
            Collection(
                "routers", "router", b.routers.records, b.routers.create,
                lambda id, project, body: b.routers.update(id, project, body, b.floating_ips),
                b.routers.delete,
            ),
            Collection(
                "floatingips", "floatingip", b.floating_ips.records, b.floating_ips.create,
                b.floating_ips.update, b.floating_ips.delete,
            ),
            Collection(
                "security-groups", "security_group", security.groups, security.create_group,
                security.update_group, b.delete_security_group,
                view=security.show_group, before_list=security.default_group,
            ),
            Collection(
                "security-group-rules", "security_group_rule", security.rules,
                security.create_rule,
                lambda id, project, body: security.rules.get(id, project),  # rules do not change
                security.delete_rule,
                before_list=security.default_group,
            ),
        ]  # fmt: skip

    # the handlers of every collection

    async def _list(self, c: Collection, request: Request, ctx: RequestContext) -> Response:
        if c.before_list is not None:
            with self.backend.transaction():
                c.before_list(ctx.project_id)
        filters: dict[str, list[str]] = {}
        for key, value in request.query_params.multi_items():
            if key not in CONTROL:
                filters.setdefault(key, []).append(value)
        # filtered on the store's own documents, and only those kept are copied: a
        # ``?device_id=`` lookup among hundreds of ports copies a few
        items = [
            copy_document(item)
            for item in c.records.scan(ctx.scope)
            if all(_matches(item, key, wanted) for key, wanted in filters.items())
        ]
        fields = request.query_params.getlist("fields")
        shown = [_only(fields, c.view(item)) for item in paginate(request, items)]
        return reply({c.path.replace("-", "_"): shown})

    async def _create(self, c: Collection, request: Request, ctx: RequestContext) -> Response:
        plural = c.path.replace("-", "_")
        body = await read_json(request)
        if plural in body and isinstance(body[plural], list):
            bodies, bulk = body[plural], True
        elif isinstance(body.get(c.key), dict):
            bodies, bulk = [body[c.key]], False
        else:
            raise BadRequest(f"Unable to find '{c.key}' in request body", kind="HTTPBadRequest")
        created = []
        with self.backend.transaction():
            for item in bodies:
                if not isinstance(item, dict):
                    raise BadRequest("Body contains invalid data", kind="HTTPBadRequest")
                project, item = _owner(ctx, item)
                created.append(c.view(c.create(project, item)))
        if bulk:
            return reply({plural: created}, 201)
        return reply({c.key: created[0]}, 201)

    async def _show(self, c: Collection, request: Request, ctx: RequestContext) -> Response:
        item = c.records.get(request.path_params[c.param], ctx.scope)
        return reply({c.key: _only(request.query_params.getlist("fields"), c.view(item))})

    async def _update(self, c: Collection, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required=c.key)
        with self.backend.transaction():
            item = c.update(request.path_params[c.param], ctx.scope, body)
        return reply({c.key: c.view(item)})

    async def _delete(self, c: Collection, request: Request, ctx: RequestContext) -> Response:
        with self.backend.transaction():
            c.delete(request.path_params[c.param], ctx.scope)
        return no_content()

    # the rest of the API

    async def root(self, request: Request, ctx: RequestContext) -> Response:
        base = base_url(request)
        return reply(
            {
                "resources": [
                    {
                        "name": c.key,
                        "collection": c.path,
                        "links": [link(f"{base}/network/v2.0/{c.path}")],
                    }
                    for c in self.collections
                ]
            }
        )

    async def extensions(self, request: Request, ctx: RequestContext) -> Response:
        return reply({"extensions": [_extension(a, n) for a, n in EXTENSIONS.items()]})

    async def extension(self, request: Request, ctx: RequestContext) -> Response:
        alias = request.path_params["alias"]
        if alias not in EXTENSIONS:
            raise ApiError(
                f"Extension with alias {alias} does not exist", status=404, kind="HTTPNotFound"
            )
        return reply({"extension": _extension(alias, EXTENSIONS[alias])})

    async def add_interface(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        with self.backend.transaction():
            info = self.backend.routers.add_interface(
                request.path_params["router_id"], ctx.scope, body
            )
        return reply(info)

    async def remove_interface(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request)
        with self.backend.transaction():
            info = self.backend.routers.remove_interface(
                request.path_params["router_id"],
                ctx.scope,
                body,
                self.backend.floating_ips,
            )
        return reply(info)

    async def _tags(
        self, c: Collection, action: str, request: Request, ctx: RequestContext
    ) -> Response:
        """``/{collection}/{id}/tags`` (the ``standard-attr-tag`` extension): replace all,
        show, add one, check one, remove one, remove all."""
        records = c.records
        item = records.get(request.path_params[c.param], ctx.scope)
        tag = request.path_params.get("tag")
        if action == "show":
            return reply({"tags": item["tags"]})
        if action in ("check", "remove") and tag not in item["tags"]:
            raise ApiError(f"Tag {tag} could not be found.", status=404, kind="TagNotFound")
        if action == "check":
            return no_content()
        if action == "replace":
            body = await read_json(request)
            tags = body.get("tags")
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise BadRequest("Invalid input for tags.", kind="HTTPBadRequest")
            item["tags"] = list(dict.fromkeys(tags))
        elif action == "add" and tag not in item["tags"]:
            item["tags"] = [*item["tags"], tag]
        elif action == "remove":
            item["tags"] = [t for t in item["tags"] if t != tag]
        elif action == "clear":
            item["tags"] = []
        with self.backend.transaction():
            records.save(item)
        if action == "replace":
            return reply({"tags": item["tags"]})
        return no_content(201 if action == "add" else 204)

    async def quota(self, request: Request, ctx: RequestContext) -> Response:
        """``/quotas/{project_id}`` (``/details``: with use): the fault plan's limits, -1
        (unlimited) for the rest."""
        project = request.path_params["project_id"]
        if not ctx.reaches(project):
            raise ApiError(
                "(rule:get_quota) is disallowed by policy", status=403, kind="PolicyNotAuthorized"
            )
        quota: dict[str, Any] = {}
        for resource in QUOTA_RESOURCES:
            limit = self.backend.quota(resource)
            if request.url.path.endswith("/details"):
                used = self.backend.usage(project, resource)
                quota[resource] = {"limit": limit, "used": used, "reserved": 0}
            else:
                quota[resource] = limit
        return reply({"quota": quota})

    def operations(self) -> list[Operation]:
        quotas, router = "/quotas/{project_id}", "/routers/{router_id}"
        add, remove = router + "/add_router_interface", router + "/remove_router_interface"
        table = [
            ("GET", "", "root", self.root),
            ("GET", "/", "root", self.root),
            ("GET", "/extensions", "extensions.list", self.extensions),
            ("GET", "/extensions/{alias}", "extensions.show", self.extension),
            ("GET", quotas, "quotas.show", self.quota),
            ("GET", quotas + "/details", "quotas.details", self.quota),
            ("GET", quotas + "/default", "quotas.default", self.quota),
            ("PUT", add, "routers.add_interface", self.add_interface),
            ("PUT", remove, "routers.remove_interface", self.remove_interface),
        ]
        for c in self.collections:
            item = f"/{c.path}/{{{c.param}}}"
            table += [
                ("GET", f"/{c.path}", f"{c.path}.list", partial(self._list, c)),
                ("POST", f"/{c.path}", f"{c.path}.create", partial(self._create, c)),
                ("GET", item, f"{c.path}.show", partial(self._show, c)),
                ("PUT", item, f"{c.path}.update", partial(self._update, c)),
                ("DELETE", item, f"{c.path}.delete", partial(self._delete, c)),
            ]
            if c.path != "security-group-rules":
                tags, tag = f"{item}/tags", f"{item}/tags/{{tag}}"
                table += [
                    ("GET", tags, f"{c.path}.tags", partial(self._tags, c, "show")),
                    ("PUT", tags, f"{c.path}.tags", partial(self._tags, c, "replace")),
                    ("DELETE", tags, f"{c.path}.tags", partial(self._tags, c, "clear")),
                    ("GET", tag, f"{c.path}.tags", partial(self._tags, c, "check")),
                    ("PUT", tag, f"{c.path}.tags", partial(self._tags, c, "add")),
                    ("DELETE", tag, f"{c.path}.tags", partial(self._tags, c, "remove")),
                ]
        return routes("/v2.0", table)


def _only(fields: list[str], shown: Document) -> Document:
    """``?fields=``: only the attributes named (all of them when none is)."""
    return {k: v for k, v in shown.items() if k in fields} if fields else shown


def _extension(alias: str, name: str) -> Document:
    return {
        "alias": alias,
        "name": name,
        "description": name,
        "updated": "2013-01-01T00:00:00-00:00",
        "links": [],
    }


def _owner(ctx: RequestContext, body: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The project a new object belongs to: the caller's, or the one an admin names."""
    item = dict(body)
    named = item.pop("project_id", None) or item.pop("tenant_id", None)
    item.pop("tenant_id", None)
    if named and str(named) != ctx.project_id:
        if not ctx.is_admin:
            raise ApiError(
                "Tenant_id in the body does not match the token's project",
                status=403,
                kind="HTTPForbidden",
            )
        return str(named), item
    return ctx.project_id, item


SERVICE = Service(
    name="neutron",
    type="network",
    prefix="/network",
    make_backend=NeutronBackend,
    operations=lambda backend: NeutronApi(backend).operations(),
    versions=versions,
    error_body=error_body,
)
