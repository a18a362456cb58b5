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

from sandbox.server import ThreadedSandbox
from stoker.api.app import build_app
from stoker.api.auth import (
    IMPLIED,
    Grant,
    Identity,
    KeystoneValidator,
    ServiceCredentials,
    service_session,
)
from stoker.api.policy import BY_BODY, DEFAULTS, Credentials, Policy, load_policy, rule_for
from stoker.engine.settings import EngineSettings
from stoker.errors import ApiError, PolicyError, UsageError
from stoker.resources.registry import default_registry
from stoker.sandbox.service import SandboxConfig
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
    sandbox: ThreadedSandbox


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
            yield World(identity_url, client, validator, admin, demo, reader, sandbox)


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
    assert {"member", "reader"} <= first.roles
    assert not Policy().is_admin(first.credentials())
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


#: every route against Heat 24.1.2's default policy (heat/policies/*.py): which of a
#: reader, a member and an admin of the URL's project it admits; ``heat_stack_user`` is
#: the role Heat's in-instance agents hold
R, M, A = "reader", "member", "admin"
ROUTES: list[tuple[str, str, set[str]]] = [
    ("GET", "stacks", {R, M, A}),
    ("POST", "stacks", {M, A}),
    ("GET", "stacks/detail", {R, M, A}),
    ("POST", "stacks/preview", {R, M, A}),
    ("GET", "stacks/s", {R, M, A, "heat_stack_user"}),
    ("DELETE", "stacks/s", {R, M, A, "heat_stack_user"}),  # the lookup; the target decides
    ("GET", "stacks/s/resources", {R, M, A, "heat_stack_user"}),
    ("GET", "stacks/arn:openstack:heat::p:stacks/s/i", {R, M, A, "heat_stack_user"}),
    ("GET", "stacks/s/i", {R, M, A}),
    ("PUT", "stacks/s/i", {M, A}),
    ("PATCH", "stacks/s/i", {M, A}),
    ("DELETE", "stacks/s/i", {M, A}),
    ("PUT", "stacks/s/i/preview", {M, A}),
    ("PATCH", "stacks/s/i/preview", {M, A}),
    ("DELETE", "stacks/s/i/abandon", {M, A}),
    ("GET", "stacks/s/i/export", {M, A}),
    ("GET", "stacks/s/i/template", {R, M, A}),
    ("GET", "stacks/s/i/environment", {R, M, A}),
    ("GET", "stacks/s/i/files", {R, M, A}),
    ("GET", "stacks/s/i/outputs", {R, M, A}),
    ("GET", "stacks/s/i/outputs/o", {R, M, A}),
    ("GET", "stacks/s/i/resources", {R, M, A}),
    ("GET", "stacks/s/i/resources/r", {R, M, A}),
    ("PATCH", "stacks/s/i/resources/r", {M, A}),
    ("GET", "stacks/s/i/resources/r/metadata", {R, M, A, "heat_stack_user"}),
    ("POST", "stacks/s/i/resources/r/signal", {R, M, A, "heat_stack_user"}),
    ("GET", "stacks/s/i/events", {R, M, A}),
    ("GET", "stacks/s/i/resources/r/events", {R, M, A}),
    ("GET", "stacks/s/i/resources/r/events/e", {R, M, A}),
    ("POST", "stacks/s/i/snapshots", {M, A}),
    ("GET", "stacks/s/i/snapshots", {R, M, A}),
    ("GET", "stacks/s/i/snapshots/n", {R, M, A}),
    ("DELETE", "stacks/s/i/snapshots/n", {M, A}),
    ("POST", "stacks/s/i/snapshots/n/restore", {M, A}),
    ("POST", "validate", {M, A}),
    ("GET", "resource_types", {R, M, A}),
    ("GET", "resource_types/OS::Heat::None", {R, M, A}),
    ("GET", "resource_types/OS::Heat::None/template", {M, A}),
    ("GET", "template_versions", {R, M, A}),
    ("GET", "template_versions/v/functions", {R, M, A}),
    ("GET", "software_configs", {R, M, A}),
    ("POST", "software_configs", {M, A}),
    ("GET", "software_configs/c", {R, M, A}),
    ("DELETE", "software_configs/c", {M, A}),
    ("GET", "software_deployments", {R, M, A}),
    ("POST", "software_deployments", {M, A}),
    ("GET", "software_deployments/metadata/srv", {R, M, A, "heat_stack_user"}),
    ("GET", "software_deployments/d", {R, M, A}),
    ("PUT", "software_deployments/d", {M, A}),
    ("DELETE", "software_deployments/d", {M, A}),
    ("GET", "build_info", {R, M, A}),
    ("GET", "services", {A}),
]
#: the actions, decided on the body's action: Heat lets a reader check a stack
ACTIONS = [
    ("suspend", {M, A}),
    ("resume", {M, A}),
    ("check", {R, M, A}),
    ("cancel_update", {M, A}),
    ("cancel_without_rollback", {M, A}),
]


