"""Keystone v3's REST API over `IdentityBackend`: ``/identity/v3/...``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from stoker.sandbox.http import base_url, link, no_content, public, read_json, reply
from stoker.sandbox.http_errors import ApiError, Forbidden, NotFound, Unauthorized
from stoker.sandbox.identity import trusts
from stoker.sandbox.identity.backend import (
    IdentityBackend,
    service_id,
)
from stoker.sandbox.service import (
    Hub,
    Operation,
    RequestContext,
    Service,
    micro_time,
    routes,
    version_routes,
)
from stoker.sandbox.store import Document

VERSION = "v3.14"
MEDIA_TYPES = [{"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}]


def _version(base: str) -> Document:
    return {
        "id": VERSION,
        "status": "stable",
        "updated": "2020-04-07T00:00:00Z",
        "links": [link(f"{base}/identity/v3/")],
        "media-types": MEDIA_TYPES,
    }


def versions(base: str) -> tuple[int, Mapping[str, Any]]:
    return 300, {"versions": {"values": [_version(base)]}}


def error_body(error: ApiError) -> Response:
    body = {"error": {"code": error.status, "message": error.message, "title": error.title}}
    headers = {"www-authenticate": 'Keystone uri="/identity"'} if error.status == 401 else None
    return JSONResponse(body, status_code=error.status, headers=headers)


def _public(document: Document, base: str, collection: str) -> Document:
    """A model as the API shows it: no private fields, with its ``links``."""
    shown = public(document)
    shown["links"] = {"self": f"{base}/identity/v3/{collection}/{document['id']}"}
    return shown


def _ref(document: Mapping[str, Any]) -> Document:
    """A domain, project, user or role as a token names it: its id and name."""
    return {"id": document["id"], "name": document["name"]}


def catalog(hub: Hub, base: str, project_id: str | None) -> list[Document]:
    """Every running service with its public, internal and admin endpoint."""
    entries = []
    for service in hub.services:
        url = base + (service.endpoint_path or service.prefix)
        if service.project_in_url:
            if not project_id:
                continue
            url = f"{url}/{project_id}"
        sid = service_id(service)
        entries.append(
            {
                "id": sid,
                "type": service.type,
                "name": service.name,
                "endpoints": [
                    {
                        "id": f"{sid[:24]}{index:08x}",
                        "interface": interface,
                        "region": hub.config.region,
                        "region_id": hub.config.region,
                        "url": url,
                    }
                    for index, interface in enumerate(("public", "internal", "admin"))
                ],
            }
        )
    return entries


class IdentityApi:
    def __init__(self, backend: IdentityBackend) -> None:
        self.backend = backend
        self.hub = backend.hub

    def _in_domain(self, document: Document) -> Document:
        """A user or a project as a token names it: with its domain."""
        return {**_ref(document), "domain": _ref(self.backend.domain(document["domain_id"]))}

    def _token_body(self, token: Document, request: Request) -> Document:
        """The token as Keystone shows it, with the catalog unless ``?nocatalog``."""
        user = self.backend.user(token["user_id"])
        body: Document = {
            "methods": token["methods"],
            "user": {**self._in_domain(user), "password_expires_at": None},
            "audit_ids": [token["audit_id"]],
            "issued_at": micro_time(token["issued"]) + "Z",
            "expires_at": micro_time(token["expires"]) + "Z",
        }
        if token["project_id"]:
            body["project"] = self._in_domain(self.backend.project(token["project_id"]))
            body["is_domain"] = False
            body["roles"] = [_ref(r) for r in self.backend.token_roles(token)]
            trust = self.backend.trusts.trust(token.get("trust_id") or "")
            if trust is not None:
                body[trusts.SCOPE] = self.backend.trusts.token_part(trust)
        elif token["domain_id"]:
            body["domain"] = _ref(self.backend.domain(token["domain_id"]))
            body["roles"] = []
        scoped = token["project_id"] or token["domain_id"]
        if scoped and "nocatalog" not in request.query_params:
            body["catalog"] = catalog(self.hub, base_url(request), token["project_id"] or None)
        return body

    async def issue(self, request: Request, ctx: RequestContext) -> Response:
        auth = await read_json(request, required="auth")
        with self.backend.transaction():
            token = self.backend.issue(auth)
        body = {"token": self._token_body(token, request)}
        return reply(body, 201, {"x-subject-token": token["id"]})

    def _subject(self, request: Request) -> Document:
        subject = self.backend.token(request.headers.get("x-subject-token", ""))
        if subject is None:
            raise NotFound("The resource could not be found.")
        return subject

    async def validate(self, request: Request, ctx: RequestContext) -> Response:
        subject = self._subject(request)
        body = {"token": self._token_body(subject, request)}
        return reply(body, 200, {"x-subject-token": subject["id"]})

    async def check(self, request: Request, ctx: RequestContext) -> Response:
        subject = self._subject(request)
        return Response(status_code=200, headers={"x-subject-token": subject["id"]})

    async def revoke(self, request: Request, ctx: RequestContext) -> Response:
        self.backend.revoke(self._subject(request)["id"])
        return no_content()

    async def auth_catalog(self, request: Request, ctx: RequestContext) -> Response:
        return reply({"catalog": catalog(self.hub, base_url(request), ctx.project_id or None)})

    async def auth_projects(self, request: Request, ctx: RequestContext) -> Response:
        base = base_url(request)
        projects = self.backend.user_projects(ctx.user_id)
        return reply({"projects": [_public(p, base, "projects") for p in projects]})

    async def auth_domains(self, request: Request, ctx: RequestContext) -> Response:
        base = base_url(request)
        return reply({"domains": [_public(d, base, "domains") for d in self.backend.domains()]})

    @staticmethod
    def _admin(ctx: RequestContext, or_own: bool = False) -> None:
        """Keystone's policy: an admin may, and a user may reach their own (``or_own``)."""
        if not (ctx.is_admin or or_own):
            raise Forbidden("You are not authorized to perform the requested action.")

    def _listing(self, request: Request, items: list[Document], collection: str) -> Response:
        base = base_url(request)
        for key in ("name", "domain_id", "enabled"):
            wanted = request.query_params.get(key)
            if wanted is not None:
                items = [i for i in items if str(i.get(key)).lower() == wanted.lower()]
        return reply(
            {
                collection: [_public(i, base, collection) for i in items],
                "links": {
                    "self": f"{base}/identity/v3/{collection}",
                    "next": None,
                    "previous": None,
                },
            }
        )

    async def list_projects(self, request: Request, ctx: RequestContext) -> Response:
        if ctx.is_admin:
            projects = self.backend.projects()
        else:
            projects = self.backend.user_projects(ctx.user_id)
        return self._listing(request, projects, "projects")

    async def create_project(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        body = await read_json(request, required="project")
        project = self.backend.create_project(body)
        return reply({"project": _public(project, base_url(request), "projects")}, 201)

    async def show_project(self, request: Request, ctx: RequestContext) -> Response:
        project = self.backend.project(request.path_params["project_id"])
        self._admin(ctx, or_own=project["id"] == ctx.project_id)
        return reply({"project": _public(project, base_url(request), "projects")})

    async def update_project(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        changes = await read_json(request, required="project")
        project = self.backend.update_project(request.path_params["project_id"], changes)
        return reply({"project": _public(project, base_url(request), "projects")})

    async def delete_project(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        self.backend.delete_project(request.path_params["project_id"])
        return no_content()

    async def list_users(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        return self._listing(request, self.backend.users(), "users")

    async def create_user(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        body = await read_json(request, required="user")
        with self.backend.transaction():
            user = self.backend.create_user(body)
        return reply({"user": _public(user, base_url(request), "users")}, 201)

    async def show_user(self, request: Request, ctx: RequestContext) -> Response:
        user = self.backend.user(request.path_params["user_id"])
        self._admin(ctx, or_own=user["id"] == ctx.user_id)
        return reply({"user": _public(user, base_url(request), "users")})

    async def delete_user(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        self.backend.delete_user(request.path_params["user_id"])
        return no_content()

    async def user_projects(self, request: Request, ctx: RequestContext) -> Response:
        user_id = request.path_params["user_id"]
        self._admin(ctx, or_own=user_id == ctx.user_id)
        self.backend.user(user_id)
        return self._listing(request, self.backend.user_projects(user_id), "projects")

    async def list_domains(self, request: Request, ctx: RequestContext) -> Response:
        return self._listing(request, self.backend.domains(), "domains")

    async def show_domain(self, request: Request, ctx: RequestContext) -> Response:
        domain = self.backend.domain(request.path_params["domain_id"])
        return reply({"domain": _public(domain, base_url(request), "domains")})

    async def list_roles(self, request: Request, ctx: RequestContext) -> Response:
        return self._listing(request, self.backend.roles(), "roles")

    async def grant(self, request: Request, ctx: RequestContext) -> Response:
        self._admin(ctx)
        params = request.path_params
        self.backend.assign(params["user_id"], params["project_id"], params["role_id"])
        return no_content()

    async def list_services(self, request: Request, ctx: RequestContext) -> Response:
        entries = catalog(self.hub, base_url(request), ctx.project_id or None)
        services = [
            {"id": e["id"], "type": e["type"], "name": e["name"], "enabled": True} for e in entries
        ]
        return reply({"services": services})

    async def list_endpoints(self, request: Request, ctx: RequestContext) -> Response:
        endpoints = []
        for entry in catalog(self.hub, base_url(request), ctx.project_id or None):
            for endpoint in entry["endpoints"]:
                endpoints.append({**endpoint, "service_id": entry["id"], "enabled": True})
        return reply({"endpoints": endpoints})

    async def create_trust(self, request: Request, ctx: RequestContext) -> Response:
        body = await read_json(request, required="trust")
        with self.backend.transaction():
            trust = self.backend.trusts.create(ctx, body)
        return reply({"trust": trusts.public(trust, base_url(request))}, 201)

    async def show_trust(self, request: Request, ctx: RequestContext) -> Response:
        trust = self.backend.trusts.show(ctx, request.path_params["trust_id"])
        return reply({"trust": trusts.public(trust, base_url(request))})

    async def list_trusts(self, request: Request, ctx: RequestContext) -> Response:
        base = base_url(request)
        found = self.backend.trusts.listing(ctx, request.query_params)
        return reply(
            {
                "trusts": [trusts.public(t, base) for t in found],
                "links": {"self": f"{base}/identity/v3/OS-TRUST/trusts", "next": None},
            }
        )

    async def delete_trust(self, request: Request, ctx: RequestContext) -> Response:
        with self.backend.transaction():
            self.backend.trusts.delete(ctx, request.path_params["trust_id"])
        return no_content()

    def operations(self) -> list[Operation]:
        project, user, trusts = "/projects/{project_id}", "/users/{user_id}", "/OS-TRUST/trusts"
        table = [
            ("GET", "/auth/tokens", "tokens.validate", self.validate),
            ("HEAD", "/auth/tokens", "tokens.check", self.check),
            ("DELETE", "/auth/tokens", "tokens.revoke", self.revoke),
            ("GET", "/auth/catalog", "catalog.show", self.auth_catalog),
            ("GET", "/auth/projects", "auth.projects", self.auth_projects),
            ("GET", "/auth/domains", "auth.domains", self.auth_domains),
            ("GET", "/projects", "projects.list", self.list_projects),
            ("POST", "/projects", "projects.create", self.create_project),
            ("GET", project, "projects.show", self.show_project),
            ("PATCH", project, "projects.update", self.update_project),
            ("DELETE", project, "projects.delete", self.delete_project),
            ("PUT", project + user + "/roles/{role_id}", "roles.grant", self.grant),
            ("GET", "/users", "users.list", self.list_users),
            ("POST", "/users", "users.create", self.create_user),
            ("GET", user, "users.show", self.show_user),
            ("DELETE", user, "users.delete", self.delete_user),
            ("GET", user + "/projects", "users.projects", self.user_projects),
            ("GET", "/domains", "domains.list", self.list_domains),
            ("GET", "/domains/{domain_id}", "domains.show", self.show_domain),
            ("GET", "/roles", "roles.list", self.list_roles),
            ("GET", "/services", "services.list", self.list_services),
            ("POST", trusts, "trusts.create", self.create_trust),
            ("GET", trusts, "trusts.list", self.list_trusts),
            ("GET", trusts + "/{trust_id}", "trusts.show", self.show_trust),
            ("DELETE", trusts + "/{trust_id}", "trusts.delete", self.delete_trust),
            ("GET", "/endpoints", "endpoints.list", self.list_endpoints),
        ]
        # the one call made without a token: the call that gets one
        issue = Operation("POST", "/v3/auth/tokens", "tokens.create", self.issue, False)
        versions = version_routes("/v3", lambda base: {"version": _version(base)})
        return [*versions, issue, *routes("/v3", table)]


SERVICE = Service(
    name="keystone",
    type="identity",
    prefix="/identity",
    make_backend=IdentityBackend,
    operations=lambda backend: IdentityApi(backend).operations(),
    versions=versions,
    error_body=error_body,
)

__all__ = ["SERVICE", "Unauthorized"]
