"""Keystone's OS-TRUST in the sandbox, in process: who may make, see and delete a trust;
what a trust-scoped token carries; and that it ends with its trust."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from stoker.sandbox.app import create_app

TRUSTS = "/identity/v3/OS-TRUST/trusts"


def _login(client: TestClient, user: str, scope: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    password = {"user": {"name": user, "domain": {"id": "default"}, "password": "sandbox"}}
    auth = {"identity": {"methods": ["password"], "password": password}, "scope": scope}
    response = client.post("/identity/v3/auth/tokens", json={"auth": auth})
    assert response.status_code == 201, response.text
    return str(response.headers["x-subject-token"]), response.json()["token"]


def _project(name: str) -> dict[str, Any]:
    return {"project": {"name": name, "domain": {"id": "default"}}}


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app())


def test_a_trust_acts_as_its_trustor_until_deleted(client: TestClient) -> None:
    admin, _ = _login(client, "admin", _project("admin"))
    made = client.post(
        "/identity/v3/users",
        headers={"x-auth-token": admin},
        json={"user": {"name": "svc", "password": "sandbox"}},
    )
    service = made.json()["user"]["id"]
    demo, body = _login(client, "demo", _project("demo"))
    trustor, project = body["user"]["id"], body["project"]["id"]
    ask = {
        "trustor_user_id": trustor,
        "trustee_user_id": service,
        "project_id": project,
        "impersonation": True,
        "roles": [{"name": "member"}],
    }
    # only the trustor makes it, and only of roles they hold
    refused = client.post(TRUSTS, headers={"x-auth-token": admin}, json={"trust": ask})
    assert refused.status_code == 403
    not_held = {**ask, "roles": [{"name": "admin"}]}
    assert (
        client.post(TRUSTS, headers={"x-auth-token": demo}, json={"trust": not_held}).status_code
        == 403
    )
    created = client.post(TRUSTS, headers={"x-auth-token": demo}, json={"trust": ask})
    assert created.status_code == 201, created.text
    trust = created.json()["trust"]["id"]
    token, scoped = _login(client, "svc", {"OS-TRUST:trust": {"id": trust}})
    assert scoped["user"]["id"] == trustor  # impersonation
    assert scoped["project"]["id"] == project
    assert [r["name"] for r in scoped["roles"]] == ["member"]
    assert scoped["OS-TRUST:trust"]["trustee_user"]["id"] == service
    # the demo user and the trustee see it; another user's filter is refused
    listed = client.get(f"{TRUSTS}?trustee_user_id={service}", headers={"x-auth-token": demo})
    assert listed.status_code == 403
    listed = client.get(f"{TRUSTS}?trustor_user_id={trustor}", headers={"x-auth-token": demo})
    assert [t["id"] for t in listed.json()["trusts"]] == [trust]
    assert client.get(f"{TRUSTS}/{trust}", headers={"x-auth-token": token}).status_code == 200
    # a trust-scoped token neither delegates further nor rescopes
    again = client.post(TRUSTS, headers={"x-auth-token": token}, json={"trust": ask})
    assert again.status_code == 403
    rescope = {
        "identity": {"methods": ["token"], "token": {"id": token}},
        "scope": _project("admin"),
    }
    assert client.post("/identity/v3/auth/tokens", json={"auth": rescope}).status_code == 403
    assert client.get("/compute/v2.1/servers", headers={"x-auth-token": token}).status_code == 200
    # deleted under its own token (which impersonates the trustor): its tokens end
    assert client.delete(f"{TRUSTS}/{trust}", headers={"x-auth-token": token}).status_code == 204
    assert client.get("/compute/v2.1/servers", headers={"x-auth-token": token}).status_code == 401
    assert client.get(f"{TRUSTS}/{trust}", headers={"x-auth-token": demo}).status_code == 404
