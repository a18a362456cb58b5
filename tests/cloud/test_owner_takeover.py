"""A real ``stoker serve --auth keystone --service-cloud NAME`` killed mid-create: a
second server takes the operation over and goes on acting in the cloud with the stack
owner's trust (the only credentials it has for that project), and the stack's delete
deletes the trust. Slow (real processes): `pytest -m slow`."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from cloud.owners import Owners, make_owners
from sandbox.server import PASSWORD, RunningSandbox

pytestmark = pytest.mark.slow

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "wait": {
            "type": "OS::Heat::TestResource",
            "properties": {"action_wait_secs": {"create": 3}},
        },
        "srv": {
            "type": "OS::Nova::Server",
            "depends_on": "wait",
            "properties": {
                "name": "taken-over",
                "image": "cirros-0.6.2-x86_64-disk",
                "flavor": "m1.tiny",
                "networks": [{"allocate_network": "none"}],
            },
        },
    },
}


def _clouds_yaml(owners: Owners, path: Path) -> Path:
    """``sandbox`` (the cloud: its admin's credentials never act here) and
    ``stoker-service`` (the service user the owners' trusts delegate to)."""
    url = f"{owners.sandbox.url}/identity"

    def entry(username: str, project: dict[str, str]) -> dict[str, Any]:
        auth = {"auth_url": url, "username": username, "password": PASSWORD}
        auth.update(user_domain_name="Default", **project)
        return {"auth": auth, "region_name": "RegionOne", "identity_api_version": 3}

    clouds = {
        "sandbox": entry("admin", {"project_name": "admin", "project_domain_name": "Default"}),
        "stoker-service": entry(owners.service.name, {"project_id": owners.service.project}),
    }
    path.write_text(yaml.safe_dump({"clouds": clouds}))
    return path


def _wait(url: str, token: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        response = httpx.get(url, headers={"X-Auth-Token": token})
        if response.status_code == 404:
            return {"stack_status": "DELETE_COMPLETE"}
        stack: dict[str, Any] = response.json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS") or time.monotonic() > deadline:
            return stack
        time.sleep(0.2)


def test_a_second_server_goes_on_with_the_owners_trust(
    sandbox: RunningSandbox, admin: Any, tmp_path: Path
) -> None:
    from api.test_real_clients import Server

    owners = make_owners(sandbox, admin)
    clouds = _clouds_yaml(owners, tmp_path / "clouds.yaml")
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    options = ("--auth", "keystone", "--auth-url", owners.identity_url)
    options += ("--os-cloud", "sandbox", "--service-cloud", "stoker-service")
    environ = {"OS_CLIENT_CONFIG_FILE": str(clouds)}
    alice = owners.users["alice"]
    token = owners.token("alice")
    first = Server(db, tmp_path / "first.log", lease_seconds=2, extra=options, environ=environ)
    response = httpx.post(
        f"{first.url}/v1/{alice.project}/stacks",
        json={"stack_name": "takeover", "template": TEMPLATE},
        headers={"X-Auth-Token": token},
    )
    assert response.status_code == 201, response.text
    path = response.headers["location"].split(str(first.port), 1)[1]
    first.stop(signal.SIGKILL)  # mid-create: the wait resource is still running
    assert not [c for c in owners.calls("servers.create") if c["user_id"] == alice.id]
    second = Server(db, tmp_path / "second.log", lease_seconds=2, extra=options, environ=environ)
    try:
        stack = _wait(second.url + path, token)
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        listed = owners.admin_get(f"/identity/v3/OS-TRUST/trusts?trustor_user_id={alice.id}")
        (trust,) = listed.json()["trusts"]
        assert trust["trustee_user_id"] == owners.service.id
        # the second server made alice's server as alice, under her trust, in her project
        creates = [c for c in owners.calls("servers.create") if c["user_id"] == alice.id]
        assert [(c["trust_id"], c["project_id"]) for c in creates] == [(trust["id"], alice.project)]
        (made,) = [s for s in admin.compute.servers(all_projects=True) if s.name == "taken-over"]
        assert (made.project_id, made.user_id) == (alice.project, alice.id)
        deleted = httpx.delete(second.url + path, headers={"X-Auth-Token": token})
        assert deleted.status_code == 204
        assert _wait(second.url + path, token)["stack_status"] == "DELETE_COMPLETE"
        assert admin.compute.find_server(made.id) is None
        listed = owners.admin_get(f"/identity/v3/OS-TRUST/trusts?trustor_user_id={alice.id}")
        assert listed.json()["trusts"] == []
    finally:
        second.stop()
