"""The Starlette application: Heat's v1 routes, its error bodies, and the server's
operations started and stopped with the application."""

from __future__ import annotations

import contextlib
import importlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes

from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stoker.api import versions
from stoker.api.context import Api, ApiLimits
from stoker.api.errors import ApiError, error_body, from_stoker
from stoker.api.operations import Operations
from stoker.engine import EngineSettings, Store
from stoker.errors import StokerError

if TYPE_CHECKING:
    from stoker.api.auth import KeystoneValidator
    from stoker.api.policy import Policy
    from stoker.api.trusts import StackCredentials
    from stoker.cloud import Cloud
    from stoker.resources import ResourceTypeRegistry

log = logging.getLogger("stoker.api")
ALL = ["GET", "POST", "PUT", "PATCH", "DELETE"]
#: the stack paths Heat's router sends to its lookup (redirect) action
SUBPATHS = ("resources", "events", "template", "actions", "environment", "files", "outputs")
Endpoint = Callable[[Request], Awaitable[Response]]


class _Handlers:
    """A module of route handlers, imported on the first request to one of its routes.

    The handlers of stacks, resources, actions and the catalog import the engine, the
    resource types and the template machinery (~3.5 MB resident, most of an idle
    server's own code); an idle server, and one asked only ``GET /``, holds none of it
    (`tests/api/test_idle_imports.py`). ``stacks.index`` below is an endpoint that
    imports ``stoker.api.stacks`` when it is first called, then calls its ``index``."""

    def __init__(self, module: str) -> None:
        self._module = f"stoker.api.{module}"

    def __getattr__(self, name: str) -> Endpoint:
        if name.startswith("_"):  # not a handler: copy, pickle and the like probing
            raise AttributeError(name)
        module = self._module
        handler: Endpoint | None = None

        async def endpoint(request: Request) -> Response:
            nonlocal handler
            if handler is None:
                handler = getattr(importlib.import_module(module), name)
            return await handler(request)

        # where the handler is (tests/api/test_idle_imports.py checks every route's)
        endpoint.__module__, endpoint.__name__, endpoint.__qualname__ = module, name, name
        return endpoint


actions = _Handlers("actions")
catalog = _Handlers("catalog")
resources = _Handlers("resources")
software = _Handlers("software")
stacks = _Handlers("stacks")
board = _Handlers("dashboard.stacks")
board_changes = _Handlers("dashboard.changes")
board_launch = _Handlers("dashboard.launch")
board_login = _Handlers("dashboard.login")
board_drift = _Handlers("dashboard.drift")


class _Verbatim(Convertor[str]):
    """A path segment matching ``regex``, passed on as it is."""

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


class _Subpath(_Verbatim):
    regex = "|".join(SUBPATHS)


class _Arn(_Verbatim):
    regex = "arn:[^/]*"


register_url_convertor("stoker_subpath", _Subpath())
register_url_convertor("stoker_arn", _Arn())

STACK = "/stacks/{stack_name}/{stack_id}"
RESOURCE = STACK + "/resources/{resource_name}"
SNAPSHOT = STACK + "/snapshots/{snapshot_id}"
TYPE = "/resource_types/{type_name}"
FUNCTIONS = "/template_versions/{template_version}/functions"
CONFIG = "/software_configs/{config_id}"
DEPLOYMENTS = "/software_deployments"
DEPLOYMENT = DEPLOYMENTS + "/{deployment_id}"
METADATA = DEPLOYMENTS + "/metadata/{server_id}"
BOARD = "/dashboard/stacks/{stack_id}"


