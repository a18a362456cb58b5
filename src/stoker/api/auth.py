"""``stoker serve --auth keystone``: each request's ``X-Auth-Token`` validated against
Keystone v3, the URL's project checked against the token's, and the roles against Heat's
default policy, before any handler runs.

Heat does this with keystonemiddleware's ``auth_token`` and oslo.policy; stoker asks
Keystone through keystoneauth1 (which openstacksdk already brings) and keeps the policy
as the small table below. Validated tokens are cached for a short time (never past their
expiry), so a busy client costs Keystone one validation per TTL rather than one a request.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from keystoneauth1 import access, session
from keystoneauth1.exceptions import ClientException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from stoker.errors import ApiError

#: Keystone's default implied roles (admin implies member implies reader): a real
#: Keystone lists the implied roles in the token already; expanding them here too makes
#: the table below hold for a Keystone that does not
IMPLIED: dict[str, frozenset[str]] = {
    "admin": frozenset({"admin", "member", "reader"}),
    "member": frozenset({"member", "reader"}),
    "reader": frozenset({"reader"}),
}

#: Heat's default policy (its "secure RBAC" defaults, heat/policies/*.py), per route: the
#: services list needs ``admin``; reads (GET) need ``reader`` on the project, but for an
#: export (``member``); writes need ``member``, but for a stack preview and a resource
#: signal (``reader``); a signal and the metadata reads are also open to
#: ``heat_stack_user`` (what Heat's wait conditions and deployments sign in as)
ADMIN_ONLY = ("services",)
MEMBER_READS = ("export",)
STACK_USER_ROUTES = ("signal", "metadata")


@dataclass(frozen=True, slots=True)
class Identity:
    """What a validated token tells about its bearer."""

    user_id: str
    project_id: str
    roles: frozenset[str]
    is_admin: bool
    expires: float


def required_role(method: str, route: list[str]) -> str:
    """The role a request needs, ``route`` being the path's parts after ``/v1/{project}``."""
    if route and route[0] in ADMIN_ONLY:
        return "admin"
    if method in ("GET", "HEAD"):
        return "member" if route and route[-1] in MEMBER_READS else "reader"
    if route == ["stacks", "preview"] or (route and route[-1] == "signal"):
        return "reader"
    return "member"


def allowed(identity: Identity, method: str, route: list[str]) -> bool:
    """Heat's default policy as `required_role` states it."""
    stack_user_route = any(part in STACK_USER_ROUTES for part in route[-2:])
    if stack_user_route and "heat_stack_user" in identity.roles:
        return True
    return required_role(method, route) in identity.roles


class KeystoneValidator:
    """Validates tokens against ``auth_url`` (Keystone v3: ``GET /v3/auth/tokens`` with the
    token as ``X-Subject-Token``). Without service credentials the token validates itself,
    which Keystone's default policy allows (``identity:validate_token`` admits the token's
    own subject)."""

    def __init__(
        self,
        auth_url: str,
        *,
        ttl: float = 60.0,
        max_entries: int = 4096,
        http: session.Session | None = None,
    ) -> None:
        base = auth_url.rstrip("/")
        self.auth_url = base
        self.tokens_url = (base if base.endswith("/v3") else base + "/v3") + "/auth/tokens"
        self.ttl = ttl
        self.max_entries = max_entries
        self.http = http or session.Session()
        self._cache: OrderedDict[str, Identity] = OrderedDict()
        self._lock = threading.Lock()

    def identify(self, token: str) -> Identity | None:
        """The token's identity, or None when Keystone does not know it (expired, revoked,
        made up) or it is scoped to no project. Raises a 503 `ApiError` when Keystone
        cannot be asked."""
        key = hashlib.sha256(token.encode()).hexdigest()
        now = time.time()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.expires > now:
                self._cache.move_to_end(key)
                return cached
            self._cache.pop(key, None)
        identity = self._validate(token)
        if identity is not None:
            identity = _until(identity, min(identity.expires, now + self.ttl))
            with self._lock:
                self._cache[key] = identity
                while len(self._cache) > self.max_entries:
                    self._cache.popitem(last=False)
        return identity

    def _validate(self, token: str) -> Identity | None:
        headers = {"X-Auth-Token": token, "X-Subject-Token": token}
        try:
            response = self.http.get(
                self.tokens_url, headers=headers, authenticated=False, raise_exc=False
            )
        except ClientException as error:
            raise _unavailable(str(error)) from None
        if response.status_code in (401, 403, 404):
            return None
        if response.status_code != 200:
            raise _unavailable(f"Keystone answered {response.status_code}")
        info = access.create(resp=response, body=response.json())
        project_id = info.project_id
        if not isinstance(info, access.AccessInfoV3) or not project_id:
            return None
        roles: set[str] = set()
        for name in info.role_names or []:
            roles |= IMPLIED.get(name, frozenset({name}))
        expires = info.expires
        return Identity(
            user_id=info.user_id or "",
            project_id=project_id,
            roles=frozenset(roles),
            is_admin="admin" in roles and bool(info.is_admin_project),
            expires=expires.timestamp() if isinstance(expires, datetime) else _far(),
        )


