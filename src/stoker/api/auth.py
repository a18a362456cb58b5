"""``stoker serve --auth keystone``: each request's ``X-Auth-Token`` validated against
Keystone v3, the URL's project checked against the token's, and the route's rule of
Heat's policy (`stoker.api.policy`) checked, before any handler runs.

Heat does this with keystonemiddleware's ``auth_token`` and oslo.policy; stoker asks
Keystone through keystoneauth1 (which openstacksdk already brings; imported only in this
mode), as the token itself or as the server's own service user. Validated tokens are
cached for a short time (never past their expiry), so a busy client costs Keystone one
validation per TTL rather than one a request.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from stoker.api.errors import forbidden_body
from stoker.api.policy import BY_BODY, Credentials, Policy, rule_for
from stoker.errors import ApiError, UsageError

if TYPE_CHECKING:  # keystoneauth1 (with requests, ~10 MB) only for --auth keystone
    from keystoneauth1 import session

    from stoker.cloud.acting import Acting

#: Keystone's default implied roles (admin implies member implies reader): a real
#: Keystone lists the implied roles in the token already; expanding them here too makes
#: the table below hold for a Keystone that does not
IMPLIED: dict[str, frozenset[str]] = {
    "admin": frozenset({"admin", "member", "reader"}),
    "member": frozenset({"member", "reader"}),
    "reader": frozenset({"reader"}),
}
#: the expiry of a token Keystone gives none
_NEVER = datetime.max.replace(tzinfo=UTC).timestamp()


@dataclass(frozen=True, slots=True)
class Identity:
    """What a validated token tells about its bearer."""

    user_id: str
    project_id: str
    roles: frozenset[str]
    is_admin_project: bool
    expires: float
    system_scope: str | None = None
    #: the role names as Keystone gave them (what a trust delegates)
    role_names: tuple[str, ...] = ()
    #: keystoneauth1's ``AccessInfo`` of the token (a request acts with it, `stoker.api.trusts`)
    access: Any = field(default=None, compare=False, repr=False)

    def credentials(self) -> Credentials:
        return Credentials(
            self.user_id, self.project_id, self.roles, self.is_admin_project, self.system_scope
        )


@dataclass(frozen=True, slots=True)
class ServiceCredentials:
    """The server's own Keystone user, as keystonemiddleware's ``[keystone_authtoken]``
    (``username``, ``password``, ``project_name``, their domains), for a Keystone whose
    policy does not let a token validate itself; or a clouds.yaml entry (``cloud``)."""

    username: str = ""
    password: str = ""
    project_name: str = ""
    user_domain_name: str = "Default"
    project_domain_name: str = "Default"
    cloud: str | None = None


def service_session(auth_url: str | None, credentials: ServiceCredentials) -> tuple[str, Any]:
    """Keystone's URL and an authenticated keystoneauth1 session for the service user:
    from the named clouds.yaml entry (its ``auth_url`` unless one is given), or from the
    explicit credentials."""
    if credentials.cloud is not None:
        from openstack import config as os_config
        from openstack import exceptions as os_exceptions

        try:
            region = os_config.OpenStackConfig().get_one(cloud=credentials.cloud)
        except os_exceptions.OpenStackCloudException as error:
            raise UsageError(f"--service-cloud {credentials.cloud}: {error}") from None
        url = auth_url or str(region.config.get("auth", {}).get("auth_url") or "")
        if not url:
            raise UsageError(f"--service-cloud {credentials.cloud}: the cloud has no auth_url")
        return url, region.get_session()
    if not auth_url:
        raise UsageError("--auth keystone needs Keystone's URL: --auth-url or $OS_AUTH_URL")
    from keystoneauth1 import session
    from keystoneauth1.identity import v3

    plugin = v3.Password(
        auth_url=auth_url,
        username=credentials.username,
        password=credentials.password,
        project_name=credentials.project_name,
        user_domain_name=credentials.user_domain_name,
        project_domain_name=credentials.project_domain_name,
    )
    return auth_url, session.Session(auth=plugin)


class KeystoneValidator:
    """Validates tokens against ``auth_url`` (Keystone v3: ``GET /v3/auth/tokens`` with the
    token as ``X-Subject-Token``). With ``service`` (a session authenticated as the
    server's own user, `service_session`) the server's token asks, as keystonemiddleware
    does; without, the token validates itself, which Keystone's default policy allows
    (``identity:validate_token`` admits the token's own subject)."""

    def __init__(
        self,
        auth_url: str,
        *,
        ttl: float = 60.0,
        max_entries: int = 4096,
        service: session.Session | None = None,
    ) -> None:
        base = auth_url.rstrip("/")
        self.auth_url = base
        self.tokens_url = (base if base.endswith("/v3") else base + "/v3") + "/auth/tokens"
        self.ttl = ttl
        self.max_entries = max_entries
        self.service = service
        if service is None:
            from keystoneauth1 import session as sessions

            service = sessions.Session()  # no service user: the token validates itself
        self.http: session.Session = service
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
            identity = replace(identity, expires=min(identity.expires, now + self.ttl))
            with self._lock:
                self._cache[key] = identity
                while len(self._cache) > self.max_entries:
                    self._cache.popitem(last=False)
        return identity

    def _validate(self, token: str) -> Identity | None:
        from keystoneauth1 import access
        from keystoneauth1.exceptions import ClientException

        if self.service is not None:  # the service's own token asks (keystoneauth adds it)
            headers, authenticated = {"X-Subject-Token": token}, True
        else:
            headers, authenticated = {"X-Auth-Token": token, "X-Subject-Token": token}, False
        try:
            response = self.http.get(
                self.tokens_url,
                headers=headers,
                authenticated=authenticated,
                raise_exc=False,
            )
        except ClientException as error:  # Keystone away, or the service's login refused
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
            roles |= IMPLIED.get(name.lower(), frozenset({name.lower()}))
        expires = info.expires
        return Identity(
            user_id=info.user_id or "",
            project_id=project_id,
            roles=frozenset(roles),
            is_admin_project=bool(info.is_admin_project),
            expires=expires.timestamp() if isinstance(expires, datetime) else _NEVER,
            role_names=tuple(info.role_names or ()),
            access=info,
        )


def _unavailable(detail: str) -> ApiError:
    """Keystone could not be reached or answered an error of its own: a 503."""
    return ApiError(503, "ServiceUnavailable", detail)


def keystone_body(code: int, title: str, message: str) -> dict[str, Any]:
    """keystonemiddleware's error body: Heat answers a bad token (401), or a token it
    cannot validate (503), with it before Heat's own fault handling sees the request."""
    return {"error": {"code": code, "title": title, "message": message}}


UNAUTHORIZED = keystone_body(
    401, "Unauthorized", "The request you have made requires authentication."
)


class KeystoneGate:
    """ASGI middleware in front of the routes: ``/``, ``/v1/`` and ``/v1/{project}`` (the
    version documents) stay open, as in Heat; everything under ``/v1/{project}/`` needs a
    valid token of that project (or of an admin, Heat's ``context_is_admin``) that the
    route's rule of the policy admits (`stoker.api.policy`). ``POST .../actions`` is
    decided by its handler once the body says which action (`authorize`)."""

    def __init__(
        self,
        app: ASGIApp,
        validator: KeystoneValidator,
        policy: Policy,
        acting: Callable[[Identity], Acting] | None = None,
    ) -> None:
        self.app = app
        self.validator = validator
        self.policy = policy
        #: with each stack's owner acting: the identity a request's cloud calls use
        self.acting = acting
        self.challenge = f'Keystone uri="{validator.auth_url}"'.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        parts = [part for part in str(scope.get("path", "")).split("/") if part]
        if scope["type"] != "http" or len(parts) < 3 or parts[0] != "v1":
            await self.app(scope, receive, send)
            return
        token = _header(scope, b"x-auth-token")
        try:
            identity = await asyncio.to_thread(self.validator.identify, token) if token else None
        except ApiError as error:
            detail = f"The identity service could not validate the token: {error.message}"
            body = keystone_body(503, "Service Unavailable", detail)
            await self._refuse(scope, receive, send, error.status, body)
            return
        if identity is None:
            await self._refuse(scope, receive, send, 401, UNAUTHORIZED)
            return
        grant = Grant(identity, self.policy, parts[1])
        rule = rule_for(str(scope["method"]), parts[2:])
        if not grant.project_ok or (rule not in (None, BY_BODY) and not grant.allows(rule)):
            await self._refuse(scope, receive, send, 403, forbidden_body())
            return
        scope.setdefault("state", {})["grant"] = grant
        if self.acting is None:
            await self.app(scope, receive, send)
            return
        from stoker.cloud.acting import acting_as

        with acting_as(self.acting(identity)):
            await self.app(scope, receive, send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, body: dict[str, Any]
    ) -> None:
        headers = {"WWW-Authenticate": self.challenge.decode()} if status == 401 else None
        await JSONResponse(body, status, headers=headers)(scope, receive, send)


@dataclass(frozen=True, slots=True)
class Grant:
    """A validated caller on one URL project: what Heat's ``registered_policy_enforce``
    decides. A project other than the token's is refused unless the caller is an admin
    (``context_is_admin``), whose requests are then checked against the token's own
    project (heat/api/openstack/v1/util.py)."""

    identity: Identity
    policy: Policy
    url_project: str

    @property
    def admin(self) -> bool:
        return self.policy.is_admin(self.identity.credentials())

    @property
    def project_ok(self) -> bool:
        return self.identity.project_id == self.url_project or self.admin

    def allows(self, rule: str) -> bool:
        project = self.identity.project_id if self.admin else self.url_project
        return self.policy.check(rule, self.identity.credentials(), {"project_id": project})


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return ""