def dashboard_routes() -> list[BaseRoute]:
    """The dashboard's pages (`stoker.api.dashboard`)."""
    get, both = ["GET"], ["GET", "POST"]
    return [
        Route("/dashboard", board.home, methods=get),
        Route("/dashboard/login", board_login.login, methods=both),
        Route("/dashboard/logout", board_login.logout, methods=["POST"]),
        Route("/dashboard/static/{name}", board_login.static, methods=get),
        Route("/dashboard/stacks", board.stack_list, methods=get),
        Route("/dashboard/launch", board_launch.launch, methods=both),
        Route(BOARD, board.stack_page, methods=get),
        Route(BOARD + "/live", board.live, methods=get),
        Route(BOARD + "/part/{part}", board.fragment, methods=get),
        Route(BOARD + "/template", board.template_page, methods=get),
        Route(BOARD + "/resources/{resource_name}", board.resource_page, methods=get),
        Route(BOARD + "/outputs/{output_key}", board.output_page, methods=get),
        Route(BOARD + "/action", board_changes.action, methods=["POST"]),
        Route(BOARD + "/delete", board_changes.delete, methods=both),
        Route(BOARD + "/update", board_changes.update, methods=both),
        Route(BOARD + "/drift", board_drift.drift_page, methods=both),
    ]


#: what guards ``POST .../actions``: the rule depends on the body (``actions:{name}``), so
#: the handler enforces it once it has read which action
BY_BODY = "actions:<body>"
LOOKUP = "stacks:lookup"
_GET, _POST, _PUT, _PATCH, _DELETE = ["GET"], ["POST"], ["PUT"], ["PATCH"], ["DELETE"]
#: a route that takes both (one route, so a 405 names both in its Allow header); its
#: PATCH is guarded by the rule named ``{name}_patch`` (`stoker.api.policy.rule_for`)
_PUT_PATCH = ["PUT", "PATCH"]