def _unavailable(detail: str) -> ApiError:
    """Keystone could not be reached or answered an error of its own: a 503."""
    return ApiError(503, "ServiceUnavailable", detail)


def _until(identity: Identity, expires: float) -> Identity:
    return Identity(
        identity.user_id, identity.project_id, identity.roles, identity.is_admin, expires
    )


def _far() -> float:
    return datetime.max.replace(tzinfo=UTC).timestamp()


def unauthorized_body() -> dict[str, Any]:
    """keystonemiddleware's 401 (Heat answers a bad token with it, before Heat's own
    fault handling sees the request)."""
    return {
        "error": {
            "code": 401,
            "title": "Unauthorized",
            "message": "The request you have made requires authentication.",
        }
    }


def forbidden_body() -> dict[str, Any]:
    """Heat's 403 from its policy check: a bare ``HTTPForbidden`` through Heat's fault
    middleware, which writes no ``message`` for an exception it does not mark safe."""
    return {
        "code": 403,
        "title": "Forbidden",
        "explanation": "Access was denied to this resource.",
        "error": {"type": "HTTPForbidden", "traceback": None},
    }


def unavailable_body(detail: str) -> dict[str, Any]:
    return {
        "error": {
            "code": 503,
            "title": "Service Unavailable",
            "message": f"The identity service could not validate the token: {detail}",
        }
    }


class KeystoneGate:
    """ASGI middleware in front of the routes: ``/``, ``/v1/`` and ``/v1/{project}`` (the
    version documents) stay open, as in Heat; everything under ``/v1/{project}/`` needs a
    valid token of that project (or an admin's) with the role the policy asks."""

    def __init__(self, app: ASGIApp, validator: KeystoneValidator) -> None:
        self.app = app
        self.validator = validator
        self.challenge = f'Keystone uri="{validator.auth_url}"'.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        parts = [part for part in str(scope["path"]).split("/") if part]
        if len(parts) < 3 or parts[0] != "v1":
            await self.app(scope, receive, send)
            return
        token = _header(scope, b"x-auth-token")
        if not token:
            await self._refuse(scope, receive, send, 401, unauthorized_body())
            return
        try:
            identity = await asyncio.to_thread(self.validator.identify, token)
        except ApiError as error:
            await self._refuse(scope, receive, send, error.status, unavailable_body(error.message))
            return
        if identity is None:
            await self._refuse(scope, receive, send, 401, unauthorized_body())
            return
        # Heat: a project other than the token's is refused, unless the token is an
        # admin's (heat/api/openstack/v1/util.py, registered_policy_enforce)
        project_ok = identity.project_id == parts[1] or identity.is_admin
        if not project_ok or not allowed(identity, str(scope["method"]), parts[2:]):
            await self._refuse(scope, receive, send, 403, forbidden_body())
            return
        scope.setdefault("state", {})["identity"] = identity
        await self.app(scope, receive, send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, body: dict[str, Any]
    ) -> None:
        headers = {"WWW-Authenticate": self.challenge.decode()} if status == 401 else None
        await JSONResponse(body, status, headers=headers)(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return ""
