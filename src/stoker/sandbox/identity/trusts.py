"""Keystone's OS-TRUST extension: a user (the trustor) lets another (the trustee) act on
one of the trustor's projects with some of the trustor's roles there.

``stoker serve`` does its work outliving a request this way (Heat's
``deferred_auth_method = trusts``): the caller delegates to stoker's service user, which
authenticates with its own password scoped to the trust (``{"OS-TRUST:trust": {"id":
...}}``) and gets a token on the trustor's project, carrying the delegated roles, and,
with ``impersonation``, the trustor as its user. Deleting a trust ends every token
issued under it, as in Keystone.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from stoker.sandbox.http_errors import BadRequest, Forbidden, NotFound, Unauthorized
from stoker.sandbox.service import RequestContext
from stoker.sandbox.store import Document

if TYPE_CHECKING:
    from stoker.sandbox.identity.backend import IdentityBackend


TRUST = "identity.trust"
#: the scope key of a trust-scoped authentication, and of the token's body
SCOPE = "OS-TRUST:trust"


class Trusts:
    """The trusts of one sandbox's Keystone."""

    def __init__(self, backend: IdentityBackend) -> None:
        self.backend = backend
        self.store = backend.store

    def create(self, ctx: RequestContext, body: Mapping[str, Any]) -> Document:
        """A new trust from the caller (who must be the trustor, with a token of their
        own: a trust-scoped token cannot delegate further), of roles the trustor has on
        the project."""
        if ctx.trust_id:
            raise Forbidden("A trust-scoped token cannot be used to create a trust.")
        trustor = str(body.get("trustor_user_id") or "")
        trustee = str(body.get("trustee_user_id") or "")
        if not trustor or not trustee or not isinstance(body.get("impersonation"), bool):
            raise BadRequest(
                "Invalid input for a trust: trustor_user_id, trustee_user_id and "
                "impersonation are required"
            )
        if trustor != ctx.user_id:
            raise Forbidden("The trustor of a trust must be the user who creates it.")
        self.backend.user(trustee)
        project_id = str(body.get("project_id") or "")
        if project_id and project_id != ctx.project_id:
            raise Forbidden("A trust can delegate roles on the token's project only.")
        held = self.backend.roles_on(trustor, project_id) if project_id else []
        roles = []
        for ref in body.get("roles") or []:
            if not isinstance(ref, dict):
                raise BadRequest("Invalid input for a trust: each role is an object")
            match = [r for r in held if r["id"] == ref.get("id") or r["name"] == ref.get("name")]
            if not match:
                raise Forbidden(f"The trustor does not have the role {ref} on the project.")
            roles.append({"id": match[0]["id"], "name": match[0]["name"]})
        if project_id and not roles:
            raise BadRequest("At least one role should be specified.")
        trust: Document = {
            "id": uuid.uuid4().hex,
            "trustor_user_id": trustor,
            "trustee_user_id": trustee,
            "project_id": project_id or None,
            "impersonation": body["impersonation"],
            "roles": roles,
            "expires_at": body.get("expires_at"),
            "remaining_uses": None,
            "allow_redelegation": False,
            "redelegation_count": 0,
        }
        self.store.insert(TRUST, trust["id"], trust, project_id or None)
        return trust

    def trust(self, trust_id: str) -> Document | None:
        """A trust that still exists (None when unknown or deleted)."""
        return self.store.get(TRUST, trust_id) if trust_id else None

    def show(self, ctx: RequestContext, trust_id: str) -> Document:
        """A trust its trustor, its trustee or an admin asks for."""
        trust = self.trust(trust_id)
        if trust is None:
            raise NotFound(f"Could not find trust: {trust_id}.")
        if not ctx.is_admin and ctx.user_id not in (
            trust["trustor_user_id"],
            trust["trustee_user_id"],
        ):
            raise Forbidden("You are not authorized to perform the requested action.")
        return trust

    def listing(self, ctx: RequestContext, query: Mapping[str, str]) -> list[Document]:
        """Keystone's list: an admin sees every trust; anyone else filters on themself as
        trustor or trustee (a filter on another user is refused)."""
        trustor = query.get("trustor_user_id")
        trustee = query.get("trustee_user_id")
        named = {trustor, trustee} - {None}
        if not ctx.is_admin and named and ctx.user_id not in named:
            raise Forbidden("You are not authorized to perform the requested action.")
        return [
            t
            for t in self.store.list(TRUST)
            if trustor in (None, "", t["trustor_user_id"])
            and trustee in (None, "", t["trustee_user_id"])
            and (ctx.is_admin or ctx.user_id in (t["trustor_user_id"], t["trustee_user_id"]))
        ]

    def delete(self, ctx: RequestContext, trust_id: str) -> None:
        """Deleted by its trustor (a token impersonating the trustor counts) or an admin;
        every token issued under it stops being valid."""
        trust = self.show(ctx, trust_id)
        if not ctx.is_admin and ctx.user_id != trust["trustor_user_id"]:
            raise Forbidden("Only the trustor can delete a trust.")
        self.store.delete(TRUST, trust_id)

    def scope(self, user: Document, ref: Any) -> Document:
        """The trust a trustee authenticates into (``{"OS-TRUST:trust": {"id": ...}}``)."""
        trust_id = str(ref.get("id") or "") if isinstance(ref, dict) else ""
        trust = self.trust(trust_id)
        if trust is None:
            raise Unauthorized(f"Could not find trust: {trust_id}.")
        if trust["trustee_user_id"] != user["id"]:
            raise Forbidden("The user is not the trustee of the trust.")
        return trust

    def roles(self, trust: Mapping[str, Any]) -> list[Document]:
        """The delegated roles the trustor still holds on the trust's project."""
        project_id = trust.get("project_id")
        if not project_id:
            return []
        held = {r["id"] for r in self.backend.roles_on(trust["trustor_user_id"], project_id)}
        return [dict(r) for r in trust["roles"] if r["id"] in held]

    def token_part(self, trust: Mapping[str, Any]) -> Document:
        """The ``OS-TRUST:trust`` member of a trust-scoped token's body."""
        return {
            "id": trust["id"],
            "impersonation": trust["impersonation"],
            "trustor_user": {"id": trust["trustor_user_id"]},
            "trustee_user": {"id": trust["trustee_user_id"]},
        }


def public(trust: Mapping[str, Any], base: str) -> Document:
    """A trust as the API shows it."""
    shown = dict(trust)
    shown["links"] = {"self": f"{base}/identity/v3/OS-TRUST/trusts/{trust['id']}"}
    shown["roles_links"] = {"self": None, "next": None, "previous": None}
    return shown