#: Heat's v1 router (heat/api/openstack/v1/__init__.py) under ``/v1/{project}``: each
#: route's path, handler, methods and the rule of Heat's policy that guards it (its name,
#: `stoker.api.policy.rule_for`), in Heat's order where order matters: the lookups (302)
#: before the canonical stack paths, ``software_deployments/metadata/{server}`` before
#: ``software_deployments/{id}``
PROJECT_ROUTES = [
    Route(path, endpoint, methods=methods, name=rule)
    for path, endpoint, methods, rule in [
        ("/stacks", stacks.index, _GET, "stacks:index"),
        ("/stacks", stacks.create, _POST, "stacks:create"),
        ("/stacks/detail", stacks.detail, _GET, "stacks:detail"),
        ("/stacks/preview", stacks.preview, _POST, "stacks:preview"),
        ("/stacks/{arn:stoker_arn}/{rest:path}", stacks.arn_lookup, ALL, LOOKUP),
        ("/stacks/{stack_name}", stacks.lookup, ALL, LOOKUP),
        ("/stacks/{stack_name}/{sub:stoker_subpath}", stacks.lookup, ALL, LOOKUP),
        ("/stacks/{stack_name}/{sub:stoker_subpath}/{rest:path}", stacks.lookup, ALL, LOOKUP),
        (STACK, stacks.show, _GET, "stacks:show"),
        (STACK, stacks.update, _PUT_PATCH, "stacks:update"),
        (STACK, stacks.delete, _DELETE, "stacks:delete"),
        (STACK + "/preview", stacks.update_preview, _PUT_PATCH, "stacks:preview_update"),
        (STACK + "/abandon", actions.abandon, _DELETE, "stacks:abandon"),
        (STACK + "/export", actions.export, _GET, "stacks:export"),
        (STACK + "/drift", actions.drift, _GET, "stacks:drift"),
        (STACK + "/drift", actions.accept, _POST, "stacks:drift_accept"),
        (STACK + "/template", stacks.template, _GET, "stacks:template"),
        (STACK + "/environment", stacks.environment, _GET, "stacks:environment"),
        (STACK + "/files", stacks.files, _GET, "stacks:files"),
        (STACK + "/outputs", stacks.outputs, _GET, "stacks:list_outputs"),
        (STACK + "/outputs/{output_key}", stacks.output_show, _GET, "stacks:show_output"),
        (STACK + "/actions", actions.action, _POST, BY_BODY),
        (STACK + "/resources", resources.index, _GET, "resource:index"),
        (RESOURCE, resources.show, _GET, "resource:show"),
        (RESOURCE, resources.mark_unhealthy, _PATCH, "resource:mark_unhealthy"),
        (RESOURCE + "/metadata", resources.metadata, _GET, "resource:metadata"),
        (RESOURCE + "/signal", resources.signal, _POST, "resource:signal"),
        (STACK + "/events", resources.events, _GET, "events:index"),
        (RESOURCE + "/events", resources.events, _GET, "events:index"),
        (RESOURCE + "/events/{event_id}", resources.event_show, _GET, "events:show"),
        (STACK + "/snapshots", actions.snapshot_create, _POST, "stacks:snapshot"),
        (STACK + "/snapshots", actions.snapshot_list, _GET, "stacks:list_snapshots"),
        (SNAPSHOT, actions.snapshot_show, _GET, "stacks:show_snapshot"),
        (SNAPSHOT, actions.snapshot_delete, _DELETE, "stacks:delete_snapshot"),
        (SNAPSHOT + "/restore", actions.snapshot_restore, _POST, "stacks:restore_snapshot"),
        ("/validate", catalog.validate, _POST, "stacks:validate_template"),
        ("/resource_types", catalog.resource_types, _GET, "stacks:list_resource_types"),
        (TYPE, catalog.resource_type_show, _GET, "stacks:resource_schema"),
        (TYPE + "/template", catalog.resource_type_template, _GET, "stacks:generate_template"),
        ("/template_versions", catalog.template_versions, _GET, "stacks:list_template_versions"),
        (FUNCTIONS, catalog.template_functions, _GET, "stacks:list_template_functions"),
        ("/software_configs", software.config_index, _GET, "software_configs:index"),
        ("/software_configs", software.config_create, _POST, "software_configs:create"),
        (CONFIG, software.config_show, _GET, "software_configs:show"),
        (CONFIG, software.config_delete, _DELETE, "software_configs:delete"),
        (DEPLOYMENTS, software.deployment_index, _GET, "software_deployments:index"),
        (DEPLOYMENTS, software.deployment_create, _POST, "software_deployments:create"),
        (METADATA, software.deployment_metadata, _GET, "software_deployments:metadata"),
        (DEPLOYMENT, software.deployment_show, _GET, "software_deployments:show"),
        (DEPLOYMENT, software.deployment_update, _PUT, "software_deployments:update"),
        (DEPLOYMENT, software.deployment_delete, _DELETE, "software_deployments:delete"),
        ("/build_info", catalog.build_info, _GET, "build_info:build_info"),
        ("/services", catalog.services, _GET, "service:index"),
    ]
]


def routes() -> list[BaseRoute]:
    """Version discovery, Heat's v1 routes (`PROJECT_ROUTES`) and the dashboard's."""
    return [
        Route("/", versions.versions, methods=["GET"]),
        Route("/v1/", versions.version, methods=["GET"]),
        Route("/v1/{project}", versions.version, methods=["GET"]),
        Route("/v1/{project}/", versions.version, methods=["GET"]),
        Mount("/v1/{project}", routes=PROJECT_ROUTES),
        *dashboard_routes(),
    ]


async def _api_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, ApiError)
    return JSONResponse(error_body(error.status, error.kind, error.message), error.status)


async def _stoker_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, StokerError)
    return await _api_error(request, from_stoker(error))


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    kinds = {404: "HTTPNotFound", 405: "HTTPMethodNotAllowed"}
    kind = kinds.get(error.status_code, "HTTPException")
    message = error.detail if isinstance(error.detail, str) else "The request failed."
    body = error_body(error.status_code, kind, message)
    return JSONResponse(body, error.status_code, headers=error.headers)


