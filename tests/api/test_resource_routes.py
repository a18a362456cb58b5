"""Resource, event, action, snapshot and catalog routes of the API, in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from .helpers import TEMPLATE, create, wait_for

pytestmark = pytest.mark.heavy

HEAT = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "heat_api" / "heat-24.1.2.json").read_text()
)

SIGNALLED: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "r": {"type": "OS::Heat::None", "metadata": {"m": 1}},
    },
}


def test_resources(client: TestClient) -> None:
    url = create(client, "res")
    rows = client.get(url + "/resources").json()["resources"]
    assert {r["resource_name"] for r in rows} == {"r", "v", "g"}
    heat_row = set(HEAT["resources"]["body"]["resources"][0])
    assert heat_row <= set(rows[0])
    assert rows[0]["links"][0]["href"] == f"{url}/resources/{rows[0]['resource_name']}"
    nested = client.get(url + "/resources?nested_depth=1").json()["resources"]
    assert {r["resource_name"] for r in nested} == {"r", "v", "g", "0", "1"}
    member = next(r for r in nested if r["resource_name"] == "0")
    assert member["parent_resource"] == "g"
    assert member["links"][1]["href"] != url  # the nested stack's own URL
    typed = client.get(url + "/resources?type=OS::Heat::Value").json()["resources"]
    assert [r["resource_name"] for r in typed] == ["v"]
    named = client.get(url + "/resources?name=r&status=COMPLETE").json()["resources"]
    assert [r["resource_name"] for r in named] == ["r"]
    detail = client.get(url + "/resources?with_detail=true&name=v").json()["resources"]
    assert detail[0]["attributes"]["value"] == "hello"
    one = client.get(url + "/resources/v")
    assert one.status_code == 200
    shown = one.json()["resource"]
    assert set(HEAT["resource"]["body"]["resource"]) <= set(shown)
    assert shown["attributes"]["value"] == "hello"
    missing = client.get(url + "/resources/nope")
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "The Resource (nope) could not be found."


def test_metadata_signal_and_mark_unhealthy(client: TestClient) -> None:
    url = create(client, "sig", SIGNALLED)
    assert client.get(url + "/resources/r/metadata").json() == {"metadata": {"m": 1}}
    assert client.get(url + "/resources/handle/metadata").json() == {"metadata": {}}
    signalled = client.post(url + "/resources/handle/signal", json={"status": "SUCCESS"})
    assert signalled.status_code == 200, signalled.text
    marked = client.patch(
        url + "/resources/r", json={"mark_unhealthy": True, "resource_status_reason": "broken"}
    )
    assert marked.status_code == 200, marked.text
    row = client.get(url + "/resources/r").json()["resource"]
    assert row["resource_status"] == "CHECK_FAILED"
    assert "broken" in row["resource_status_reason"]
    assert client.patch(url + "/resources/r", json={}).status_code == 400


def test_events(client: TestClient) -> None:
    url = create(client, "ev")
    events = client.get(url + "/events").json()["events"]
    assert events[0]["resource_status"] == "CREATE_COMPLETE"  # newest first, as Heat
    assert events[0]["resource_name"] == "ev"
    assert set(HEAT["events"]["body"]["events"][0]) <= set(events[0])
    oldest = client.get(url + "/events?sort_dir=asc&limit=2").json()["events"]
    assert len(oldest) == 2
    assert oldest[0]["resource_status_reason"] == "Stack CREATE started"
    after = client.get(url + f"/events?sort_dir=asc&marker={oldest[0]['id']}").json()["events"]
    assert after[0]["id"] == oldest[1]["id"]
    deeper = client.get(url + "/events?nested_depth=1").json()["events"]
    assert len(deeper) > len(events)
    of_v = client.get(url + "/resources/v/events").json()["events"]
    assert {e["resource_name"] for e in of_v} == {"v"}
    one = client.get(url + f"/resources/v/events/{of_v[0]['id']}")
    assert one.json()["event"]["id"] == of_v[0]["id"]
    assert client.get(url + "/resources/v/events/999999").status_code == 404
    failed = client.get(url + "/events?resource_status=FAILED").json()["events"]
    assert failed == []


def test_actions(client: TestClient) -> None:
    url = create(client, "act")
    for action, status in (
        ("check", "CHECK_COMPLETE"),
        ("suspend", "SUSPEND_COMPLETE"),
        ("resume", "RESUME_COMPLETE"),
    ):
        response = client.post(url + "/actions", json={action: None})
        assert response.status_code == HEAT["action_check"]["status"] == 200
        assert response.json() is None
        assert wait_for(client, url)["stack_status"] == status
    cancel = client.post(url + "/actions", json={"cancel_update": None})
    assert cancel.status_code == 400  # nothing to cancel
    assert client.post(url + "/actions", json={"explode": None}).status_code == 400


def test_abandon_export_adopt(client: TestClient) -> None:
    url = create(client, "ab")
    exported = client.get(url + "/export")
    assert exported.status_code == 200
    assert set(exported.json()["resources"]) == {"r", "v", "g"}
    abandoned = client.delete(url + "/abandon")
    assert abandoned.status_code == 200
    data = abandoned.json()
    assert client.get("/v1/admin/stacks/ab").status_code == 404
    adopted = client.post(
        "/v1/admin/stacks",
        json={"stack_name": "ab2", "adopt_stack_data": json.dumps(data), "template": TEMPLATE},
    )
    assert adopted.status_code == 201, adopted.text
    stack = wait_for(client, adopted.headers["location"])
    assert stack["stack_status"] == "ADOPT_COMPLETE"


def test_snapshots(client: TestClient) -> None:
    url = create(client, "snap")
    made = client.post(url + "/snapshots", json={"name": "first"})
    assert made.status_code == 200, made.text
    snapshot = made.json()
    assert snapshot["status"] == "COMPLETE"
    listed = client.get(url + "/snapshots").json()["snapshots"]
    assert [s["id"] for s in listed] == [snapshot["id"]]
    shown = client.get(url + f"/snapshots/{snapshot['id']}").json()["snapshot"]
    assert shown["name"] == "first"
    assert client.patch(url, json={"parameters": {"q": "later"}}).status_code == 202
    wait_for(client, url)
    restored = client.post(url + f"/snapshots/{snapshot['id']}/restore")
    assert restored.status_code == 202
    stack = wait_for(client, url)
    assert stack["stack_status"] == "RESTORE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in stack["outputs"]}["o"] == "hello"
    assert client.delete(url + f"/snapshots/{snapshot['id']}").status_code == 204
    assert client.get(url + f"/snapshots/{snapshot['id']}").status_code == 404


def test_validate(client: TestClient) -> None:
    response = client.post("/v1/admin/validate", json={"template": TEMPLATE})
    assert response.status_code == 200
    body = response.json()
    assert set(HEAT["validate"]["body"]) <= set(body)
    assert body["Parameters"]["p"]["NoEcho"] == "true"
    bad = client.post(
        "/v1/admin/validate",
        json={
            "template": {
                "heat_template_version": "2018-08-31",
                "resources": {"v": {"type": "OS::Heat::Value", "properties": {"nope": 1}}},
            }
        },
    )
    assert bad.status_code == 400
    assert "nope" in bad.json()["error"]["message"]


def test_catalog_routes(client: TestClient) -> None:
    types = client.get("/v1/admin/resource_types").json()["resource_types"]
    assert "OS::Heat::None" in types
    filtered = client.get("/v1/admin/resource_types?name=Random").json()["resource_types"]
    assert filtered == ["OS::Heat::RandomString"]
    described = client.get("/v1/admin/resource_types?name=None&with_description=true").json()
    assert described["resource_types"][0]["resource_type"] == "OS::Heat::None"
    shown = client.get("/v1/admin/resource_types/OS::Heat::RandomString").json()
    assert "length" in shown["properties"]
    catalog_only = client.get("/v1/admin/resource_types/OS::Nova::Server")
    assert catalog_only.status_code == 200
    assert client.get("/v1/admin/resource_types/OS::Nope").status_code == 404
    generated = client.get("/v1/admin/resource_types/OS::Heat::RandomString/template").json()
    assert generated["resources"]["RandomString"]["type"] == "OS::Heat::RandomString"
    assert "value" in generated["outputs"]
    versions = client.get("/v1/admin/template_versions").json()["template_versions"]
    assert {v["version"] for v in HEAT["template_versions"]["body"]["template_versions"]} <= {
        v["version"] for v in versions
    }
    functions = client.get(
        "/v1/admin/template_versions/heat_template_version.2018-08-31/functions"
    ).json()["template_functions"]
    assert "get_param" in {f["functions"] for f in functions}
    assert client.get("/v1/admin/template_versions/nope/functions").status_code == 404
    info = client.get("/v1/admin/build_info").json()
    assert set(info) == set(HEAT["build_info"]["body"])
    services = client.get("/v1/admin/services").json()["services"]
    assert services[0]["status"] == "up"


def test_unknown_routes_and_methods_are_heat_errors(client: TestClient) -> None:
    missing = client.get("/v1/admin/nothing-here")
    assert missing.status_code == 404
    assert missing.json()["error"]["traceback"] is None
    wrong = client.put("/v1/admin/stacks")
    assert wrong.status_code == 405
    assert wrong.json()["code"] == 405
    assert client.post("/v1/admin/stacks", content=b"{not json").status_code == 400


def test_software_configs_and_deployments(client: TestClient) -> None:
    made = client.post(
        "/v1/admin/software_configs",
        json={
            "name": "hello",
            "group": "script",
            "config": "#!/bin/sh\necho $who\n",
            "inputs": [{"name": "who"}],
            "outputs": [{"name": "result"}],
        },
    )
    assert made.status_code == 200, made.text
    config = made.json()["software_config"]
    assert config["group"] == "script" and config["inputs"] == [{"name": "who"}]
    listed = client.get("/v1/admin/software_configs").json()["software_configs"]
    assert config["id"] in [c["id"] for c in listed]
    assert "config" not in listed[0]  # the list shows no scripts, as Heat's
    shown = client.get(f"/v1/admin/software_configs/{config['id']}").json()
    assert shown["software_config"]["config"] == "#!/bin/sh\necho $who\n"
    assert client.get(f"/v1/other/software_configs/{config['id']}").status_code == 404

    deployed = client.post(
        "/v1/admin/software_deployments",
        json={"config_id": config["id"], "server_id": "srv-1", "input_values": {"who": "me"}},
    )
    assert deployed.status_code == 200, deployed.text
    deployment = deployed.json()["software_deployment"]
    assert deployment["status"] == "COMPLETE" and deployment["server_id"] == "srv-1"
    by_server = client.get("/v1/admin/software_deployments?server_id=srv-1").json()
    assert [d["id"] for d in by_server["software_deployments"]] == [deployment["id"]]
    metadata = client.get("/v1/admin/software_deployments/metadata/srv-1").json()["metadata"]
    assert metadata[0]["inputs"] == [{"name": "who", "value": "me"}]
    assert metadata[0]["config"].startswith("#!/bin/sh")
    updated = client.put(
        f"/v1/admin/software_deployments/{deployment['id']}",
        json={"status": "FAILED", "status_reason": "boom", "output_values": {"result": 1}},
    ).json()["software_deployment"]
    assert (updated["status"], updated["output_values"]) == ("FAILED", {"result": 1})
    assert updated["updated_time"] is not None
    other = f"/v1/other/software_deployments/{deployment['id']}"
    assert client.get(other).status_code == 404
    assert client.delete(other).status_code == 404
    unknown = client.post(
        "/v1/admin/software_deployments", json={"config_id": "nope", "server_id": "s"}
    )
    assert unknown.status_code == 404
    assert client.delete(f"/v1/admin/software_deployments/{deployment['id']}").status_code == 204
    assert client.get(f"/v1/admin/software_deployments/{deployment['id']}").status_code == 404
    assert client.delete(f"/v1/admin/software_configs/{config['id']}").status_code == 204
    assert client.get(f"/v1/admin/software_configs/{config['id']}").status_code == 404
