"""Keystone's models: domains, projects, users, roles, role assignments and tokens."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict, Forbidden, NotFound, Unauthorized
from stoker.sandbox.identity.trusts import SCOPE, Trusts
from stoker.sandbox.service import Hub, HubBackend, RequestContext, Service
from stoker.sandbox.store import Document

DOMAIN = "identity.domain"
PROJECT = "identity.project"
USER = "identity.user"
ROLE = "identity.role"
ASSIGNMENT = "identity.assignment"
TOKEN = "identity.token"

TOKEN_LIFETIME = 24 * 3600.0
DEFAULT_DOMAIN = "default"


def _hex_id() -> str:
    return uuid.uuid4().hex


def _hash(password: str, salt: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 1000).hex()


def token_key(token_id: str) -> str:
    """What a token is stored under: the SHA-256 of its value, never the value, so that
    the sandbox's database holds no token anyone could present (a lookup hashes the
    token it is given)."""
    return hashlib.sha256(token_id.encode()).hexdigest()


def service_id(service: Service) -> str:
    """A stable id per service type, so the catalog reads the same on every request."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"stoker-sandbox:{service.type}").hex


class IdentityBackend(HubBackend):
    def __init__(self, hub: Hub) -> None:
        super().__init__(hub)
        self.trusts = Trusts(self)
        if self.store.get(DOMAIN, DEFAULT_DOMAIN) is None:
            self._seed()
        self._forget_clear_tokens()

    # -- seed -------------------------------------------------------------------------

    def _seed(self) -> None:
        with self.store.transaction():
            self.store.insert(
                DOMAIN,
                DEFAULT_DOMAIN,
                {
                    "id": DEFAULT_DOMAIN,
                    "name": "Default",
                    "enabled": True,
                    "description": "The default domain",
                    "tags": [],
                },
                None,
            )
            roles = {name: self.create_role(name)["id"] for name in ("admin", "member", "reader")}
            password = self.hub.config.password
            for name, role in (("admin", "admin"), ("demo", "member")):
                project = self.create_project({"name": name, "description": f"{name} project"})
                user = self.create_user(
                    {"name": name, "password": password, "default_project_id": project["id"]}
                )
                self.assign(user["id"], project["id"], roles[role])
                if role == "member":
                    self.assign(user["id"], project["id"], roles["reader"])
            self.create_project({"name": "service", "description": "service project"})

    def _get(self, kind: str, id: str) -> Document:
        """A domain, project, user or role by id; 404 as Keystone words it."""
        found = self.store.get(kind, id)
        if found is None:
            raise NotFound(f"Could not find {kind.partition('.')[2]}: {id}.")
        return found

    # -- domains ----------------------------------------------------------------------

    def domain(self, domain_id: str) -> Document:
        return self._get(DOMAIN, domain_id)

    def domains(self) -> list[Document]:
        return self.store.list(DOMAIN)

    def _domain_ref(self, ref: Any) -> str:
        """A domain given ``{"id": ...}`` or ``{"name": ...}`` (as auth requests do)."""
        if not isinstance(ref, dict):
            raise BadRequest("Expecting to find domain in the request")
        if "id" in ref:
            return str(self.domain(str(ref["id"]))["id"])
        for domain in self.domains():
            if domain["name"] == ref.get("name"):
                return str(domain["id"])
        raise Unauthorized(f"Could not find domain: {ref.get('name')}.")

    # -- projects ---------------------------------------------------------------------

    def _named(self, kind: str, body: Document) -> tuple[str, str]:
        """A new project's or user's name and domain: unique there, in a domain that exists."""
        what = kind.partition(".")[2]
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"Invalid input for field 'name': a {what} needs a name")
        domain_id = str(body.get("domain_id") or DEFAULT_DOMAIN)
        self.domain(domain_id)
        if any(d["name"] == name and d["domain_id"] == domain_id for d in self.store.scan(kind)):
            raise Conflict(
                f"Conflict occurred attempting to store {what} - Duplicate entry {name}."
            )
        return name, domain_id

    def create_project(self, body: Document) -> Document:
        name, domain_id = self._named(PROJECT, body)
        project: Document = {
            "id": _hex_id(),
            "name": name,
            "domain_id": domain_id,
            "parent_id": domain_id,
            "description": str(body.get("description") or ""),
            "enabled": bool(body.get("enabled", True)),
            "is_domain": False,
            "tags": list(body.get("tags") or []),
            "options": {},
        }
        self.store.insert(PROJECT, project["id"], project, None)
        return project

    def project(self, project_id: str) -> Document:
        return self._get(PROJECT, project_id)

    def projects(self) -> list[Document]:
        return self.store.list(PROJECT)

    def update_project(self, project_id: str, changes: Document) -> Document:
        project = self.project(project_id)
        for key in ("name", "description", "enabled", "tags"):
            if key in changes:
                project[key] = changes[key]
        self.store.put(PROJECT, project_id, project)
        return project

    def delete_project(self, project_id: str) -> None:
        self.project(project_id)
        self.store.delete(PROJECT, project_id)

    def _project_ref(self, ref: Any) -> str:
        if not isinstance(ref, dict):
            raise BadRequest("Expecting to find project in scope")
        if "id" in ref:
            found = self.store.get(PROJECT, str(ref["id"]))
            if found is None:
                raise Unauthorized(f"Could not find project: {ref['id']}.")
            return str(found["id"])
        domain_id = self._domain_ref(ref.get("domain"))
        for project in self.projects():
            if project["name"] == ref.get("name") and project["domain_id"] == domain_id:
                return str(project["id"])
        raise Unauthorized(f"Could not find project: {ref.get('name')}.")

    # -- users and roles --------------------------------------------------------------

    def create_user(self, body: Document) -> Document:
        name, domain_id = self._named(USER, body)
        salt = secrets.token_hex(8)
        user: Document = {
            "id": _hex_id(),
            "name": name,
            "domain_id": domain_id,
            "enabled": bool(body.get("enabled", True)),
            "default_project_id": body.get("default_project_id"),
            "password_expires_at": None,
            "options": {},
            "_salt": salt,
            "_password": _hash(str(body.get("password") or ""), salt),
        }
        self.store.insert(USER, user["id"], user, None)
        return user

    def user(self, user_id: str) -> Document:
        return self._get(USER, user_id)

    def users(self) -> list[Document]:
        return self.store.list(USER)

    def delete_user(self, user_id: str) -> None:
        self.user(user_id)
        self.store.delete(USER, user_id)

    def create_role(self, name: str) -> Document:
        if any(r["name"] == name for r in self.roles()):
            raise Conflict(f"Conflict occurred attempting to store role - Duplicate entry {name}.")
        role: Document = {"id": _hex_id(), "name": name, "domain_id": None, "description": None}
        self.store.insert(ROLE, role["id"], role, None)
        return role

    def role(self, role_id: str) -> Document:
        return self._get(ROLE, role_id)

    def roles(self) -> list[Document]:
        return self.store.list(ROLE)

    def assign(self, user_id: str, project_id: str, role_id: str) -> None:
        self.user(user_id)
        self.project(project_id)
        self.role(role_id)
        key = f"{user_id}:{project_id}:{role_id}"
        if self.store.get(ASSIGNMENT, key) is None:
            document = {"user_id": user_id, "project_id": project_id, "role_id": role_id}
            self.store.insert(ASSIGNMENT, key, document, None)

    def roles_on(self, user_id: str, project_id: str) -> list[Document]:
        assigned = self.store.list(
            ASSIGNMENT, where=lambda a: a["user_id"] == user_id and a["project_id"] == project_id
        )
        return [self.role(a["role_id"]) for a in assigned]

    def user_projects(self, user_id: str) -> list[Document]:
        ids = {a["project_id"] for a in self.store.list(ASSIGNMENT) if a["user_id"] == user_id}
        return [p for p in self.projects() if p["id"] in ids]

    # -- tokens -----------------------------------------------------------------------

    def _forget_clear_tokens(self) -> None:
        """Drop the tokens a database made before tokens were kept hashed: each was
        stored under its own value (and with it, as ``id``); they can no longer be
        presented, as a lookup hashes what it is given."""
        stale = [t["id"] for t in self.store.list(TOKEN) if "id" in t]
        if stale:
            with self.store.transaction():
                for token_id in stale:
                    self.store.delete(TOKEN, token_id)

    def _password_user(self, password: Any) -> Document:
        if not isinstance(password, dict) or not isinstance(password.get("user"), dict):
            raise BadRequest("Expecting to find user in password")
        ref = password["user"]
        if "id" in ref:
            user: Document | None = self.store.get(USER, str(ref["id"]))
        else:
            domain_id = self._domain_ref(ref.get("domain"))
            name = ref.get("name")
            matches = [u for u in self.users() if (u["name"], u["domain_id"]) == (name, domain_id)]
            user = matches[0] if matches else None
        secret = str(ref.get("password") or "")
        if (
            user is None
            or not user["enabled"]
            or not hmac.compare_digest(user["_password"], _hash(secret, user["_salt"]))
        ):
            raise Unauthorized("The request you have made requires authentication.")
        return user

    def issue(self, auth: Document) -> Document:
        """A new token for an ``auth`` request body; its document."""
        identity = auth.get("identity")
        if not isinstance(identity, dict) or not isinstance(identity.get("methods"), list):
            raise BadRequest("Expecting to find identity in auth")
        methods = [str(m) for m in identity["methods"]]
        previous: Document | None = None
        if "password" in methods:
            user = self._password_user(identity.get("password"))
        elif "token" in methods:
            ref = identity.get("token")
            previous = self.token(str(ref.get("id") if isinstance(ref, dict) else ""))
            if previous is None:
                raise Unauthorized("The request you have made requires authentication.")
            user = self.user(previous["user_id"])
        else:
            raise Unauthorized(f"Attempted to authenticate with an unsupported method: {methods}")
        scope = auth.get("scope")
        project_id: str | None = None
        domain_id: str | None = None
        trust_id: str | None = previous.get("trust_id") if previous else None
        if isinstance(scope, dict) and SCOPE in scope:
            trust = self.trusts.scope(user, scope[SCOPE])
            project_id, trust_id = trust["project_id"], trust["id"]
            if trust["impersonation"]:  # the token acts as the trustor
                user = self.user(trust["trustor_user_id"])
        elif isinstance(scope, dict) and "project" in scope:
            if trust_id:
                raise Forbidden("A trust-scoped token cannot be rescoped.")
            project_id = self._project_ref(scope["project"])
            if not self.roles_on(user["id"], project_id):
                raise Unauthorized(f"User {user['id']} has no access to project {project_id}")
        elif isinstance(scope, dict) and "domain" in scope:
            domain_id = self._domain_ref(scope["domain"])
        elif scope is None and previous is not None:
            project_id = previous.get("project_id")
        now = self.hub.now()
        token_id = secrets.token_urlsafe(32)
        token: Document = {
            "user_id": user["id"],
            "project_id": project_id,
            "domain_id": domain_id,
            "methods": methods,
            "issued": now,
            "expires": previous["expires"] if previous else now + TOKEN_LIFETIME,
            "audit_id": secrets.token_urlsafe(16)[:22],
            "trust_id": trust_id,
        }
        self.store.insert(TOKEN, token_key(token_id), token, None)
        return {**token, "id": token_id}

    def token(self, token_id: str) -> Document | None:
        """A token that is valid now (None when unknown, revoked or expired), with the
        ``id`` it was presented by."""
        found = self.store.get(TOKEN, token_key(token_id)) if token_id else None
        if found is None or found["expires"] <= self.hub.now():
            return None
        if found.get("trust_id") and self.trusts.trust(found["trust_id"]) is None:
            return None  # its trust was deleted: Keystone revokes the trust's tokens
        return {**found, "id": token_id}

    def token_roles(self, token: Document) -> list[Document]:
        """The roles a token carries: a trust-scoped token's are the trust's delegated
        roles (those the trustor still has), any other's its user's on its project."""
        if not token["project_id"]:
            return []
        if token.get("trust_id"):
            trust = self.trusts.trust(token["trust_id"])
            return self.trusts.roles(trust) if trust is not None else []
        return self.roles_on(token["user_id"], token["project_id"])

    def revoke(self, token_id: str) -> None:
        if not self.store.delete(TOKEN, token_key(token_id)):
            raise NotFound(f"Could not find token: {token_id}.")

    def context_for(self, token: str) -> RequestContext | None:
        found = self.token(token)
        if found is None:
            return None
        roles = tuple(r["name"] for r in self.token_roles(found))
        return RequestContext(
            user_id=found["user_id"],
            project_id=found["project_id"] or "",
            roles=roles,
            token=token,
            trust_id=found.get("trust_id") or "",
        )