async def _internal_error(request: Request, error: Exception) -> Response:
    log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=error)
    body = error_body(500, type(error).__name__, "The server met an unexpected error.")
    return JSONResponse(body, 500)


class _RequestId:
    """Every answer carries ``X-Openstack-Request-Id``, as Heat's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = f"req-{uuid.uuid4()}".encode()

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-openstack-request-id", request_id))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, stamped)


class _NoNul:
    """A path or query string with a NUL character is a bad request (400), before any
    handler looks it up: no stack, resource or config can be named with one (PostgreSQL's
    text cannot hold it, and the request bodies refuse it, `stoker.request_body`), and
    answering alike on every store beats a database error on one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            where = None
            if "\0" in scope["path"]:
                where = "path"
            elif b"\0" in unquote_to_bytes(scope.get("query_string", b"")):
                where = "query string"
            if where is not None:
                message = f"The request's {where} holds a NUL character (%00)."
                body = error_body(400, "HTTPBadRequest", message)
                await JSONResponse(body, 400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_app(
    store: Store,
    registry: ResourceTypeRegistry | None,
    settings: EngineSettings,
    limits: ApiLimits | None = None,
    *,
    recover: bool = True,
    abandon_on_stop: bool = False,
    keystone: KeystoneValidator | None = None,
    policy: Policy | None = None,
    cloud: Cloud | None = None,
    credentials: StackCredentials | None = None,
    public_url: str | None = None,
) -> Starlette:
    """The API over ``store``; with ``recover`` its startup begins the sweeps that take
    over dead servers' operations (see `stoker.api.operations`); ``abandon_on_stop``
    (`stoker serve`) leaves operations still running at shutdown to the next server
    rather than cancel them (`Operations.close`); with ``keystone`` every request under
    ``/v1/{project}/`` needs a valid token (`stoker.api.auth`), without it none does
    (``--auth noauth``), and ``policy`` (Heat's defaults unless given) decides what the
    token's roles allow; with ``cloud`` (``--os-cloud``) every request and operation
    checks cloud constraints and answers ``Fn::GetAZs`` from it (`stoker.api.cloud`; the
    registry given has its resource types). Without a ``registry``, the default one is
    built when a request first needs it (`Operations.registry`). With ``credentials``
    (``--cloud-credentials caller``), each request's cloud calls act with its caller's
    token and each stack's operations with its owner's trust (`stoker.api.trusts`).
    Every URL the API writes starts with ``public_url`` (``--public-url``), by default
    the address the server listens on (`stoker.api.links`)."""
    from stoker.api.cloud import CloudScope

    operations = Operations(store, registry, settings, credentials)
    api = Api(operations, limits or ApiLimits())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if recover:
            operations.begin()
        try:
            yield
        finally:
            await operations.close(grace=30.0 if abandon_on_stop else 5.0, abandon=abandon_on_stop)

    handlers: dict[Any, Any] = {
        ApiError: _api_error,
        StokerError: _stoker_error,
        HTTPException: _http_error,
        Exception: _internal_error,
    }
    middleware = [Middleware(_RequestId), Middleware(_NoNul)]
    if cloud is not None:
        middleware.append(Middleware(CloudScope, cloud=cloud))
    if keystone is not None:
        # imported here: a server without Keystone never loads the gate and its policy
        from stoker.api.auth import KeystoneGate
        from stoker.api.policy import Policy

        acting = None
        if credentials is not None:
            from stoker.api.trusts import caller

            acting = partial(caller, auth_url=keystone.auth_url)
        middleware.append(
            Middleware(KeystoneGate, validator=keystone, policy=policy or Policy(), acting=acting)
        )
    app = Starlette(
        routes=routes(),
        exception_handlers=handlers,
        lifespan=lifespan,
        middleware=middleware,
    )
    app.state.api = api
    # the dashboard checks its own logins with the API's validator and policy
    app.state.keystone = keystone
    app.state.policy = policy
    app.state.public_url = public_url.rstrip("/") if public_url else None
    return app
