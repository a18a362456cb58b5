"""``stoker serve --cloud-credentials caller``: every cloud call of a stack acts as the
user who owns it, on that user's project (Heat's ``deferred_auth_method = trusts``).

- A request acts with its caller's own token (`caller`): the checks a create makes
  against the cloud, an adopt's check of each physical resource, a resource's live
  attributes.
- What outlives the request (the operation running on, a takeover by another server
  after a crash, a later update or delete by someone else) acts with a Keystone trust:
  at the stack's creation its caller delegates their roles on the project (all of them,
  or Heat's ``trusts_delegated_roles``) to the server's service user (``--service-cloud``
  or ``--service-user``), with ``impersonation``; the trust's id is kept with the stack,
  sealed (`stoker.store.trusts`); the service user logs in scoped to it (keystoneauth's
  ``trust_id``) and acts as the owner (`for_stack`). Deleting the stack deletes the trust.

The Keystone calls go through keystoneauth1, imported only in this mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from stoker.cloud.acting import Acting
from stoker.errors import ApiError, StokerError

if TYPE_CHECKING:
    from stoker.api.auth import Grant, Identity
    from stoker.api.operations import Operations, Run
    from stoker.engine import EventRecord, StackRecord, Store
    from stoker.store import TrustStore


@dataclass(frozen=True, slots=True)
class TrusteeLogin:
    """How the service user logs in (``--service-*`` or a clouds.yaml entry's ``auth``),
    without a scope of its own: a trust gives it one."""

    auth_url: str
    username: str | None = None
    user_id: str | None = None
    password: str = field(default="", repr=False)
    user_domain_name: str | None = None
    user_domain_id: str | None = None

    def plugin(self, trust_id: str) -> Any:
        from keystoneauth1.identity import v3

        return v3.Password(
            auth_url=self.auth_url,
            username=self.username,
            user_id=self.user_id,
            password=self.password,
            user_domain_name=self.user_domain_name,
            user_domain_id=self.user_domain_id,
            trust_id=trust_id,
        )


def login_from_cloud(auth_url: str, auth: dict[str, Any]) -> TrusteeLogin:
    """The service user's login from a clouds.yaml entry's ``auth`` (its project scope
    dropped)."""

    def text(key: str) -> str | None:
        value = auth.get(key)
        return str(value) if value else None

    return TrusteeLogin(
        auth_url=auth_url,
        username=text("username"),
        user_id=text("user_id"),
        password=str(auth.get("password") or ""),
        user_domain_name=text("user_domain_name") or text("domain_name"),
        user_domain_id=text("user_domain_id") or text("domain_id"),
    )


class StackCredentials:
    """The trusts of one server: made for new stacks, found for running ones."""

    def __init__(
        self,
        login: TrusteeLogin,
        trustee_user_id: Callable[[], str],
        store: Store,
        delegated_roles: tuple[str, ...] = (),
    ) -> None:
        self.login = login
        self._trustee_user_id = trustee_user_id
        self._trustee: str | None = None
        self.delegated_roles = delegated_roles
        from stoker.store import SqlStore, TrustStore

        assert isinstance(store, SqlStore), "trusts are kept in a SQL store"
        self.trusts: TrustStore = TrustStore(store)
        self.store = store
        base = login.auth_url.rstrip("/")
        self.trusts_url = (base if base.endswith("/v3") else base + "/v3") + "/OS-TRUST/trusts"

    @property
    def trustee(self) -> str:
        """The service user's id (asked of Keystone once)."""
        if self._trustee is None:
            self._trustee = self._trustee_user_id()
        return self._trustee

    # ---------------------------------------------------------------- acting
    def acting_for_trust(self, trust_id: str, project: str, what: str) -> Acting:
        login = self.login
        return Acting(
            key=f"trust:{trust_id}",
            project_id=project,
            describe=f"the trust of {what}",
            plugin=lambda: login.plugin(trust_id),
        )

    def for_stack(self, stack: StackRecord) -> Acting | None:
        """The identity ``stack``'s operations act as: its root stack's trust (None
        when it has none: a stack made before trusts, or whose trust was never kept)."""
        root = stack
        while root.parent_id is not None:
            parent = self.store.get_stack(root.parent_id, root.project)
            if parent is None:
                break
            root = parent
        found = self.trusts.get(root.id)
        if found is None:
            return None
        return self.acting_for_trust(found.trust_id, found.project, f"stack {root.name}")

    # ---------------------------------------------------------------- trusts
    def create(self, identity: Identity) -> str:
        """A trust from the caller to the service user on the caller's project,
        delegating the configured roles (default: every role of the caller's token);
        made with the caller's own token. Returns its id."""
        from keystoneauth1 import session as sessions
        from keystoneauth1.exceptions import ClientException

        roles = self.delegated_roles or tuple(identity.role_names)
        body = {
            "trust": {
                "trustor_user_id": identity.user_id,
                "trustee_user_id": self.trustee,
                "project_id": identity.project_id,
                "impersonation": True,
                "roles": [{"name": name} for name in roles],
            }
        }
        session = sessions.Session(auth=caller_plugin(identity, self.login.auth_url))
        try:
            response = session.post(self.trusts_url, json=body, raise_exc=False)
        except ClientException as error:
            raise ApiError(503, "ServiceUnavailable", f"Keystone: {error}") from None
        if response.status_code != 201:
            raise ApiError(
                403 if response.status_code in (401, 403) else 400,
                "Forbidden" if response.status_code in (401, 403) else "BadRequest",
                f"The stack's trust could not be created (Keystone answered "
                f"{response.status_code}: {_message(response)})",
            )
        return str(response.json()["trust"]["id"])

    def keep(self, stack_id: str, project: str, trustor: str, trust_id: str) -> None:
        from stoker.store import TrustRecord

        now = datetime.now(UTC)
        self.trusts.add(TrustRecord(stack_id, project, trustor, trust_id, now))

    def delete(self, trust_id: str) -> None:
        """Delete the trust, logged in under it (it impersonates the trustor, whom
        Keystone lets delete it); one already gone is done."""
        from keystoneauth1 import session as sessions
        from keystoneauth1.exceptions import ClientException, Unauthorized

        session = sessions.Session(auth=self.login.plugin(trust_id))
        try:
            response = session.delete(f"{self.trusts_url}/{trust_id}", raise_exc=False)
        except Unauthorized:  # the trust is gone: no token can be had under it
            return
        except ClientException as error:
            raise StokerError(f"the stack's trust could not be deleted: {error}") from None
        if response.status_code not in (204, 404):
            raise StokerError(
                f"the stack's trust could not be deleted (Keystone answered "
                f"{response.status_code}: {_message(response)})"
            )

    def forget(self, stack: StackRecord) -> None:
        """After an operation: a stack now deleted has its trust deleted, and its record."""
        if stack.deleted_at is None or stack.parent_id is not None:
            return
        found = self.trusts.get(stack.id)
        if found is None:
            return
        self.delete(found.trust_id)
        self.trusts.remove(stack.id)


def caller_plugin(identity: Identity, auth_url: str) -> Any:
    """An auth plugin that is the caller's validated token (no new login)."""
    from keystoneauth1.identity.access import AccessInfoPlugin

    return AccessInfoPlugin(identity.access, auth_url=auth_url)


def caller(identity: Identity, auth_url: str) -> Acting:
    """The identity of a request: its caller's own token."""
    digest = hashlib.sha256(str(identity.access.auth_token).encode()).hexdigest()
    return Acting(
        key=f"token:{digest}",
        project_id=identity.project_id,
        describe=f"the token of user {identity.user_id}",
        plugin=lambda: caller_plugin(identity, auth_url),
    )


def _message(response: Any) -> str:
    try:
        return str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return str(response.text)[:200]


async def start_new_stack(
    grant: Grant | None, operations: Operations, project: str, stack_id: str, name: str, run: Run
) -> EventRecord | None:
    """`Operations.start` for an operation that makes the stack ``stack_id`` (a create,
    an adopt): with each stack's owner acting, the caller's trust is made and kept under
    the stack's id first (a server taking over the operation after a crash finds it), the
    operation acts with it, and it is deleted if the stack is never made."""
    credentials = operations.credentials
    if credentials is None or grant is None:
        return await operations.start(project, run)
    identity: Identity = grant.identity
    trust_id = await asyncio.to_thread(credentials.create, identity)
    acting = credentials.acting_for_trust(trust_id, project, f"stack {name}")
    began: EventRecord | None = None
    try:
        await asyncio.to_thread(credentials.keep, stack_id, project, identity.user_id, trust_id)
        began = await operations.start(project, run, acting=acting)
    finally:
        if began is None:  # refused, or (never for a create) ended without an event
            with contextlib.suppress(StokerError):
                await asyncio.to_thread(credentials.trusts.remove, stack_id)
                await asyncio.to_thread(credentials.delete, trust_id)
    return began
