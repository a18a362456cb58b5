"""``stoker serve --cloud-credentials caller``: every cloud call of a stack acts as the
user who owns it, on that user's project, against the real sandbox's Keystone (trusts)
and services (which enforce the token's project and roles). In process through the
application; the takeover by a second server is in test_owner_takeover.py (slow)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from keystoneauth1 import session
from keystoneauth1.identity import v3
from starlette.testclient import TestClient

from api.helpers import wait_for
from cloud.owners import SERVER, Owners, make_owners
from sandbox.server import PASSWORD, RunningSandbox
from stoker.api.app import build_app
from stoker.api.auth import KeystoneValidator
from stoker.api.trusts import StackCredentials, TrusteeLogin
from stoker.cloud import Cloud, CloudChoice
from stoker.engine.settings import EngineSettings
from stoker.errors import CloudError
from stoker.resources import openstack
from stoker.resources.registry import default_registry
from stoker.store import open_store
from stoker.store.store import SqlStore


@pytest.fixture(scope="module")
def owners(sandbox: RunningSandbox, admin: Any) -> Owners:
    return make_owners(sandbox, admin)


@dataclass
class Serve:
    client: TestClient
    owners: Owners
    credentials: StackCredentials
    store: SqlStore
    db: Path

    def create(self, user: str, name: str, body: dict[str, Any] | None = None) -> str:
        project = self.owners.users[user].project
        response = self.client.post(
            f"/v1/{project}/stacks",
            json=body or {"stack_name": name, "template": SERVER.replace("NAME", name)},
            headers={"X-Auth-Token": self.owners.token(user)},
        )
        assert response.status_code == 201, response.text
        return str(response.headers["location"])

    def wait(self, user: str, url: str) -> dict[str, Any]:
        return wait_for(self.client, url, headers={"X-Auth-Token": self.owners.token(user)})

    def server_of(self, user: str, url: str) -> str:
        response = self.client.get(
            url + "/resources/srv", headers={"X-Auth-Token": self.owners.token(user)}
        )
        return str(response.json()["resource"]["physical_resource_id"])


@pytest.fixture
def serve(
    owners: Owners, clouds_yaml: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Serve]:
    """``stoker serve --auth keystone --os-cloud sandbox --service-user svc`` in process:
    the cloud's own (admin) credentials never act."""
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
    cloud = Cloud(CloudChoice("sandbox"), shared=False)
    registry = default_registry()
    openstack.register(registry, cloud)
    store = open_store(f"sqlite:///{tmp_path / 'serve.db'}")
    service = owners.service
    auth = v3.Password(
        auth_url=owners.identity_url,
        username=service.name,
        password=PASSWORD,
        project_id=service.project,
        user_domain_name="Default",
    )
    keystone = session.Session(auth=auth)
    login = TrusteeLogin(
        owners.identity_url, username=service.name, password=PASSWORD, user_domain_name="Default"
    )
    credentials = StackCredentials(login, lambda: str(keystone.get_user_id()), store)
    app = build_app(
        store,
        registry,
        EngineSettings(),
        recover=False,
        keystone=KeystoneValidator(owners.identity_url, service=keystone),
        cloud=cloud,
        credentials=credentials,
    )
    with TestClient(app) as client:
        yield Serve(client, owners, credentials, store, tmp_path / "serve.db")
    cloud.close()
    store.close()


def test_each_owner_acts_in_its_own_project_and_a_delete_deletes_the_trust(
    serve: Serve, admin: Any
) -> None:
    owners = serve.owners
    urls = {user: serve.create(user, f"own-{user}") for user in ("alice", "anna", "bob")}
    trusts = {}
    for user, url in urls.items():
        stack = serve.wait(user, url)
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        made = admin.compute.get_server(serve.server_of(user, url))
        assert (made.project_id, made.user_id) == (
            owners.users[user].project,
            owners.users[user].id,
        )
        kept = serve.credentials.trusts.get(url.rsplit("/", 1)[1])
        assert kept is not None and kept.trustor_user_id == owners.users[user].id
        trust = owners.admin_get(f"/identity/v3/OS-TRUST/trusts/{kept.trust_id}").json()["trust"]
        assert trust["trustee_user_id"] == owners.service.id
        assert trust["project_id"] == owners.users[user].project
        assert {r["name"] for r in trust["roles"]} == {"member", "reader"}
        trusts[user] = kept.trust_id
        # the create's cloud calls were made under the owner's trust, as the owner
        creates = [c for c in owners.calls("servers.create") if c["trust_id"] == kept.trust_id]
        assert [c["user_id"] for c in creates] == [owners.users[user].id]
    # the stored trust id is sealed: the database does not hold it in clear
    raw = serve.db.read_bytes()
    assert not any(trust.encode() in raw for trust in trusts.values())
    # alice deletes anna's stack (a member of the same project may): anna's trust acts
    server = serve.server_of("anna", urls["anna"])
    token = owners.token("alice")
    assert serve.client.delete(urls["anna"], headers={"X-Auth-Token": token}).status_code == 204
    assert serve.wait("alice", urls["anna"])["stack_status"] == "DELETE_COMPLETE"
    assert admin.compute.find_server(server) is None
    deletes = [c for c in owners.calls("servers.delete") if c["trust_id"] == trusts["anna"]]
    assert [c["user_id"] for c in deletes] == [owners.users["anna"].id]
    gone = owners.admin_get(f"/identity/v3/OS-TRUST/trusts/{trusts['anna']}")
    assert gone.status_code == 404
    assert serve.credentials.trusts.get(urls["anna"].rsplit("/", 1)[1]) is None
    # the others' trusts are untouched
    assert owners.admin_get(f"/identity/v3/OS-TRUST/trusts/{trusts['bob']}").status_code == 200


