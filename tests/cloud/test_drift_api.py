"""``GET /v1/{project}/stacks/{name}/{id}/drift`` (stoker's extension): the drift of a
stack made through the API, after the network was changed out of band."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from api.helpers import wait_for
from stoker.api.app import build_app
from stoker.api.policy import DEFAULTS, PROJECT_READER, rule_for
from stoker.cloud import Cloud
from stoker.engine.settings import EngineSettings
from stoker.resources import openstack
from stoker.resources.registry import default_registry
from stoker.store import open_store

TEMPLATE = """heat_template_version: wallaby
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: driftnet}
  nothing:
    type: OS::Heat::None
"""


def test_drift_through_the_api(cloud: Cloud, admin: Any, tmp_path: Path) -> None:
    registry = default_registry()
    openstack.register(registry, cloud)
    store = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    app = build_app(store, registry, EngineSettings(), recover=False, cloud=cloud)
    with TestClient(app) as client:
        created = client.post("/v1/admin/stacks", json={"stack_name": "d", "template": TEMPLATE})
        assert created.status_code == 201, created.text
        url = created.headers["location"]
        assert wait_for(client, url)["stack_status"] == "CREATE_COMPLETE"
        in_sync = client.get(url + "/drift")
        assert in_sync.status_code == 200, in_sync.text
        rows = {row["resource_name"]: row for row in in_sync.json()["drift"]}
        assert rows["net"]["drift_status"] == "IN_SYNC"
        assert rows["nothing"]["drift_status"] == "NOT_CHECKED"
        assert rows["nothing"]["reason"] == "OS::Heat::None has no cloud resource"

        network = admin.network.find_network("driftnet")
        admin.network.update_network(network, is_admin_state_up=False)
        drifted = {r["resource_name"]: r for r in client.get(url + "/drift").json()["drift"]}
        assert drifted["net"]["drift_status"] == "MODIFIED"
        assert drifted["net"]["differences"] == [
            {"property": "admin_state_up", "expected": True, "actual": False}
        ]
        admin.network.delete_network(network)
        gone = {r["resource_name"]: r for r in client.get(url + "/drift").json()["drift"]}
        assert gone["net"]["drift_status"] == "DELETED"

        refused = client.get(url + "/drift?nested_depth=x")
        assert refused.status_code == 400
        assert "nested_depth" in refused.json()["error"]["message"]
        assert client.get("/v1/admin/stacks/d/no-such-id/drift").status_code == 404
        assert client.delete(url).status_code == 204
        wait_for(client, url)


def test_drift_is_a_read_under_its_own_rule() -> None:
    assert rule_for("GET", ["stacks", "s", "i", "drift"]) == "stacks:drift"
    assert DEFAULTS["stacks:drift"] == PROJECT_READER
    assert rule_for("PUT", ["stacks", "s", "i", "drift"]) is None


def test_the_commands_refuse_clearly(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from stoker.cli.main import cli

    db = f"sqlite:///{tmp_path / 'cli.db'}"
    missing = CliRunner().invoke(cli, ["--db", db, "stack", "drift", "nosuch"])
    assert missing.exit_code != 0
    assert "The Stack (nosuch) could not be found." in missing.output
    assert "Traceback" not in missing.output
    alone = CliRunner().invoke(cli, ["--db", db, "stack", "update", "nosuch", "--repair"])
    assert alone.exit_code == 2 and "--repair needs --existing" in alone.output
