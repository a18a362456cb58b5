"""Who is looking at the dashboard, and the forms' CSRF token.

Stateless, so that every worker of ``stoker serve --workers N`` reads the same answer:
the browser keeps what it needs in cookies, each ``HttpOnly`` and ``SameSite=Strict``
(``Secure`` behind https), and nothing is kept server-side.

- ``--auth noauth``: the project the page chose (as the API's URL names one).
- ``--auth keystone``: the Keystone token of the login form's user, scoped to the
  project chosen there, checked on every request exactly as the API's gate checks
  ``X-Auth-Token`` (`stoker.api.auth`: the same validator, its cache and the policy's
  rules for the action asked), never trusted from the cookie alone.

CSRF: a double-submitted random token: a cookie the page cannot be made to send from
another site (``SameSite=Strict``) and the same value in every form; a POST whose two
values differ is refused.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from stoker.errors import ApiError

if TYPE_CHECKING:
    from stoker.api.auth import Grant, KeystoneValidator
    from stoker.api.policy import Policy

PROJECT_COOKIE = "stoker_project"
TOKEN_COOKIE = "stoker_token"
CSRF_COOKIE = "stoker_csrf"
CSRF_FIELD = "csrf_token"
#: the project a noauth login form proposes (what the CLI's API examples use)
DEFAULT_PROJECT = "admin"


class LoginNeeded(Exception):
    """No project chosen, or the token is missing, expired or revoked: the login page."""


class Refused(Exception):
    """The user's roles do not allow what was asked (Heat's policy): a 403 page."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Viewer:
    """The dashboard's user on one request: the project it acts in, and (Keystone) the
    grant that decides each action."""

    project: str
    user: str
    grant: Grant | None = None

    def require(self, rule: str) -> None:
        """Raise `Refused` unless the policy's ``rule`` (``stacks:create``...) allows."""
        if self.grant is not None and not self.grant.allows(rule):
            raise Refused(rule)


def keystone_of(request: Request) -> KeystoneValidator | None:
    validator: KeystoneValidator | None = getattr(request.app.state, "keystone", None)
    return validator


def _policy_of(request: Request) -> Policy:
    from stoker.api.policy import Policy

    policy: Policy | None = getattr(request.app.state, "policy", None)
    return policy or Policy()


async def viewer_of(request: Request) -> Viewer:
    """The request's viewer; raises `LoginNeeded` when there is none."""
    project = request.cookies.get(PROJECT_COOKIE, "").strip()
    if not project:
        raise LoginNeeded
    validator = keystone_of(request)
    if validator is None:
        return Viewer(project, "")
    from stoker.api.auth import Grant

    token = request.cookies.get(TOKEN_COOKIE, "")
    if not token:
        raise LoginNeeded
    identity = await asyncio.to_thread(validator.identify, token)
    if identity is None:
        raise LoginNeeded
    grant = Grant(identity, _policy_of(request), project)
    if not grant.project_ok:
        raise LoginNeeded
    return Viewer(project, identity.user_id, grant)


@dataclass(frozen=True, slots=True)
class Login:
    """What the Keystone login form asks."""

    username: str
    password: str
    project: str
    domain: str = "Default"


def keystone_login(validator: KeystoneValidator, login: Login) -> tuple[str, str]:
    """A project-scoped token for the form's user (``POST /v3/auth/tokens``, password
    method) and the project's id; `ApiError` 401 when Keystone refuses it."""
    from keystoneauth1 import session
    from keystoneauth1.exceptions import ClientException
    from keystoneauth1.identity import v3

    auth = v3.Password(
        auth_url=validator.auth_url,
        username=login.username,
        password=login.password,
        project_name=login.project,
        user_domain_name=login.domain,
        project_domain_name=login.domain,
    )
    try:
        access = auth.get_access(session.Session(auth=auth))
    except ClientException as error:
        status = getattr(error, "http_status", None)
        if status in (401, 403, 404):
            wrong = "The user name, password or project is wrong."
            raise ApiError(401, "Unauthorized", wrong) from None
        raise ApiError(503, "ServiceUnavailable", f"Keystone could not be asked: {error}") from None
    return str(access.auth_token), str(access.project_id)


def _set_cookie(response: Response, request: Request, name: str, value: str) -> None:
    """A cookie only this site's requests carry, never read by the page's script."""
    secure = request.url.scheme == "https"
    response.set_cookie(name, value, httponly=True, samesite="strict", secure=secure, path="/")


def set_login(response: Response, request: Request, project: str, token: str | None) -> None:
    """Remember the chosen project (and the token) in the browser."""
    _set_cookie(response, request, PROJECT_COOKIE, project)
    if token is not None:
        _set_cookie(response, request, TOKEN_COOKIE, token)


def clear_login(response: Response) -> None:
    response.delete_cookie(PROJECT_COOKIE, path="/")
    response.delete_cookie(TOKEN_COOKIE, path="/")


def csrf_token(request: Request) -> str:
    """The request's CSRF token (the cookie's), or a new one `keep_csrf` then sets."""
    token = request.cookies.get(CSRF_COOKIE, "")
    if len(token) < 32:
        token = request.scope.setdefault("stoker_csrf", secrets.token_urlsafe(32))
    return token


def keep_csrf(response: Response, request: Request) -> None:
    """Send the CSRF cookie when the request came without one."""
    new = request.scope.get("stoker_csrf")
    if new is not None:
        _set_cookie(response, request, CSRF_COOKIE, new)


def csrf_ok(request: Request, submitted: object) -> bool:
    """Whether a form's token matches the cookie (compared in constant time)."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return (
        isinstance(submitted, str)
        and len(cookie) >= 32
        and hmac.compare_digest(cookie.encode(), submitted.encode())
    )