def _grant(role: str, policy: Policy | None = None, *, admin_project: bool = False) -> Grant:
    identity = Identity(
        "u",
        "p",
        IMPLIED.get(role, frozenset({role})),
        is_admin_project=admin_project,
        expires=0.0,
    )
    return Grant(identity, policy or Policy(), "p")


@pytest.mark.parametrize(("method", "path", "admitted"), ROUTES)
def test_every_route_follows_heats_default_policy(
    method: str, path: str, admitted: set[str]
) -> None:
    rule = rule_for(method, path.split("/"))
    assert rule is not None and rule in DEFAULTS
    for role in ("reader", "member", "admin", "heat_stack_user"):
        assert _grant(role).allows(rule) == (role in admitted), (role, rule)


def test_the_actions_follow_heats_default_policy() -> None:
    assert rule_for("POST", ["stacks", "s", "i", "actions"]) == BY_BODY
    for action, admitted in ACTIONS:
        for role in ("reader", "member", "admin"):
            assert _grant(role).allows(f"actions:{action}") == (role in admitted)


def test_unknown_routes_have_no_rule() -> None:
    for method, path in (("GET", "nothing"), ("PUT", "stacks"), ("POST", "stacks/s/i/template")):
        assert rule_for(method, path.split("/")) is None


def test_a_reader_checks_but_does_not_suspend(world: World) -> None:
    demo, reader = world.demo, world.reader
    client = world.client
    created = client.post(
        f"/v1/{demo.project_id}/stacks",
        json={"stack_name": "checked", "template": TEMPLATE},
        headers=demo.headers,
    )
    assert created.status_code == 201, created.text
    url = str(created.headers["location"])
    client.headers.update(demo.headers)
    try:
        wait_for(client, url)
    finally:
        del client.headers["X-Auth-Token"]
    actions = url + "/actions"
    checked = client.post(actions, json={"check": None}, headers=reader.headers)
    assert checked.status_code == 200, checked.text
    suspended = client.post(actions, json={"suspend": None}, headers=reader.headers)
    assert suspended.status_code == 403
    assert suspended.json()["error"]["type"] == "HTTPForbidden"
    # a malformed body is Heat's 400 before any policy is asked
    for body, message in (
        ({}, "No action specified"),
        ({"check": None, "suspend": None}, "Multiple actions specified"),
        ({"dance": None}, "Invalid action dance specified"),
    ):
        bad = client.post(actions, json=body, headers=reader.headers)
        assert bad.status_code == 400
        assert bad.json()["error"] == {
            "message": message,
            "type": "HTTPBadRequest",
            "traceback": None,
        }


