"""The sandbox's web app: every service on one host:port, devstack-style.

`create_app` opens the sandbox's database, makes each service's backend (Keystone's
first: the others check tokens with it), and mounts each service's operations under its
prefix, each wrapped by `_endpoint` with what every OpenStack API does alike:

- a request id in ``x-openstack-request-id`` (and Nova's ``x-compute-request-id``);
- the token in ``X-Auth-Token`` checked with Keystone's backend (401 otherwise);
- the microversion from ``OpenStack-API-Version`` (or the legacy header) checked against
  the service's range (406 outside it) and echoed back;
- the faults the plan asks for (latency, injected errors);
- an `ApiError` rendered as the service's own error body.

It also answers ``/sandbox/faults`` (the fault plan: GET, PUT a new one, DELETE; the
last two with an admin's token only) and ``/sandbox/stats`` (requests per operation, for
benchmarks, without a token).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, Router
from starlette.types import Receive, Scope, Send

from stoker.errors import UsageError
from stoker.sandbox import compute, dns, identity, image, loadbalancer, network, volume
from stoker.sandbox.faults import Faults, parse_faults
from stoker.sandbox.http import base_url, read_json, reply
from stoker.sandbox.http_errors import (
    ApiError,
    BadRequest,
    NotAcceptable,
    NotFound,
    ServerFault,
    Unauthorized,
    policy_refusal,
)
from stoker.sandbox.interfaces import TokenAuthority
from stoker.sandbox.service import (
    Hub,
    Microversions,
    Operation,
    RequestContext,
    SandboxConfig,
    Service,
)
from stoker.sandbox.store import SandboxStore

logger = logging.getLogger("stoker.sandbox")

#: seconds an idle keep-alive connection stays open (uvicorn's default is 5): a client
#: that reuses a pooled connection just as the server closes it gets "connection reset";
#: clients that pause between calls (a test suite on a loaded machine) should not
KEEP_ALIVE = 75

#: the services a sandbox runs, in catalog order (Keystone first: the others check tokens
#: with it); a new service adds its line here (docs/sandbox.md)
SERVICES: tuple[Service, ...] = (
    identity.SERVICE,
    compute.SERVICE,
    image.SERVICE,
    network.SERVICE,
    volume.SERVICE,
    loadbalancer.SERVICE,
    dns.SERVICE,
)

_VERSION = re.compile(r"^(\d+)\.(\d+)$")


def create_app(db_url: str = "sqlite://", config: SandboxConfig | None = None) -> Starlette:
    """The sandbox as an ASGI app (``app.state.hub`` holds its backends)."""
    config = config or SandboxConfig()
    hub = Hub(store=SandboxStore(db_url), config=config)
    services = hub.services = list(SERVICES)
    for service in services:
        hub.backends[service.type] = service.make_backend(hub)
    stats: Counter[str] = Counter()
    routes: list[Route] = []
    for service in services:
        routes.extend(_version_routes(service))
        for operation in service.operations(hub.backends[service.type]):
            routes.append(
                Route(
                    service.prefix + operation.path,
                    _endpoint(hub, service, operation, stats),
                    methods=[operation.method],
                    name=f"{service.type}:{operation.name}:{operation.method}",
                )
            )
    routes.extend(_control_routes(hub, stats))
    app = Starlette(routes=routes)
    app.router = _ServiceRouter(routes)
    app.state.hub = hub
    app.state.stats = stats
    return app


def _first_segment(path: str) -> str:
    return path.split("/", 2)[1] if path.startswith("/") else ""


class _ServiceRouter(Router):
    """Starlette's router, which tries the routes in turn: hundreds of them, so a Neutron
    or Octavia call tried a hundred regular expressions before its own. Every route's path starts
    with a literal segment (its service's prefix, ``/compute``, or ``/sandbox``), so only
    the routes of the request's first segment can match it: each segment has a router of
    its own routes, in their order, and a path whose segment none has (or a request with
    a ``root_path``, which these paths are not relative to) goes to the whole table, as
    before. Answers, 404s, 405s and slash redirects are the same: a redirect's other path
    has the same first segment."""

    def __init__(self, routes: list[Route]) -> None:
        super().__init__(routes=list(routes))
        groups: dict[str, list[Route]] = {}
        for route in routes:
            groups.setdefault(_first_segment(route.path), []).append(route)
        self._by_segment = {segment: Router(routes=group) for segment, group in groups.items()}

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            router = self._by_segment.get(_first_segment(scope["path"]))
            if router is not None:
                scope.setdefault("router", self)
                await router.app(scope, receive, send)
                return
        await super().app(scope, receive, send)


def _version_routes(service: Service) -> list[Route]:
    async def versions(request: Request) -> Response:
        status, body = service.versions(base_url(request))
        return JSONResponse(body, status_code=status)

    return [
        Route(service.prefix, versions, methods=["GET"]),
        Route(service.prefix + "/", versions, methods=["GET"]),
    ]


def _negotiate(ranges: Microversions, request: Request) -> tuple[int, int]:
    """The microversion the request asks for (the minimum when it names none)."""
    wanted: str | None = None
    for part in request.headers.get("openstack-api-version", "").split(","):
        name, _, version = part.strip().partition(" ")
        if name.lower() == ranges.service_type:
            wanted = version.strip()
    if wanted is None and ranges.legacy_header:
        wanted = request.headers.get(ranges.legacy_header)
    if not wanted:
        return ranges.minimum
    if wanted.lower() == "latest":
        return ranges.maximum
    match = _VERSION.match(wanted)
    if match is None:
        raise BadRequest(
            f"Invalid format for API version request: {wanted!r}; use MajorNum.MinorNum"
        )
    asked = (int(match[1]), int(match[2]))
    if not ranges.minimum <= asked <= ranges.maximum:
        raise NotAcceptable(
            f"Version {wanted} is not supported by the API. Minimum is "
            f"{ranges.render(ranges.minimum)} and maximum is {ranges.render(ranges.maximum)}."
        )
    return asked


def _authenticate(hub: Hub, request: Request) -> RequestContext:
    token = request.headers.get("x-auth-token")
    authority = hub.find(TokenAuthority)
    context = authority.context_for(token) if token and authority is not None else None
    if context is None:
        raise Unauthorized("The request you have made requires authentication.")
    return context


#: the roles that may change what a project holds (Keystone's defaults: ``reader``
#: reads, ``member`` and ``admin`` also write)
WRITERS = frozenset({"member", "admin"})


def _check_role(service: Service, operation: Operation, context: RequestContext) -> None:
    """Every service's default policy: a call that changes something needs a writer's
    role on the token's project (a ``reader`` can only look). Keystone decides its own
    calls (a user manages their own trusts, an admin the rest)."""
    if service.type == "identity" or operation.method in ("GET", "HEAD"):
        return
    if not WRITERS.intersection(context.roles):
        raise policy_refusal(f"{service.type}:{operation.name}")


def _endpoint(
    hub: Hub, service: Service, operation: Operation, stats: Counter[str]
) -> Callable[[Request], Awaitable[Response]]:
    counter_key = f"{service.type} {operation.name}"

    async def endpoint(request: Request) -> Response:
        stats[counter_key] += 1
        request_id = f"req-{uuid.uuid4()}"
        headers = {"x-openstack-request-id": request_id}
        if service.type == "compute":
            headers["x-compute-request-id"] = request_id
        ranges = service.microversions
        try:
            if operation.authenticated:
                context = _authenticate(hub, request)
                hub.record_call(service.type, operation.name, context)
                _check_role(service, operation, context)
            else:
                context = RequestContext(user_id="", project_id="", roles=())
            if ranges is not None:
                version = _negotiate(ranges, request)
                context = dataclasses.replace(context, microversion=version)
                shown = ranges.render(version)
                headers["openstack-api-version"] = f"{ranges.service_type} {shown}"
                vary = ["OpenStack-API-Version"]
                if ranges.legacy_header:
                    headers[ranges.legacy_header.lower()] = shown
                    vary.append(ranges.legacy_header)
                headers["vary"] = ", ".join(vary)
            faults = hub.config.faults
            if faults is not None:
                delay = faults.latency(service.type, operation.name)
                if delay:
                    await asyncio.sleep(delay)
                status = faults.error_status(service.type, operation.name)
                if status is not None:
                    raise ApiError(
                        f"Injected fault on {service.type} {operation.name}", status=status
                    )
            if operation.since is not None and not context.at_least(*operation.since):
                raise NotFound("The resource could not be found.")
            response = await operation.handler(request, context)
        except ApiError as error:
            response = service.error_body(error)
        except Exception:  # a bug in a handler: answered as the services answer theirs
            logger.exception("%s %s failed", service.type, operation.name)
            response = service.error_body(ServerFault("Unexpected API Error."))
        response.headers.update(headers)
        return response

    return endpoint


def _control_routes(hub: Hub, stats: Counter[str]) -> list[Route]:
    async def show_faults(request: Request) -> Response:
        faults = hub.config.faults or Faults()
        return reply(faults.to_document())

    def refused(
        request: Request, why: str = "Changing the fault plan needs the admin role."
    ) -> Response | None:
        """Changing the fault plan changes every project's cloud, and the calls name
        every project's users: an admin's token only (401 without a valid token, 403
        with another's)."""
        try:
            context = _authenticate(hub, request)
        except ApiError as error:
            return reply({"error": error.message}, error.status)
        if not context.is_admin:
            return reply({"error": why}, 403)
        return None

    async def set_faults(request: Request) -> Response:
        if (answer := refused(request)) is not None:
            return answer
        try:
            document = await read_json(request)
            hub.config.faults = parse_faults(document, "faults")
        except ApiError as error:
            return reply({"error": error.message}, error.status)
        except UsageError as error:
            return reply({"error": str(error)}, 400)
        return reply(hub.config.faults.to_document())

    async def clear_faults(request: Request) -> Response:
        if (answer := refused(request)) is not None:
            return answer
        hub.config.faults = None
        return Response(status_code=204)

    async def show_stats(request: Request) -> Response:
        return reply({"requests": sum(stats.values()), "operations": dict(stats)})

    async def reset_stats(request: Request) -> Response:
        stats.clear()
        return Response(status_code=204)

    async def show_calls(request: Request) -> Response:
        """Who made each authenticated call (`Hub.record_call`)."""
        if (answer := refused(request, "The calls are shown to an admin only.")) is not None:
            return answer
        return reply({"calls": list(hub.calls)})

    return [
        Route("/sandbox/faults", show_faults, methods=["GET"]),
        Route("/sandbox/faults", set_faults, methods=["PUT"]),
        Route("/sandbox/faults", clear_faults, methods=["DELETE"]),
        Route("/sandbox/stats", show_stats, methods=["GET"]),
        Route("/sandbox/stats", reset_stats, methods=["DELETE"]),
        Route("/sandbox/calls", show_calls, methods=["GET"]),
    ]
