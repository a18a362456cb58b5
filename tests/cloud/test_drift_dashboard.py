"""Drift in the dashboard (``/dashboard/stacks/{id}/drift``) against the sandbox: the page
shows what ``stoker stack drift`` and ``GET .../drift`` show after the real ``openstack``
client changed the cloud out of band (expected and actual of a modified resource, a
deleted one, the reasons of those not checked, nested stacks to the depth asked), and a
row's Accept takes the cloud's values into the stack through the forms' CSRF check and
the policy's ``stacks:drift_accept``; with ``--cloud-credentials caller`` the page reads
the cloud as the viewer (a reader sees it, and has no Accept)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from api.helpers import wait_for
from dashboard.conftest import Board
from sandbox.server import PASSWORD
from stoker.api.app import build_app
from stoker.cloud import Cloud
from stoker.engine.settings import EngineSettings
from stoker.resources import openstack as openstack_types
from stoker.resources.registry import default_registry
from stoker.store import open_store

from .test_drift import openstack
from .test_owner_credentials import Serve, owners, serve  # noqa: F401 (fixtures)

TEMPLATE = """heat_template_version: wallaby
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: boardnet, admin_state_up: true}
  lonely:
    type: OS::Neutron::Net
  inner:
    type: inner.yaml
  nothing:
    type: OS::Heat::None
"""
INNER = """heat_template_version: wallaby
resources:
  net:
    type: OS::Neutron::Net
    properties: {admin_state_up: true}
