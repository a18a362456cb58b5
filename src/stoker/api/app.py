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


def routes() -> list[BaseRoute]:
    """Heat's v1 router (heat/api/openstack/v1/__init__.py), in its order where order
    matters: the lookups (302) come before the canonical stack paths, and
    ``software_deployments/metadata/{server}`` before ``software_deployments/{id}``."""
    get, post, delete, put_patch = ["GET"], ["POST"], ["DELETE"], ["PUT", "PATCH"]
    project_routes = [
        Route("/stacks", stacks.index, methods=get),
        Route("/stacks", stacks.create, methods=post),
        Route("/stacks/detail", stacks.detail, methods=get),
        Route("/stacks/preview", stacks.preview, methods=post),
        Route("/stacks/{arn:stoker_arn}/{rest:path}", stacks.arn_lookup, methods=ALL),
        Route("/stacks/{stack_name}", stacks.lookup, methods=ALL),
        Route("/stacks/{stack_name}/{sub:stoker_subpath}", stacks.lookup, methods=ALL),
        Route("/stacks/{stack_name}/{sub:stoker_subpath}/{rest:path}", stacks.lookup, methods=ALL),
        Route(STACK, stacks.show, methods=get),
        Route(STACK, stacks.update, methods=put_patch),
        Route(STACK, stacks.delete, methods=delete),
        Route(STACK + "/preview", stacks.update_preview, methods=put_patch),
        Route(STACK + "/abandon", actions.abandon, methods=delete),
        Route(STACK + "/export", actions.export, methods=get),
        Route(STACK + "/drift", actions.drift, methods=get),
        Route(STACK + "/drift", actions.accept, methods=post),
        Route(STACK + "/template", stacks.template, methods=get),
        Route(STACK + "/environment", stacks.environment, methods=get),
        Route(STACK + "/files", stacks.files, methods=get),
        Route(STACK + "/outputs", stacks.outputs, methods=get),
        Route(STACK + "/outputs/{output_key}", stacks.output_show, methods=get),
        Route(STACK + "/actions", actions.action, methods=post),
        Route(STACK + "/resources", resources.index, methods=get),
        Route(RESOURCE, resources.show, methods=get),
        Route(RESOURCE, resources.mark_unhealthy, methods=["PATCH"]),
        Route(RESOURCE + "/metadata", resources.metadata, methods=get),
        Route(RESOURCE + "/signal", resources.signal, methods=post),
        Route(STACK + "/events", resources.events, methods=get),
        Route(RESOURCE + "/events", resources.events, methods=get),
        Route(RESOURCE + "/events/{event_id}", resources.event_show, methods=get),
        Route(STACK + "/snapshots", actions.snapshot_create, methods=post),
        Route(STACK + "/snapshots", actions.snapshot_list, methods=get),
        Route(STACK + "/snapshots/{snapshot_id}", actions.snapshot_show, methods=get),
        Route(STACK + "/snapshots/{snapshot_id}", actions.snapshot_delete, methods=delete),
        Route(STACK + "/snapshots/{snapshot_id}/restore", actions.snapshot_restore, methods=post),
        Route("/validate", catalog.validate, methods=post),
        Route("/resource_types", catalog.resource_types, methods=get),
        Route("/resource_types/{type_name}", catalog.resource_type_show, methods=get),
        Route("/resource_types/{type_name}/template", catalog.resource_type_template, methods=get),
        Route("/template_versions", catalog.template_versions, methods=get),
        Route(
            "/template_versions/{template_version}/functions",
            catalog.template_functions,
            methods=get,
        ),
        Route("/software_configs", software.config_index, methods=get),
        Route("/software_configs", software.config_create, methods=post),
        Route("/software_configs/{config_id}", software.config_show, methods=get),
        Route("/software_configs/{config_id}", software.config_delete, methods=delete),
        Route("/software_deployments", software.deployment_index, methods=get),
        Route("/software_deployments", software.deployment_create, methods=post),
        Route(
            "/software_deployments/metadata/{server_id}", software.deployment_metadata, methods=get
        ),
        Route("/software_deployments/{deployment_id}", software.deployment_show, methods=get),
        Route("/software_deployments/{deployment_id}", software.deployment_update, methods=["PUT"]),
        Route("/software_deployments/{deployment_id}", software.deployment_delete, methods=delete),
        Route("/build_info", catalog.build_info, methods=get),
        Route("/services", catalog.services, methods=get),
    ]
    return [
        Route("/", versions.versions, methods=["GET"]),
        Route("/v1/", versions.version, methods=["GET"]),
        Route("/v1/{project}", versions.version, methods=["GET"]),
        Route("/v1/{project}/", versions.version, methods=["GET"]),
        Mount("/v1/{project}", routes=project_routes),
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
