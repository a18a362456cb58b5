"""What a service is, to the sandbox: a backend, its routes, its documents, its errors.

A service module (``stoker.sandbox.compute``, ...) exposes one `Service`. The app
(`stoker.sandbox.app.create_app`) mounts every service at its ``prefix``, answers its
version discovery at that root, lists it in Keystone's catalog, and wraps each of its
operations with what every OpenStack API does alike (token check, microversion, request
id, injected faults, the service's own error body). See docs/sandbox.md, "Adding a
service".
"""

from __future__ import annotations

import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from stoker.sandbox.http import base_url, link, reply
from stoker.sandbox.http_errors import policy_refusal

if TYPE_CHECKING:
    from stoker.sandbox.faults import Faults
    from stoker.sandbox.http_errors import ApiError
    from stoker.sandbox.store import SandboxStore

T = TypeVar("T")

#: the calls `Hub.record_call` keeps (the oldest are dropped beyond)
CALLS_KEPT = 10_000


@dataclass(frozen=True)
class RequestContext:
    """Who asks, from their token (Keystone's answer), and at which microversion."""

    user_id: str
    project_id: str
    roles: tuple[str, ...]
    microversion: tuple[int, int] | None = None
    token: str = ""
    #: the trust a trust-scoped token acts under ("" for any other token)
    trust_id: str = ""

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles

    @property
    def scope(self) -> str | None:
        """The project whose objects the request reaches: the token's; None (every
        project's) for an admin."""
        return None if self.is_admin else self.project_id

    def reaches(self, project_id: str) -> bool:
        """Whether the request reaches ``project_id``'s objects: those of the token's own
        project, or of any project for an admin."""
        return self.is_admin or project_id == self.project_id

    def require_admin(self, rule: str) -> None:
        """403 (`policy_refusal` of ``rule``) unless the token is an admin's."""
        if not self.is_admin:
            raise policy_refusal(rule)

    def at_least(self, major: int, minor: int) -> bool:
        """Whether the request's microversion is ``major.minor`` or later."""
        return self.microversion is not None and self.microversion >= (major, minor)


#: an operation's handler: the request and its context in, a response out
Handler = Callable[[Request, RequestContext], Awaitable[Response]]


@dataclass(frozen=True)
class Operation:
    """One route of a service. ``name`` (``servers.create``) is what fault rules name."""

    method: str
    path: str
    name: str
    handler: Handler
    authenticated: bool = True
    #: the microversion the route is there from (before it, 404 as Nova and Cinder answer)
    since: tuple[int, int] | None = None


def routes(
    root: str,
    table: Iterable[tuple[str, str, str, Handler]],
    since: tuple[int, int] | None = None,
) -> list[Operation]:
    """A service's route table below its version root (``/v2.1``): one row per route,
    ``(method, path, operation name, handler)``, every one behind a token, and there
    from microversion ``since`` when given."""
    return [
        Operation(method, root + path, name, handler, since=since)
        for method, path, name, handler in table
    ]


def version_routes(root: str, document: Callable[[str], Mapping[str, Any]]) -> list[Operation]:
    """The version document at a service's version root (with and without the final
    slash), built for the base URL the client used; read without a token, as clients
    read it before they authenticate."""

    async def version(request: Request, ctx: RequestContext) -> Response:
        return reply(document(base_url(request)))

    return [
        Operation("GET", root, "version", version, authenticated=False),
        Operation("GET", root + "/", "version", version, authenticated=False),
    ]


@dataclass(frozen=True)
class Microversions:
    """The microversion range a service accepts, and the header names it reads."""

    service_type: str  # in ``OpenStack-API-Version: compute 2.60``
    minimum: tuple[int, int]
    maximum: tuple[int, int]
    legacy_header: str | None = None  # ``X-OpenStack-Nova-API-Version``

    def render(self, version: tuple[int, int]) -> str:
        return f"{version[0]}.{version[1]}"

    def document(self, id: str, updated: str, href: str, media_type: str) -> dict[str, Any]:
        """The version entry Nova and Cinder publish: this range, its link, its media type."""
        return {
            "id": id,
            "status": "CURRENT",
            "version": self.render(self.maximum),
            "min_version": self.render(self.minimum),
            "updated": updated,
            "links": [link(href)],
            "media-types": [{"base": "application/json", "type": media_type}],
        }