def test_an_adopt_of_another_projects_server_fails_with_the_clouds_404(
    serve: Serve, admin: Any
) -> None:
    owners = serve.owners
    url = serve.create("alice", "victim")
    assert serve.wait("alice", url)["stack_status"] == "CREATE_COMPLETE"
    server = serve.server_of("alice", url)
    exported = serve.client.get(url + "/export", headers={"X-Auth-Token": owners.token("alice")})
    assert exported.status_code == 200
    # bob names alice's server in an adopt of his own
    adopted = serve.create(
        "bob",
        "thief",
        {
            "stack_name": "thief",
            "adopt_stack_data": json.dumps(exported.json()),
        },
    )
    stack = serve.wait("bob", adopted)
    assert stack["stack_status"] == "ADOPT_FAILED"
    assert "404" in stack["stack_status_reason"], stack["stack_status_reason"]
    resource = serve.client.get(
        adopted + "/resources/srv", headers={"X-Auth-Token": owners.token("bob")}
    ).json()["resource"]
    assert not resource["physical_resource_id"]
    bob = owners.token("bob")
    assert serve.client.delete(adopted, headers={"X-Auth-Token": bob}).status_code == 204
    assert serve.wait("bob", adopted)["stack_status"] == "DELETE_COMPLETE"
    # alice's server is as it was, and alice's stack still holds it
    assert admin.compute.get_server(server).status == "ACTIVE"
    assert serve.wait("alice", url)["stack_status"] == "CREATE_COMPLETE"


def test_the_sandbox_enforces_the_tokens_project_and_roles(owners: Owners, admin: Any) -> None:
    made = admin.compute.create_server(
        name="a-only",
        image_id=admin.image.find_image("cirros-0.6.2-x86_64-disk").id,
        flavor_id=admin.compute.find_flavor("m1.tiny").id,
        networks="none",
    )
    compute = f"{owners.sandbox.url}/compute/v2.1"
    body = {"server": {"name": "r", "imageRef": "x", "flavorRef": "1", "networks": "none"}}
    reader = httpx.post(
        compute + "/servers", json=body, headers={"X-Auth-Token": owners.token("rita")}
    )
    assert reader.status_code == 403, reader.text
    other = httpx.get(f"{compute}/servers/{made.id}", headers={"X-Auth-Token": owners.token("bob")})
    assert other.status_code == 404
    calls = owners.admin_get("/sandbox/calls")
    assert calls.status_code == 200
    denied = httpx.get(
        owners.sandbox.url + "/sandbox/calls", headers={"X-Auth-Token": owners.token("bob")}
    )
    assert denied.status_code == 403
    admin.compute.delete_server(made)


def test_a_cloud_not_shared_refuses_to_act_as_itself(
    clouds_yaml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
    cloud = Cloud(CloudChoice("sandbox"), shared=False)
    with pytest.raises(CloudError, match="no owner's credentials"):
        cloud.connection()


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        # Keystone with a cloud: the owners' trusts need a service user to delegate to
        (("--auth", "keystone"), "needs the service user"),
        # the server's own identity for every project: only when the operator says so
        (("--auth", "keystone", "--cloud-credentials", "server"), "--allow-shared-credentials"),
        # no tokens to act with
        (("--cloud-credentials", "caller"), "needs --auth keystone"),
    ],
)
def test_serve_refuses_credentials_that_would_be_shared_or_missing(
    options: tuple[str, ...], refusal: str, clouds_yaml: Path, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from stoker.cli.main import cli

    args = ["--db", str(tmp_path / "s.db"), "serve", *options, "--os-cloud", "sandbox"]
    env = {"OS_CLIENT_CONFIG_FILE": str(clouds_yaml), "OS_AUTH_URL": "http://127.0.0.1:9/v3"}
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 2, result.output
    assert refusal in result.output


def test_a_projects_names_are_not_checked_against_anothers(serve: Serve) -> None:
    """The create's constraint checks list the cloud as the caller: bob's template naming
    alice's network is refused as the cloud shows it to bob (no such network)."""
    owners = serve.owners
    made = httpx.post(
        f"{owners.sandbox.url}/network/v2.0/networks",
        json={"network": {"name": "alice-only-net"}},
        headers={"X-Auth-Token": owners.token("alice")},
    )
    assert made.status_code == 201, made.text
    template = SERVER.replace("networks: [{allocate_network: none}]", "networks: [{network: N}]")
    for user, status in (("alice", 201), ("bob", 400)):
        body = {
            "stack_name": f"net-{user}",
            "template": template.replace("NAME", f"net-{user}").replace("N}", "alice-only-net}"),
        }
        response = serve.client.post(
            f"/v1/{owners.users[user].project}/stacks",
            json=body,
            headers={"X-Auth-Token": owners.token(user)},
        )
        assert response.status_code == status, response.text
    assert "alice-only-net" in response.text and "could not be found" in response.text