def test_a_policy_file_overrides_heats_rules(world: World, tmp_path: Path) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(
        "# the operator's overrides\n"
        '"stacks:create": "rule:project_reader_or_more"\n'
        '"project_reader_or_more": "role:reader and project_id:%(project_id)s"\n'
        '"stacks:index": "role:admin"\n'
        '"actions:check": "!"\n'
    )
    app = build_app(
        open_store(f"sqlite:///{tmp_path / 'p.db'}"),
        default_registry(),
        EngineSettings(),
        keystone=world.validator,
        policy=load_policy(str(policy_file)),
    )
    reader, demo = world.reader, world.demo
    with TestClient(app) as client:
        base = f"/v1/{demo.project_id}/stacks"
        created = client.post(
            base, json={"stack_name": "by-reader", "template": TEMPLATE}, headers=reader.headers
        )
        assert created.status_code == 201, created.text
        assert client.get(base, headers=demo.headers).status_code == 403
        url = str(created.headers["location"])
        client.headers.update(demo.headers)
        assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
        checked = client.post(url + "/actions", json={"check": None})
        assert checked.status_code == 403  # "!" refuses everybody, admin or not
        # the defaults the file does not name still hold
        assert client.delete(url, headers=reader.headers).status_code == 403


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('# x\n"stacks:create": "role:member and"\n', "policy.yaml:2:18: rule 'stacks:create'"),
        ('"stacks:create": "(role:member"\n', "not closed"),
        ('"stacks:create": "http://example.com/check"\n', "remote (http) checks"),
        ("- not a mapping\n", "maps rule names to check strings"),
        ('"stacks:create": [role:member\n', "policy.yaml:2:1:"),
        ('"a": "rule:b"\n"b": "not rule:a"\n', "in a loop: a -> b -> a"),
    ],
)
def test_a_broken_policy_file_is_refused_with_its_place(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(PolicyError) as refused:
        load_policy(str(path))
    assert message in str(refused.value) and str(path) in str(refused.value)


def test_check_strings_read_as_oslo_policy_reads_them() -> None:
    policy = Policy(
        {
            "a": "not role:reader or (role:member and user_id:u)",
            "b": "is_admin_project:True and rule:a",
            "c": "rule:missing or @",
        }
    )
    creds = Credentials("u", "p", frozenset({"reader", "member"}), is_admin_project=False)
    assert policy.check("a", creds, {})
    assert not policy.check("b", creds, {})
    assert policy.check("c", creds, {})
    assert not policy.check("no-such-rule", creds, {})


def test_tokens_validated_with_the_services_own_credentials(world: World) -> None:
    """keystonemiddleware's way: the server logs in as its service user and asks about
    the caller's token with its own; a made-up token is unknown, bad service
    credentials make Keystone unusable (503), not every token valid."""
    _, service = service_session(world.identity_url, ServiceCredentials("admin", PASSWORD, "admin"))
    validator = KeystoneValidator(world.identity_url, ttl=0.0, service=service)
    token = login(world.identity_url, "demo", "demo")
    found = validator.identify(token.token)
    assert found is not None and found.project_id == token.project_id
    assert {"member", "reader"} <= found.roles
    assert validator.identify("made-up") is None
    _, wrong = service_session(world.identity_url, ServiceCredentials("admin", "wrong", "admin"))
    refused = KeystoneValidator(world.identity_url, ttl=0.0, service=wrong)
    with pytest.raises(ApiError) as unavailable:
        refused.identify(token.token)
    assert unavailable.value.status == 503


@pytest.mark.slow  # openstacksdk's clouds.yaml reader (~0.5 s of imports)
def test_the_service_user_from_a_clouds_yaml_entry(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--service-cloud NAME``: the service user and Keystone's URL from clouds.yaml."""
    clouds = world.sandbox.clouds_yaml(tmp_path / "clouds.yaml", user="admin")
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds))
    url, service = service_session(None, ServiceCredentials(cloud="sandbox"))
    assert url.startswith(world.sandbox.url)
    validator = KeystoneValidator(url, ttl=0.0, service=service)
    found = validator.identify(world.demo.token)
    assert found is not None and found.project_id == world.demo.project_id
    with pytest.raises(UsageError, match="--service-cloud nowhere"):
        service_session(None, ServiceCredentials(cloud="nowhere"))