@dataclass
class SandboxConfig:
    """Settings of one running sandbox (``stoker sandbox serve`` options)."""

    #: seconds a server stays in BUILD (a volume in ``creating``...) before it is ready
    build_delay: float = 1.0
    #: the password of the seeded ``admin`` and ``demo`` users
    password: str = "sandbox"
    region: str = "RegionOne"
    #: the faults to inject (``--faults FILE`` and the control API change them)
    faults: Faults | None = None
    #: the hosts Glance's ``web-download`` import may fetch from (``--import-allow``),
    #: lower case; none by default, as a fetch from the sandbox's host could read its
    #: loopback services (Glance's ``http_import`` allow-list does the same job)
    import_allow: tuple[str, ...] = ()


@dataclass(frozen=True)
class Service:
    """One OpenStack service of the sandbox; see the module docstring."""

    name: str  # catalog name: ``nova``
    type: str  # catalog type: ``compute``
    prefix: str  # where it is mounted: ``/compute``
    make_backend: Callable[[Hub], Any]
    operations: Callable[[Any], list[Operation]]
    #: the document at ``prefix`` (version discovery): (status, body) for the base URL
    versions: Callable[[str], tuple[int, Mapping[str, Any]]]
    #: the error as this service renders it
    error_body: Callable[[ApiError], Response]
    #: the catalog URL below the host (``/compute/v2.1``), when it is not ``prefix``
    endpoint_path: str = ""
    microversions: Microversions | None = None
    #: whether the catalog URL ends with the project id (Cinder's ``/volume/v3/{id}``)
    project_in_url: bool = False


@dataclass
class Hub:
    """What every backend shares: the store, the settings, the clock, and the other
    backends (Nova asks for Neutron's through `find`, when it is there)."""

    store: SandboxStore
    config: SandboxConfig
    #: the services running, in catalog order (Keystone lists them)
    services: list[Service] = field(default_factory=list)
    backends: dict[str, Any] = field(default_factory=dict)
    clock: Callable[[], float] = time.time
    #: what `find` found, by protocol, with the backends it looked at: an ``isinstance``
    #: against a runtime-checkable Protocol walks the Protocol's members, and
    #: every request's token is checked through `find`
    _found: dict[type[Any], tuple[tuple[Any, ...], Any]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def find(self, protocol: type[T]) -> T | None:
        """The backend that provides ``protocol`` (a runtime-checkable Protocol of
        `stoker.sandbox.interfaces`), or None when no such service runs: the first, in
        the order of ``backends``, as long as those are the same backends."""
        looked_at = tuple(self.backends.values())  # held: their ids cannot be reused
        known = self._found.get(protocol)
        if (
            known is not None
            and len(known[0]) == len(looked_at)
            and all(a is b for a, b in zip(known[0], looked_at, strict=True))
        ):
            return known[1]  # type: ignore[no-any-return]
        found = next((b for b in self.backends.values() if isinstance(b, protocol)), None)
        self._found[protocol] = (looked_at, found)
        return found

    #: who made each authenticated call, latest last (``GET /sandbox/calls``)
    calls: deque[dict[str, str]] = field(default_factory=lambda: deque(maxlen=CALLS_KEPT))

    def now(self) -> float:
        return self.clock()

    def quota(self, service: str, resource: str) -> int:
        """The fault plan's quota of ``service``'s ``resource``; -1 (unlimited) when it
        sets none."""
        faults = self.config.faults
        limit = faults.quota(service, resource) if faults is not None else None
        return -1 if limit is None else limit

    def record_call(self, service: str, operation: str, ctx: RequestContext) -> None:
        """Note who made a call: the user, the project, and the trust it acted under."""
        self.calls.append(
            {
                "service": service,
                "operation": operation,
                "user_id": ctx.user_id,
                "project_id": ctx.project_id,
                "trust_id": ctx.trust_id,
            }
        )


class HubBackend:
    """A service's backend over the hub: its store, its transactions, its build delay
    (the time a new or changed object stays in its pending state)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.store = hub.store

    def transaction(self) -> Any:
        return self.store.transaction()

    @property
    def delay(self) -> float:
        return float(self.hub.config.build_delay)


def new_id() -> str:
    return str(uuid.uuid4())


def iso_time(seconds: float) -> str:
    """A timestamp as Nova and Glance write them (``2026-11-24T23:18:08Z``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def micro_time(seconds: float) -> str:
    """A timestamp with microseconds and no zone, as Cinder and Designate write them
    (``2026-11-24T23:18:08.000000``; Keystone's adds ``Z``)."""
    whole = int(seconds)
    micro = int((seconds - whole) * 1_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{micro:06d}"
