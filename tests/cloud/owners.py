"""Two projects, their users, and stoker's service user, in a running sandbox: what the
tests of ``stoker serve --cloud-credentials caller`` act as."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from keystoneauth1 import session
from keystoneauth1.identity import v3

from sandbox.server import PASSWORD, RunningSandbox

#: a server as each user's stack makes it (the sandbox's public image and flavor)
SERVER = """heat_template_version: 2018-08-31
resources:
  srv:
    type: OS::Nova::Server
    properties:
      name: NAME
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.tiny
      networks: [{allocate_network: none}]
"""


@dataclass(frozen=True)
class User:
    name: str
    id: str
    project: str  # its id


@dataclass
class Owners:
    """Project A (alice and anna, members; rita, a reader), project B (bob, a member),
    and the service user ``svc`` the owners' trusts delegate to."""

    sandbox: RunningSandbox
    users: dict[str, User]
    service: User

    @property
    def identity_url(self) -> str:
        return f"{self.sandbox.url}/identity/v3"

    def token(self, name: str) -> str:
        user = self.users[name]
        auth = v3.Password(
            auth_url=self.identity_url,
            username=user.name,
            password=PASSWORD,
            project_id=user.project,
            user_domain_name="Default",
        )
        return str(auth.get_access(session.Session(auth=auth)).auth_token)

    def admin_get(self, path: str) -> httpx.Response:
        """``GET`` on the sandbox as its admin (``/sandbox/calls``, a trust)."""
        auth = v3.Password(
            auth_url=self.identity_url,
            username="admin",
            password=PASSWORD,
            project_name="admin",
            user_domain_name="Default",
            project_domain_name="Default",
        )
        token = str(auth.get_access(session.Session(auth=auth)).auth_token)
        return httpx.get(self.sandbox.url + path, headers={"X-Auth-Token": token})

    def calls(self, operation: str) -> list[dict[str, str]]:
        """The calls of ``operation`` (``servers.create``) the sandbox recorded."""
        found = self.admin_get("/sandbox/calls").json()["calls"]
        return [c for c in found if c["operation"] == operation]


def make_owners(sandbox: RunningSandbox, admin: Any) -> Owners:
    """New projects and users (their names unique: the sandbox is the session's)."""
    identity = admin.identity
    roles = {role.name: role for role in identity.roles()}
    tag = uuid.uuid4().hex[:8]
    projects = {
        key: identity.create_project(name=f"{key}-{tag}", domain_id="default") for key in ("a", "b")
    }
    service_project = identity.find_project("service")
    users: dict[str, User] = {}
    for name, key, role in (
        ("alice", "a", "member"),
        ("anna", "a", "member"),
        ("rita", "a", "reader"),
        ("bob", "b", "member"),
        ("svc", "service", "member"),
    ):
        project = service_project if key == "service" else projects[key]
        made = identity.create_user(name=f"{name}-{tag}", password=PASSWORD, domain_id="default")
        identity.assign_project_role_to_user(project, made, roles[role])
        if role == "member":
            identity.assign_project_role_to_user(project, made, roles["reader"])
        users[name] = User(made.name, made.id, project.id)
    service = users.pop("svc")
    return Owners(sandbox, users, service)
