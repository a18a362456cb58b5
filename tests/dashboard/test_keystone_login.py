"""The dashboard behind ``--auth keystone``: its login form asks the real Keystone of the
sandbox (served in a thread) for a project-scoped token; every page checks that token
with the API's validator and Heat's policy, as the API's gate does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from keystoneauth1 import session
from keystoneauth1.identity import v3
from starlette.testclient import TestClient

from sandbox.server import ThreadedSandbox
from stoker.api.app import build_app
from stoker.api.auth import KeystoneValidator
from stoker.engine.settings import EngineSettings
from stoker.resources.registry import default_registry
from stoker.sandbox.service import SandboxConfig
from stoker.store import open_store

from .conftest import Board

PASSWORD = "dashboard-login-test"


@pytest.fixture(scope="module")
def keystone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    path: Path = tmp_path_factory.mktemp("board") / "board.db"
    with ThreadedSandbox(config=SandboxConfig(password=PASSWORD)) as sandbox:
        identity_url = f"{sandbox.url}/identity/v3"
        auth = v3.Password(
            auth_url=identity_url,
            username="admin",
            password=PASSWORD,
            project_name="admin",
            user_domain_name="Default",
            project_domain_name="Default",
        )
        admin = session.Session(auth=auth)
        # a user with only the reader role on the demo project
        user = admin.post(
            f"{identity_url}/users",
            json={"user": {"name": "watcher", "password": PASSWORD, "domain_id": "default"}},
        ).json()["user"]
        roles = admin.get(f"{identity_url}/roles").json()["roles"]
        reader = next(role["id"] for role in roles if role["name"] == "reader")
        projects = admin.get(f"{identity_url}/projects").json()["projects"]
        demo = next(p["id"] for p in projects if p["name"] == "demo")
        admin.put(f"{identity_url}/projects/{demo}/users/{user['id']}/roles/{reader}")
        app = build_app(
            open_store(f"sqlite:///{path}"),
            default_registry(),
            EngineSettings(),
            keystone=KeystoneValidator(identity_url, ttl=60.0),
        )
        with TestClient(app, base_url="http://testserver") as client:
            yield client, demo


def _login(board: Board, user: str, password: str = PASSWORD) -> Any:
    board.get("/dashboard/login")
    fields = {"username": user, "password": password, "project": "demo", "domain": "Default"}
    return board.post("/dashboard/login", fields)


def test_the_login_form_asks_keystone(keystone: tuple[TestClient, str]) -> None:
    client, demo = keystone
    client.cookies.clear()
    board = Board(client)
    page = board.get("/dashboard/login").text
    assert 'id="password" name="password" type="password"' in page
    refused = _login(board, "demo", "wrong")
    assert refused.status_code == 401
    assert "The user name, password or project is wrong." in refused.text
    assert client.get("/dashboard/stacks", follow_redirects=False).status_code == 303
    answer = _login(board, "demo")
    assert answer.url.path == "/dashboard/stacks"
    assert f'<strong id="project">{demo}</strong>' in answer.text
    form = board.get("/dashboard/launch")
    assert form.status_code == 200
    board.post("/dashboard/logout", {})
    assert client.get("/dashboard/stacks", follow_redirects=False).status_code == 303


def test_a_token_keystone_does_not_know_is_sent_to_the_login(
    keystone: tuple[TestClient, str],
) -> None:
    client, demo = keystone
    client.cookies.clear()
    client.cookies.set("stoker_project", demo)
    client.cookies.set("stoker_token", "made-up")
    page = client.get("/dashboard/stacks", follow_redirects=False)
    assert (page.status_code, page.headers["location"]) == (303, "/dashboard/login")


def test_a_reader_may_look_but_not_launch(keystone: tuple[TestClient, str]) -> None:
    client, _ = keystone
    client.cookies.clear()
    board = Board(client)
    assert _login(board, "watcher").status_code == 200
    assert board.get("/dashboard/stacks").status_code == 200
    refused = board.get("/dashboard/launch")
    assert refused.status_code == 403
    assert "stacks:create" in refused.text
