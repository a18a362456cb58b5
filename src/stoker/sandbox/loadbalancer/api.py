"""Octavia's load-balancer v2 API over `OctaviaBackend`: ``/load-balancer/v2/lbaas/...``.

The objects as Octavia shows them (``provisioning_status`` and ``operating_status``,
relations as ``[{"id": ...}]`` lists), lists filtered on any attribute, and errors as
Octavia's WSME layer writes them: ``{"faultcode": "Client", "faultstring": ...,
"debuginfo": null}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.sandbox.http import (
    boolean,
    link,
    next_page,
    no_content,
    paginate,
    public,
    read_json,
    reply,
)
from stoker.sandbox.http_errors import ApiError, OverQuota
from stoker.sandbox.loadbalancer.backend import OctaviaBackend
from stoker.sandbox.loadbalancer.checks import not_found
from stoker.sandbox.loadbalancer.kinds import (
    L7POLICY,
    L7RULE,
    LABELS,
    LISTENER,
    LOADBALANCER,
    MEMBER,
    MONITOR,
    POOL,
)
from stoker.sandbox.service import (
    Handler,
    Operation,
    RequestContext,
    Service,
    routes,
    version_routes,
)
from stoker.sandbox.store import Document

#: the newest API version the sandbox says it speaks (its behaviour is 2.x's)
CURRENT = "v2.27"
#: the collection and body key of each kind
KEYS = {
    LOADBALANCER: ("loadbalancers", "loadbalancer"),
    LISTENER: ("listeners", "listener"),
    POOL: ("pools", "pool"),
    MEMBER: ("members", "member"),
    MONITOR: ("healthmonitors", "healthmonitor"),
    L7POLICY: ("l7policies", "l7policy"),
    L7RULE: ("rules", "rule"),
}
#: the kinds that live under a parent in their path: (path parameter, parent kind)
NESTED = {MEMBER: ("pool_id", POOL), L7RULE: ("l7policy_id", L7POLICY)}
#: query parameters that are not filters
CONTROL = {"limit", "marker", "page_reverse", "sort", "sort_key", "sort_dir", "fields"}


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    href = f"{base}/load-balancer/v2"
    entries: list[Document] = [
        {"id": "v2.0", "status": "SUPPORTED", "updated": "2016-12-11T00:00:00Z"},
        {"id": CURRENT, "status": "CURRENT", "updated": "2023-03-24T00:00:00Z"},
    ]
    for entry in entries:
        entry["links"] = [link(href)]
    return 200, {"versions": entries}


def error_body(error: ApiError) -> Response:
    status = 403 if isinstance(error, OverQuota) else error.status
    body = {
        "faultcode": "Server" if status >= 500 else "Client",
        "faultstring": error.message,
        "debuginfo": None,
    }
    return JSONResponse(body, status_code=status)


#: the TLS options a listener and a pool show (the sandbox sets none)
_TLS_OPTIONS = ("tls_ciphers", "tls_versions", "alpn_protocols")


def _refs(documents: list[Document]) -> list[Document]:
    return [{"id": d["id"]} for d in documents]


class OctaviaApi:
    """The handlers; one instance per sandbox."""

    def __init__(self, backend: OctaviaBackend) -> None:
        self.backend = backend

    # -- views ------------------------------------------------------------------------

    def _operating(self, kind: str, document: Document) -> str:
        if document["provisioning_status"] in ("PENDING_CREATE", "ERROR"):
            return "OFFLINE"
        if not document["admin_state_up"]:
            return "OFFLINE"
        if kind == MEMBER:
            monitored = self.backend.children(MONITOR, "pool_id", document["pool_id"])
            return "ONLINE" if monitored else "NO_MONITOR"
        return "ONLINE"

    def view(self, kind: str, document: Document) -> Document:
        shown = public(document)
        shown["operating_status"] = self._operating(kind, document)
        shown["tenant_id"] = document["project_id"]
        if kind != LOADBALANCER:  # kept to find what to lock; Octavia shows the relations
            del shown["loadbalancer_id"]
        children = self.backend.children
        if kind == LOADBALANCER:
            shown["listeners"] = _refs(children(LISTENER, "loadbalancer_id", document["id"]))
            shown["pools"] = _refs(children(POOL, "loadbalancer_id", document["id"]))
            shown["additional_vips"] = []
        elif kind == LISTENER:
            shown["loadbalancers"] = [{"id": document["loadbalancer_id"]}]
            shown["l7policies"] = _refs(children(L7POLICY, "listener_id", document["id"]))
            shown.update(dict.fromkeys(_TLS_OPTIONS))
            shown["client_ca_tls_container_ref"] = None
            shown["client_authentication"] = "NONE"
            shown["client_crl_container_ref"] = None
        elif kind == POOL:
            shown["loadbalancers"] = [{"id": document["loadbalancer_id"]}]
            shown["listeners"] = _refs(children(LISTENER, "default_pool_id", document["id"]))
            shown["members"] = _refs(children(MEMBER, "pool_id", document["id"]))
            monitors = children(MONITOR, "pool_id", document["id"])
            shown["healthmonitor_id"] = monitors[0]["id"] if monitors else None
            shown.update(dict.fromkeys(_TLS_OPTIONS))
        elif kind == MEMBER:
            del shown["pool_id"]
            shown["vnic_type"] = "normal"
        elif kind == L7POLICY:
            shown["rules"] = _refs(children(L7RULE, "l7policy_id", document["id"]))
        elif kind == L7RULE:
            del shown["l7policy_id"]
        elif kind == MONITOR:
            shown["pools"] = [{"id": document["pool_id"]}]
            del shown["pool_id"]
        return shown

    # -- handlers ---------------------------------------------------------------------

    async def _list(self, kind: str, request: Request, ctx: RequestContext) -> Response:
        plural, _ = KEYS[kind]
        self.backend.settle()
        documents = self.backend.listing(kind, ctx.scope)
        if kind in NESTED:
            field, parent_kind = NESTED[kind]
            parent = self.backend.get(parent_kind, request.path_params[field], ctx.scope)
            documents = [d for d in documents if d[field] == parent["id"]]
        pairs = [(d, self.view(kind, d)) for d in documents]
        for name, value in request.query_params.items():
            if name in CONTROL:
                continue
            pairs = [
                (raw, shown)
                for raw, shown in pairs
                if _matches(raw[name] if name in raw else shown.get(name), value)
            ]
        page = paginate(request, [shown for _, shown in pairs])
        following = next_page(request, page)
        links = [] if following is None else [link(following, "next")]
        return reply({plural: page, f"{plural}_links": links})

    async def _create(self, kind: str, request: Request, ctx: RequestContext) -> Response:
        _, key = KEYS[kind]
        body = await read_json(request, required=key)
        backend = self.backend
        backend.settle()
        with backend.transaction():
            if kind == LOADBALANCER:
                made = backend.create_loadbalancer(ctx.project_id, body, is_admin=ctx.is_admin)
            elif kind == LISTENER:
                made = backend.create_listener(ctx.scope, body)
            elif kind == POOL:
                made = backend.create_pool(ctx.scope, body)
            elif kind == MEMBER:
                pool_id = request.path_params["pool_id"]
                made = backend.create_member(ctx.scope, pool_id, body)
            elif kind == L7POLICY:
                made = backend.create_l7policy(ctx.scope, body)
            elif kind == L7RULE:
                policy_id = request.path_params["l7policy_id"]
                made = backend.create_l7rule(ctx.scope, policy_id, body)
            else:
                made = backend.create_monitor(ctx.scope, body)
        return reply({key: self.view(kind, made)}, 201)

    async def _show(self, kind: str, request: Request, ctx: RequestContext) -> Response:
        _, key = KEYS[kind]
        self.backend.settle()
        document = self._target(kind, request, ctx)
        return reply({key: self.view(kind, document)})

    def _target(self, kind: str, request: Request, ctx: RequestContext) -> Document:
        id = request.path_params[f"{KEYS[kind][1]}_id"]
        document = self.backend.get(kind, id, ctx.scope)
        field = NESTED[kind][0] if kind in NESTED else None
        if field is not None and document[field] != request.path_params[field]:
            raise not_found(LABELS[kind], id)
        return document

    async def _update(self, kind: str, request: Request, ctx: RequestContext) -> Response:
        _, key = KEYS[kind]
        body = await read_json(request, required=key)
        self.backend.settle()
        with self.backend.transaction():
            document = self._target(kind, request, ctx)
            updated = self.backend.update(kind, document["id"], ctx.scope, body)
        return reply({key: self.view(kind, updated)}, 200)

    async def _delete(self, kind: str, request: Request, ctx: RequestContext) -> Response:
        self.backend.settle()
        cascade = boolean(request.query_params.get("cascade"), "cascade") or False
        with self.backend.transaction():
            document = self._target(kind, request, ctx)
            self.backend.delete(kind, document["id"], ctx.scope, cascade=cascade)
        return no_content()

    async def status_tree(self, request: Request, ctx: RequestContext) -> Response:
        """``GET /loadbalancers/{id}/status``: the statuses of everything under it."""
        self.backend.settle()
        lb = self._target(LOADBALANCER, request, ctx)
        children = self.backend.children

        def statuses(kind: str, document: Document) -> Document:
            return {
                "id": document["id"],
                "name": document["name"],
                "provisioning_status": document["provisioning_status"],
                "operating_status": self._operating(kind, document),
            }

        def pool_tree(pool: Document) -> Document:
            tree = statuses(POOL, pool)
            tree["members"] = [
                {
                    **statuses(MEMBER, m),
                    "address": m["address"],
                    "protocol_port": m["protocol_port"],
                }
                for m in children(MEMBER, "pool_id", pool["id"])
            ]
            monitors = children(MONITOR, "pool_id", pool["id"])
            if monitors:
                tree["health_monitor"] = {
                    **statuses(MONITOR, monitors[0]),
                    "type": monitors[0]["type"],
                }
            return tree

        listeners = []
        for listener in children(LISTENER, "loadbalancer_id", lb["id"]):
            tree = statuses(LISTENER, listener)
            pools = [
                p
                for p in children(POOL, "loadbalancer_id", lb["id"])
                if p["id"] == listener.get("default_pool_id")
            ]
            tree["pools"] = [pool_tree(p) for p in pools]
            listeners.append(tree)
        body = {**statuses(LOADBALANCER, lb), "listeners": listeners}
        return reply({"statuses": {"loadbalancer": body}})

    async def providers(self, request: Request, ctx: RequestContext) -> Response:
        entry = {"name": "amphora", "description": "The Octavia Amphora driver."}
        return reply({"providers": [entry]})

    async def empty(self, request: Request, ctx: RequestContext) -> Response:
        """Collections the sandbox has none of (flavors, availability zones)."""
        plural = request.url.path.rstrip("/").rsplit("/", 1)[-1]
        key = "availability_zones" if plural == "availabilityzones" else plural
        return reply({key: [], f"{key}_links": []})

    def operations(self) -> list[Operation]:
        """Every route, under ``/v2`` and ``/v2.0`` as Octavia serves them (the SDK asks
        for the latter)."""
        table: list[tuple[str, str, str, Handler]] = []
        for kind, collection in (
            (LOADBALANCER, "/lbaas/loadbalancers"),
            (LISTENER, "/lbaas/listeners"),
            (POOL, "/lbaas/pools"),
            (MEMBER, "/lbaas/pools/{pool_id}/members"),
            (MONITOR, "/lbaas/healthmonitors"),
            (L7POLICY, "/lbaas/l7policies"),
            (L7RULE, "/lbaas/l7policies/{l7policy_id}/rules"),
        ):
            plural, key = KEYS[kind]
            item = f"{collection}/{{{key}_id}}"
            table += [
                ("GET", collection, f"{plural}.list", partial(self._list, kind)),
                ("POST", collection, f"{plural}.create", partial(self._create, kind)),
                ("GET", item, f"{plural}.show", partial(self._show, kind)),
                ("PUT", item, f"{plural}.update", partial(self._update, kind)),
                ("DELETE", item, f"{plural}.delete", partial(self._delete, kind)),
            ]
        status = "/lbaas/loadbalancers/{loadbalancer_id}/status"
        table += [
            ("GET", status, "loadbalancers.status", self.status_tree),
            ("GET", "/lbaas/providers", "providers.list", self.providers),
            ("GET", "/lbaas/flavors", "flavors.list", self.empty),
            ("GET", "/lbaas/availabilityzones", "availabilityzones.list", self.empty),
        ]
        return [
            operation
            for root in ("/v2", "/v2.0")
            for operation in version_routes(root, lambda base: versions(base)[1])
            + routes(root, table)
        ]


def _matches(value: Any, wanted: str) -> bool:
    if isinstance(value, bool):
        return str(value).lower() == wanted.lower()
    if isinstance(value, list):
        return wanted in [str(v.get("id") if isinstance(v, dict) else v) for v in value]
    return str(value) == wanted


SERVICE = Service(
    name="octavia",
    type="load-balancer",
    prefix="/load-balancer",
    make_backend=OctaviaBackend,
    operations=lambda backend: OctaviaApi(backend).operations(),
    versions=versions,
    error_body=error_body,
)
