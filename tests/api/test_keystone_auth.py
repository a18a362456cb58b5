"""``--auth keystone``: tokens from the real Keystone of the sandbox (served in a thread on
a free port), obtained with keystoneauth1, sent to the real application in process.
Heat's answers: a missing or unknown token is keystonemiddleware's 401, another project's
URL or a role short of the policy is Heat's 403, the version documents stay open."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from keystoneauth1 import session
from keystoneauth1.identity import v3
from starlette.testclient import TestClient

from stoker.api.app import build_app
from stoker.api.auth import KeystoneValidator, required_role
from stoker.engine.settings import EngineSettings
from stoker.resources.registry import default_registry
from stoker.sandbox.service import SandboxConfig
from stoker.sandbox.threaded import ThreadedSandbox
from stoker.store import open_store

from .helpers import TEMPLATE, wait_for

PASSWORD = "sandbox-auth-test"


@dataclass
class Login:
    token: str
    project_id: str
    session: session.Session

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Auth-Token": self.token}


def login(identity_url: str, user: str, project: str, password: str = PASSWORD) -> Login:
    auth = v3.Password(
        auth_url=identity_url,
        username=user,
        password=password,
        project_name=project,
        user_domain_name="Default",
        project_domain_name="Default",
    )
    sess = session.Session(auth=auth)
    access = auth.get_access(sess)
    return Login(access.auth_token, access.project_id, sess)


@dataclass
class World:
    identity_url: str
    client: TestClient
    validator: KeystoneValidator
    admin: Login
    demo: Login
    reader: Login


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    path: Path = tmp_path_factory.mktemp("auth") / "api.db"
    with ThreadedSandbox(config=SandboxConfig(password=PASSWORD)) as sandbox:
        identity_url = f"{sandbox.url}/identity/v3"
        admin = login(identity_url, "admin", "admin")
        demo = login(identity_url, "demo", "demo")
        # a user with only the reader role on the demo project
        created = admin.session.post(
            f"{identity_url}/users",
            json={"user": {"name": "watcher", "password": PASSWORD, "domain_id": "default"}},
        ).json()["user"]
        roles = admin.session.get(f"{identity_url}/roles").json()["roles"]
        reader_role = next(role["id"] for role in roles if role["name"] == "reader")
        admin.session.put(
            f"{identity_url}/projects/{demo.project_id}/users/{created['id']}/roles/{reader_role}"
        )
        reader = login(identity_url, "watcher", "demo")
        validator = KeystoneValidator(identity_url, ttl=60.0)
        app = build_app(
            open_store(f"sqlite:///{path}"),
            default_registry(),
            EngineSettings(),
            keystone=validator,
        )
        with TestClient(app, base_url="http://testserver") as client:
            yield World(identity_url, client, validator, admin, demo, reader)


def test_version_documents_need_no_token(world: World) -> None:
    for path in ("/", "/v1/", f"/v1/{world.demo.project_id}"):
        assert world.client.get(path).status_code in (200, 300), path


def test_missing_or_unknown_token_is_keystonemiddleware_401(world: World) -> None:
    expected = {
        "error": {
            "code": 401,
            "title": "Unauthorized",
            "message": "The request you have made requires authentication.",
        }
    }
    url = f"/v1/{world.demo.project_id}/stacks"
    for headers in ({}, {"X-Auth-Token": "not-a-token"}):
        response = world.client.get(url, headers=headers)
        assert response.status_code == 401
        assert response.json() == expected
        assert response.headers["www-authenticate"] == f'Keystone uri="{world.identity_url}"'
        assert response.headers["x-openstack-request-id"].startswith("req-")


def test_member_works_in_its_project_only(world: World) -> None:
    demo = world.demo
    response = world.client.post(
        f"/v1/{demo.project_id}/stacks",
        json={"stack_name": "mine", "template": TEMPLATE},
        headers=demo.headers,
    )
    assert response.status_code == 201, response.text
    url = str(response.headers["location"])
    client = world.client
    client.headers.update(demo.headers)
    try:
        assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
    finally:
        del client.headers["X-Auth-Token"]
    listed = client.get(f"/v1/{demo.project_id}/stacks", headers=demo.headers).json()
    assert [stack["stack_name"] for stack in listed["stacks"]] == ["mine"]
    # the admin project's URL with the demo token: Heat's policy refuses it
    other = client.get(f"/v1/{world.admin.project_id}/stacks", headers=demo.headers)
    assert other.status_code == 403
    assert other.json() == {
        "code": 403,
        "title": "Forbidden",
        "explanation": "Access was denied to this resource.",
        "error": {"type": "HTTPForbidden", "traceback": None},
    }
    # services are the admin's
    assert client.get(f"/v1/{demo.project_id}/services", headers=demo.headers).status_code == 403


def test_reader_may_read_but_not_write(world: World) -> None:
    reader, project = world.reader, world.reader.project_id
    client = world.client
    listed = client.get(f"/v1/{project}/stacks", headers=reader.headers)
    assert listed.status_code == 200
    created = client.post(
        f"/v1/{project}/stacks",
        json={"stack_name": "nope", "template": TEMPLATE},
        headers=reader.headers,
    )
    assert created.status_code == 403
    for stack in listed.json()["stacks"]:
        base = f"/v1/{project}/stacks/{stack['stack_name']}/{stack['id']}"
        assert client.get(base, headers=reader.headers).status_code == 200
        assert client.delete(base, headers=reader.headers).status_code == 403
        assert client.patch(base, json={}, headers=reader.headers).status_code == 403


def test_admin_may_do_everything(world: World) -> None:
    admin = world.admin
    client = world.client
    assert client.get(f"/v1/{admin.project_id}/services", headers=admin.headers).status_code == 200
    # an admin token reaches another project's URL, as Heat's is_admin does
    other = client.get(f"/v1/{world.demo.project_id}/stacks", headers=admin.headers)
    assert other.status_code == 200
    created = client.post(
        f"/v1/{admin.project_id}/stacks",
        json={"stack_name": "admins", "template": TEMPLATE},
        headers=admin.headers,
    )
    assert created.status_code == 201, created.text
    url = str(created.headers["location"])
    client.headers.update(admin.headers)
    try:
        wait_for(client, url)
        assert client.delete(url).status_code == 204
    finally:
        del client.headers["X-Auth-Token"]


def test_validated_tokens_are_cached_for_the_ttl(world: World) -> None:
    token = login(world.identity_url, "demo", "demo")
    cached = KeystoneValidator(world.identity_url, ttl=60.0)
    uncached = KeystoneValidator(world.identity_url, ttl=0.0)
    first = cached.identify(token.token)
    assert first is not None and first.project_id == token.project_id
    assert {"member", "reader"} <= first.roles and not first.is_admin
    assert uncached.identify(token.token) is not None
    revoked = token.session.delete(
        f"{world.identity_url}/auth/tokens",
        headers={"X-Auth-Token": token.token, "X-Subject-Token": token.token},
        authenticated=False,
    )
    assert revoked.status_code == 204
    # within the TTL the cache answers; without a cache Keystone says the token is gone
    assert cached.identify(token.token) == first
    assert uncached.identify(token.token) is None


def test_keystone_out_of_reach_is_503(world: World, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = build_app(
        open_store(f"sqlite:///{tmp_path / 'x.db'}"),
        default_registry(),
        EngineSettings(),
        recover=False,
        keystone=KeystoneValidator(f"http://127.0.0.1:{port}/v3"),
    )
    client = TestClient(app)
    response = client.get("/v1/p/stacks", headers={"X-Auth-Token": "t"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == 503


@pytest.mark.parametrize(
    ("method", "path", "role"),
    [
        ("GET", "stacks", "reader"),
        ("GET", "stacks/s/i/export", "member"),
        ("POST", "stacks", "member"),
        ("POST", "stacks/preview", "reader"),
        ("POST", "stacks/s/i/resources/r/signal", "reader"),
        ("PATCH", "stacks/s/i/resources/r", "member"),
        ("POST", "validate", "member"),
        ("DELETE", "software_configs/c", "member"),
        ("GET", "services", "admin"),
    ],
)
def test_the_role_table_is_heats(method: str, path: str, role: str) -> None:
    """Heat 24's defaults (heat/policies: stacks.preview and resource.signal are
    PROJECT_READER, stacks.export PROJECT_MEMBER, service.index the admin's)."""
    assert required_role(method, path.split("/")) == role
