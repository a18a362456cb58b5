"""Keystone v3 as the real clients use it: openstacksdk (keystoneauth) and raw HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import openstack
import openstack.exceptions
import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

from .server import PASSWORD, RunningSandbox

pytestmark = pytest.mark.heavy


def _password_auth(user: str, password: str, project: str | None = None) -> dict[str, Any]:
    auth: dict[str, Any] = {
        "identity": {
            "methods": ["password"],
            "password": {
                "user": {"name": user, "domain": {"name": "Default"}, "password": password}
            },
        }
    }
    if project is not None:
        auth["scope"] = {"project": {"name": project, "domain": {"id": "default"}}}
    return {"auth": auth}


def test_password_token_has_subject_header_and_catalog_pointing_at_the_sandbox(
    sandbox: RunningSandbox,
) -> None:
    response = httpx.post(
        f"{sandbox.url}/identity/v3/auth/tokens", json=_password_auth("admin", PASSWORD, "admin")
    )
    assert response.status_code == 201
    token = response.headers["x-subject-token"]
    assert response.headers["x-openstack-request-id"].startswith("req-")
    body = response.json()["token"]
    assert body["project"]["name"] == "admin"
    assert [r["name"] for r in body["roles"]] == ["admin"]
    urls = {e["type"]: e["endpoints"][0]["url"] for e in body["catalog"]}
    assert urls["identity"] == f"{sandbox.url}/identity"
    # the token validates, and a token exchanged for it keeps the scope
    checked = httpx.get(
        f"{sandbox.url}/identity/v3/auth/tokens",
        headers={"X-Auth-Token": token, "X-Subject-Token": token},
    )
    assert checked.status_code == 200
    assert checked.json()["token"]["user"]["name"] == "admin"
    exchanged = httpx.post(
        f"{sandbox.url}/identity/v3/auth/tokens",
        json={"auth": {"identity": {"methods": ["token"], "token": {"id": token}}}},
    )
    assert exchanged.status_code == 201
    assert exchanged.json()["token"]["project"]["name"] == "admin"
    # revoked: 404 to validate, 401 to use
    revoked = httpx.delete(
        f"{sandbox.url}/identity/v3/auth/tokens",
        headers={"X-Auth-Token": token, "X-Subject-Token": token},
    )
    assert revoked.status_code == 204
    gone = httpx.get(f"{sandbox.url}/identity/v3/projects", headers={"X-Auth-Token": token})
    assert gone.status_code == 401
    assert gone.json()["error"]["title"] == "Unauthorized"


def test_wrong_password_and_unknown_project_are_401(sandbox: RunningSandbox) -> None:
    url = f"{sandbox.url}/identity/v3/auth/tokens"
    wrong = httpx.post(url, json=_password_auth("admin", "not-it", "admin"))
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == 401
    assert "x-subject-token" not in wrong.headers
    # demo has no role on admin
    assert httpx.post(url, json=_password_auth("demo", PASSWORD, "admin")).status_code == 401
    malformed = httpx.post(url, content=b"{not json")
    assert malformed.status_code == 400


def test_version_discovery(sandbox: RunningSandbox) -> None:
    root = httpx.get(f"{sandbox.url}/identity")
    assert root.status_code == 300
    (version,) = root.json()["versions"]["values"]
    assert version["links"][0]["href"] == f"{sandbox.url}/identity/v3/"
    assert httpx.get(f"{sandbox.url}/identity/v3").json()["version"]["id"] == version["id"]


def test_openstacksdk_projects_users_and_scoping(sandbox: RunningSandbox, cloud: Any) -> None:
    names = {p.name for p in cloud.identity.projects()}
    assert {"admin", "demo", "service"} <= names
    assert {u.name for u in cloud.identity.users()} >= {"admin", "demo"}
    project = cloud.identity.create_project(name="sdk-made", domain_id="default")
    assert cloud.identity.get_project(project.id).name == "sdk-made"
    with pytest.raises(openstack.exceptions.ConflictException):
        cloud.identity.create_project(name="sdk-made", domain_id="default")
    cloud.identity.delete_project(project.id)
    with pytest.raises(openstack.exceptions.NotFoundException):
        cloud.identity.get_project(project.id)
    demo = sandbox.connect("demo")
    assert demo.current_project.name == "demo"
    # demo is no admin: it sees its own project only, and may not list users
    assert [p.name for p in demo.identity.projects()] == ["demo"]
    with pytest.raises(openstack.exceptions.ForbiddenException):
        list(demo.identity.users())


def test_clouds_yaml_from_the_cli_is_what_openstacksdk_reads(
    sandbox: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = CliRunner().invoke(
        cli,
        ["sandbox", "clouds-yaml", "--port", str(sandbox.port), "--user", "demo"]
        + ["--password", PASSWORD],
    )
    assert written.exit_code == 0, written.output
    clouds = tmp_path / "clouds.yaml"
    clouds.write_text(written.output)
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds))
    connection = openstack.connect(cloud="sandbox")
    assert connection.current_project.name == "demo"
    assert connection.compute.get_endpoint() == f"{sandbox.url}/compute/v2.1"
    assert connection.image.get_endpoint().startswith(f"{sandbox.url}/image")