"""
ROW = re.compile(r'<tr data-drift="([^"]+)">(.*?)</tr>', re.S)


def rows(page: str) -> dict[str, str]:
    """Each row's text by resource path (its Accept form and the tags dropped, entities
    read)."""
    return {
        path: " ".join(
            html.unescape(re.sub(r"<form.*?</form>|<[^>]+>", " ", body, flags=re.S)).split()
        )
        for path, body in ROW.findall(page)
    }


def accept_buttons(page: str) -> list[str]:
    return [html.unescape(v) for v in re.findall(r'name="resource" value="([^"]+)"', page)]


@pytest.fixture
def board(cloud: Cloud, tmp_path: Path) -> Iterator[tuple[Board, str]]:
    """A noauth server over the sandbox (the cloud's own credentials act), the stack
    made through the API; the board logged in to its project."""
    registry = default_registry()
    openstack_types.register(registry, cloud)
    store = open_store(f"sqlite:///{tmp_path / 'board.db'}")
    app = build_app(store, registry, EngineSettings(), recover=False, cloud=cloud)
    with TestClient(app, base_url="http://testserver") as client:
        body = {"stack_name": "b", "template": TEMPLATE, "files": {"inner.yaml": INNER}}
        created = client.post("/v1/admin/stacks", json=body)
        assert created.status_code == 201, created.text
        url = created.headers["location"]
        assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
        board = Board(client)
        board.login("admin")
        yield board, url.rsplit("/", 1)[-1]
        assert client.delete(url).status_code == 204
        wait_for(client, url)


def test_the_drift_page_shows_and_accepts_what_the_cli_shows(
    board: tuple[Board, str], cloud_env: dict[str, str]
) -> None:
    board_, stack_id = board
    page = board_.get(f"/dashboard/stacks/{stack_id}")
    assert f'href="/dashboard/stacks/{stack_id}/drift" id="drift-link"' in page.text
    drift_url = f"/dashboard/stacks/{stack_id}/drift"
    first = rows(board_.get(drift_url).text)
    assert first == {
        "net": "net OS::Neutron::Net IN_SYNC",
        "lonely": "lonely OS::Neutron::Net IN_SYNC",
        "inner": "inner inner.yaml NOT_CHECKED a nested stack (see its resources)",
        "nothing": "nothing OS::Heat::None NOT_CHECKED OS::Heat::None has no cloud resource",
    }

    api = board_.client.get(f"/v1/admin/stacks/b/{stack_id}/drift?nested_depth=1").json()
    ids = {
        r["resource_name"]: r["physical_resource_id"]
        for r in api["drift"]
        if not r["parent_resource"]
    }
    openstack(cloud_env, "network", "set", "--disable", ids["net"])
    openstack(cloud_env, "network", "delete", ids["lonely"])
    inner_net = next(r for r in api["drift"] if r["parent_resource"] == "inner")
    openstack(cloud_env, "network", "set", "--disable", inner_net["physical_resource_id"])

    shown = board_.get(drift_url + "?nested_depth=1")
    assert shown.status_code == 200, shown.text
    found = rows(shown.text)
    assert found["net"] == "net OS::Neutron::Net MODIFIED admin_state_up true → false"
    assert found["lonely"] == "lonely OS::Neutron::Net DELETED"
    assert found["inner/net"] == "inner/net OS::Neutron::Net MODIFIED admin_state_up true → false"
    assert accept_buttons(shown.text) == ["net", "inner/net"]  # the modified ones only
    # the same library call as the API's: the same statuses, row by row
    api = board_.client.get(f"/v1/admin/stacks/b/{stack_id}/drift?nested_depth=1").json()
    by_path = {
        "/".join(filter(None, (r["parent_resource"], r["resource_name"]))): r["drift_status"]
        for r in api["drift"]
    }
    assert {path: text.split()[2] for path, text in found.items()} == by_path

    forged = board_.client.post(drift_url, data={"resource": "net", "csrf_token": "x" * 40})
    assert forged.status_code == 403
    accepted = board_.post(drift_url, {"resource": "inner/net", "nested_depth": "1"})
    assert accepted.status_code == 200, accepted.text
    assert accepted.url.path == drift_url
    notice = "The cloud's values of inner/net are now the stack's."
    assert notice in html.unescape(accepted.text)
    after = rows(accepted.text)
    assert after["inner/net"] == "inner/net OS::Neutron::Net IN_SYNC"
    assert after["net"].split()[2] == "MODIFIED"  # only what was accepted
    refused = board_.post(drift_url, {"resource": "lonely"})
    assert refused.status_code >= 400 and "DELETED" in refused.text
    assert board_.get(drift_url + "?nested_depth=x").status_code == 400
    assert board_.get("/dashboard/stacks/no-such-stack/drift").status_code == 404


def test_the_api_accepts_as_the_cli_does(
    board: tuple[Board, str], cloud_env: dict[str, str]
) -> None:
    client = board[0].client
    url = f"/v1/admin/stacks/b/{board[1]}/drift"
    net = next(r for r in client.get(url).json()["drift"] if r["resource_name"] == "net")
    openstack(cloud_env, "network", "set", "--disable", net["physical_resource_id"])
    answer = client.post(url, json={"accept": ["net"]})
    assert answer.status_code == 200, answer.text
    [entry] = answer.json()["drift"]
    assert entry["differences"] == [
        {"property": "admin_state_up", "expected": True, "actual": False}
    ]
    statuses = {r["resource_name"]: r["drift_status"] for r in client.get(url).json()["drift"]}
    assert statuses["net"] == "IN_SYNC"
    assert client.post(url, json={"accept": 3}).status_code == 400
    missing = client.post(url, json={"accept": ["nosuch"]})
    assert missing.status_code == 404 and "nosuch" in missing.text


def _login(serve: Serve, admin: Any, user: str) -> Board:  # noqa: F811 (the fixture's type)
    """The dashboard's Keystone login form, as ``user`` in its project (by name)."""
    serve.client.cookies.clear()
    board = Board(serve.client)
    board.get("/dashboard/login")
    who = serve.owners.users[user]
    project = admin.identity.get_project(who.project).name
    fields = {"username": who.name, "password": PASSWORD, "project": project}
    answer = board.post("/dashboard/login", {**fields, "domain": "Default"})
    assert answer.status_code == 200, answer.text
    return board


def test_with_owners_acting_the_page_reads_the_cloud_as_the_viewer(
    serve: Serve,  # noqa: F811 (the fixture)
    admin: Any,
    cloud_env: dict[str, str],
) -> None:
    url = serve.create("alice", "boardsrv")
    assert serve.wait("alice", url)["stack_status"] == "CREATE_COMPLETE"
    stack_id = url.rsplit("/", 1)[-1]
    server = serve.server_of("alice", url)
    openstack(cloud_env, "server", "set", "--property", "by=hand", server)
    drift_url = f"/dashboard/stacks/{stack_id}/drift"

    reader = _login(serve, admin, "rita")
    page = reader.get(drift_url)
    assert page.status_code == 200, page.text
    assert rows(page.text)["srv"] == 'srv OS::Nova::Server MODIFIED metadata {} → { "by": "hand" }'
    assert accept_buttons(page.text) == []  # a reader may look, not accept
    refused = reader.post(drift_url, {"resource": "srv"})
    assert refused.status_code == 403 and "stacks:drift_accept" in refused.text

    owner = _login(serve, admin, "alice")
    accepted = owner.post(drift_url, {"resource": "srv"})
    assert accepted.status_code == 200, accepted.text
    assert rows(accepted.text)["srv"] == "srv OS::Nova::Server IN_SYNC"
    assert _login(serve, admin, "bob").get(drift_url).status_code == 404  # another project's
    token = {"X-Auth-Token": serve.owners.token("alice")}
    assert serve.client.delete(url, headers=token).status_code == 204
    serve.wait("alice", url)


def test_the_api_rule_of_an_accept() -> None:
    from stoker.api.policy import DEFAULTS, PROJECT_MEMBER, rule_for

    assert rule_for("POST", ["stacks", "s", "i", "drift"]) == "stacks:drift_accept"
    assert DEFAULTS["stacks:drift_accept"] == PROJECT_MEMBER
