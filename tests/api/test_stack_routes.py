"""Every stack route of the API, in process: statuses, bodies, redirects, errors, with
Heat 24.1.2's recorded answers (tests/fixtures/heat_api) as the reference shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from .helpers import TEMPLATE, create, wait_for

HEAT = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "heat_api" / "heat-24.1.2.json").read_text()
)


def heat_keys(name: str, *path: str) -> set[str]:
    body: Any = HEAT[name]["body"]
    for key in path:
        body = body[key]
    return set(body[0] if isinstance(body, list) else body)


def error_of(response: Any) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    assert set(body) == set(HEAT["not_found"]["body"])
    assert set(body["error"]) == {"message", "type", "traceback"}
    assert body["error"]["traceback"] is None
    assert body["code"] == response.status_code
    return body


def test_version_discovery(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == HEAT["versions"]["status"] == 300
    assert response.json() == {
        "versions": [
            {
                "id": "v1.0",
                "status": "CURRENT",
                "links": [{"rel": "self", "href": "http://testserver/v1/"}],
            }
        ]
    }
    assert response.headers["x-openstack-request-id"].startswith("req-")
    assert client.get("/v1/admin").json()["version"]["id"] == "v1.0"


def test_create_show_and_the_stored_inputs(client: TestClient) -> None:
    response = client.post("/v1/admin/stacks", json={"stack_name": "one", "template": TEMPLATE})
    assert response.status_code == 201
    url = response.headers["location"]
    assert url.startswith("http://testserver/v1/admin/stacks/one/")
    assert set(response.json()["stack"]) == heat_keys("create", "stack")
    assert response.json()["stack"]["links"] == [{"href": url, "rel": "self"}]
    stack = wait_for(client, url)
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert heat_keys("show", "stack") - set(stack) <= {"stack_owner"} - set(stack)
    assert stack["parameters"]["p"] == "******"  # hidden, masked structurally
    outputs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert outputs == {"o": "hello", "secret": "x"}
    assert (
        client.get(url, params={"resolve_outputs": "false"}).json()["stack"].get("outputs") is None
    )

    assert client.get(url + "/template").json() == TEMPLATE
    environment = client.get(url + "/environment").json()
    assert set(environment) == set(HEAT["environment"]["body"])
    assert client.get(url + "/files").json() == {}
    listed = client.get(url + "/outputs").json()["outputs"]
    assert {o["output_key"] for o in listed} == {"o", "secret"}
    assert all("output_value" not in o for o in listed)
    assert client.get(url + "/outputs/o").json()["output"]["output_value"] == "hello"
    missing = client.get(url + "/outputs/nope")
    assert missing.status_code == 404
    assert error_of(missing)["error"]["type"] == HEAT["output_missing"]["body"]["error"]["type"]


def test_lookups_redirect_keeping_path_and_query(client: TestClient) -> None:
    url = create(client, "lookup")
    found = client.get("/v1/admin/stacks/lookup?resolve_outputs=false", follow_redirects=False)
    assert found.status_code == 302
    assert found.headers["location"] == url + "?resolve_outputs=false"
    stack_id = url.rsplit("/", 1)[1]
    by_id = client.get(f"/v1/admin/stacks/{stack_id}", follow_redirects=False)
    assert by_id.headers["location"] == url
    sub = client.get("/v1/admin/stacks/lookup/resources?nested_depth=1", follow_redirects=False)
    assert sub.status_code == 302
    assert sub.headers["location"] == url + "/resources?nested_depth=1"
    arn = f"/v1/admin/stacks/arn:openstack:heat::admin:stacks/lookup/{stack_id}/events"
    assert client.get(arn, follow_redirects=False).headers["location"] == url + "/events"
    patch = client.patch("/v1/admin/stacks/lookup", json={}, follow_redirects=False)
    assert patch.status_code == 302  # keystoneauth re-sends the method to Location
    gone = client.get("/v1/admin/stacks/nonexistent")
    assert gone.status_code == 404
    assert error_of(gone) == HEAT["not_found"]["body"] | {
        "error": {**HEAT["not_found"]["body"]["error"], "message": gone.json()["error"]["message"]}
    }
    assert gone.json()["error"]["message"] == "The Stack (nonexistent) could not be found."


def test_create_refusals_are_heat_errors(client: TestClient) -> None:
    create(client, "taken")
    again = client.post("/v1/admin/stacks", json={"stack_name": "taken", "template": TEMPLATE})
    assert again.status_code == 409
    assert error_of(again)["error"] == HEAT["exists"]["body"]["error"] | {
        "message": "The Stack (taken) already exists."
    }
    bad = client.post(
        "/v1/admin/stacks",
        json={
            "stack_name": "bad",
            "template": {
                "heat_template_version": "2018-08-31",
                "resources": {"r": {"type": "OS::Nope"}},
            },
        },
    )
    assert bad.status_code == 400
    body = error_of(bad)
    assert body["error"]["type"] == HEAT["bad_type"]["body"]["error"]["type"]
    assert "The Resource Type (OS::Nope) could not be found." in body["error"]["message"]
    text = "heat_template_version: 2018-08-31\nresources:\n  r:\n    type: [\n"
    broken = client.post("/v1/admin/stacks", json={"stack_name": "b2", "template": text})
    assert broken.status_code == 400
    assert "<template>:" in broken.json()["error"]["message"]  # located: file:line:column
    for body_fields, word in (
        ({"template": TEMPLATE}, "stack_name"),
        ({"stack_name": "x"}, "No template"),
        ({"stack_name": "x", "template_url": "file:///etc/passwd"}, "template_url"),
        ({"stack_name": "1x", "template": TEMPLATE}, "Invalid stack name"),
    ):
        refused = client.post("/v1/admin/stacks", json=body_fields)
        assert refused.status_code == 400, body_fields
        assert word in refused.json()["error"]["message"]
    missing_param = client.post(
        "/v1/admin/stacks",
        json={
            "stack_name": "needs",
            "template": {
                "heat_template_version": "2018-08-31",
                "parameters": {"n": {"type": "number"}},
            },
        },
    )
    assert missing_param.status_code == 400
    assert client.get("/v1/admin/stacks/needs").status_code == 404  # nothing half-written


def test_local_paths_are_never_read(client: TestClient) -> None:
    for template, environment in (
        (
            {
                "heat_template_version": "2018-08-31",
                "resources": {"r": {"type": "/etc/passwd.yaml"}},
            },
            None,
        ),
        (
            {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "My::T"}}},
            {"resource_registry": {"My::T": "/etc/hosts.yaml"}},
        ),
    ):
        response = client.post(
            "/v1/admin/stacks",
            json={"stack_name": "prov", "template": template, "environment": environment},
        )
        assert response.status_code == 400  # not in the request's files: never read from disk
        assert "Could not fetch remote template" in response.json()["error"]["message"]
    get_file = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_file": "/etc/hostname"}}}
        },
    }
    refused = client.post("/v1/admin/stacks", json={"stack_name": "gf", "template": get_file})
    assert refused.status_code == 400  # not in the request's files: never read from disk
    given = client.post(
        "/v1/admin/stacks",
        json={"stack_name": "gf", "template": get_file, "files": {"/etc/hostname": "mine"}},
    )
    assert given.status_code == 201
    url = given.headers["location"]
    wait_for(client, url)
    assert client.get(url + "/files").json() == {"/etc/hostname": "mine"}


def test_limits(client: TestClient) -> None:
    """Heat's max_json_body_size (413) and max_template_size (400), with Heat's types."""
    big = {"stack_name": "big", "template": TEMPLATE, "files": {"f": "x" * 2_100_000}}
    response = client.post("/v1/admin/stacks", json=big)
    assert response.status_code == 413
    assert error_of(response)["error"]["type"] == "RequestLimitExceeded"
    huge = dict(TEMPLATE, description="x" * 600_000)
    response = client.post("/v1/admin/stacks", json={"stack_name": "t", "template": huge})
    assert response.status_code == 400
    assert "Template size" in response.json()["error"]["message"]
    assert client.get("/v1/admin/stacks/t").status_code == 404


def test_list_filters_sorting_paging(client: TestClient) -> None:
    for name, tags in (("la", "x,y"), ("lb", "y"), ("lc", "")):
        create(client, name, tags=tags)
    rows = client.get("/v1/admin/stacks").json()["stacks"]
    names = [r["stack_name"] for r in rows]
    assert names.index("lc") < names.index("la")  # newest first, as Heat's default
    assert set(rows[0]) >= heat_keys("list", "stacks")
    assert [r["stack_name"] for r in client.get("/v1/admin/stacks?name=lb").json()["stacks"]] == [
        "lb"
    ]
    tagged = client.get("/v1/admin/stacks?tags=y").json()["stacks"]
    assert {r["stack_name"] for r in tagged} == {"la", "lb"}
    both = client.get("/v1/admin/stacks?tags=x,y").json()["stacks"]
    assert [r["stack_name"] for r in both] == ["la"]
    not_x = {
        r["stack_name"] for r in client.get("/v1/admin/stacks?not_tags_any=x").json()["stacks"]
    }
    assert "la" not in not_x and "lb" in not_x
    by_name = client.get("/v1/admin/stacks?sort_keys=stack_name&sort_dir=asc").json()["stacks"]
    assert [r["stack_name"] for r in by_name] == sorted(r["stack_name"] for r in by_name)
    page = client.get("/v1/admin/stacks?sort_keys=stack_name&sort_dir=asc&limit=2").json()
    assert len(page["stacks"]) == 2
    assert page["links"][0]["rel"] == "next"
    following = client.get(page["links"][0]["href"]).json()["stacks"]
    assert following[0]["stack_name"] > page["stacks"][1]["stack_name"]
    counted = client.get("/v1/admin/stacks?with_count=true&name=la").json()
    assert counted["count"] == 1
    assert client.get("/v1/admin/stacks?sort_dir=sideways").status_code == 400
    assert client.get("/v1/admin/stacks?marker=nope").status_code == 404
    nested = client.get("/v1/admin/stacks?show_nested=true&name=la").json()["stacks"]
    assert len(nested) == 1
    all_nested = client.get("/v1/admin/stacks?show_nested=true").json()["stacks"]
    assert any(r["parent"] for r in all_nested)  # the groups' nested stacks
    detail = client.get("/v1/admin/stacks/detail?name=la").json()["stacks"]
    assert detail[0]["parameters"]["p"] == "******"


def test_update_put_patch_and_previews(client: TestClient) -> None:
    url = create(client, "upd")
    preview = client.patch(url + "/preview", json={"parameters": {"q": "changed"}})
    assert preview.status_code == 200
    changes = preview.json()["resource_changes"]
    # the group is a nested stack resource: always updated, as Heat's StackResource
    # (tests/fidelity/update_nested)
    assert sorted(r["resource_name"] for r in changes["updated"]) == ["g", "v"]
    assert set(changes) == {"unchanged", "updated", "replaced", "added", "deleted"}
    patched = client.patch(url, json={"parameters": {"q": "changed"}})
    assert patched.status_code == HEAT["update_patch"]["status"] == 202
    stack = wait_for(client, url)
    assert stack["stack_status"] == "UPDATE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in stack["outputs"]}["o"] == "changed"
    smaller = {
        "heat_template_version": "2018-08-31",
        "resources": {"n": {"type": "OS::Heat::None"}},
    }
    put_preview = client.put(url + "/preview", json={"template": smaller}).json()
    assert {r["resource_name"] for r in put_preview["resource_changes"]["deleted"]} == {
        "r",
        "v",
        "g",
    }
    assert client.put(url, json={"template": smaller}).status_code == 202
    assert wait_for(client, url)["stack_status"] == "UPDATE_COMPLETE"
    resources = client.get(url + "/resources").json()["resources"]
    assert [r["resource_name"] for r in resources] == ["n"]
    refused = client.put(url, json={})
    assert refused.status_code == 400


def test_create_preview(client: TestClient) -> None:
    response = client.post(
        "/v1/admin/stacks/preview", json={"stack_name": "pv", "template": TEMPLATE}
    )
    assert response.status_code == 200
    stack = response.json()["stack"]
    plain = {r["resource_name"] for r in stack["resources"] if isinstance(r, dict)}
    assert plain == {"r", "v"}
    # the group's members as the nested list Heat gives a nested stack's resources
    [members] = [r for r in stack["resources"] if isinstance(r, list)]
    assert {(m["resource_name"], m["parent_resource"]) for m in members} == {("0", "g"), ("1", "g")}
    assert client.get("/v1/admin/stacks/pv").status_code == 404  # nothing created


def test_delete(client: TestClient) -> None:
    url = create(client, "gone")
    response = client.delete(url)
    assert response.status_code == HEAT["delete"]["status"] == 204
    assert wait_for(client, url)["stack_status"] == "DELETE_COMPLETE"
    assert client.get("/v1/admin/stacks/gone").status_code == 404
    assert client.delete(url).status_code == 404
    deleted = client.get("/v1/admin/stacks?show_deleted=true&name=gone").json()["stacks"]
    assert deleted and deleted[0]["deletion_time"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", ""),
        ("PUT", ""),
        ("PATCH", ""),
        ("DELETE", ""),
        ("PUT", "/preview"),
        ("PATCH", "/preview"),
        ("DELETE", "/abandon"),
        ("GET", "/export"),
        ("GET", "/template"),
        ("GET", "/environment"),
        ("GET", "/files"),
        ("GET", "/outputs"),
        ("GET", "/outputs/o"),
        ("POST", "/actions"),
        ("GET", "/resources"),
        ("GET", "/resources/r"),
        ("PATCH", "/resources/r"),
        ("GET", "/resources/r/metadata"),
        ("POST", "/resources/r/signal"),
        ("GET", "/events"),
        ("GET", "/resources/r/events"),
        ("GET", "/resources/r/events/1"),
        ("POST", "/snapshots"),
        ("GET", "/snapshots"),
        ("GET", "/snapshots/s"),
        ("DELETE", "/snapshots/s"),
        ("POST", "/snapshots/s/restore"),
    ],
)
def test_another_project_sees_nothing(client: TestClient, method: str, path: str) -> None:
    url = (
        create(client, "mine")
        if client.get("/v1/admin/stacks/mine").status_code == 404
        else (client.get("/v1/admin/stacks/mine", follow_redirects=False).headers["location"])
    )
    other = url.replace("/v1/admin/", "/v1/other/")
    body = {"check": None} if path == "/actions" else {}
    response = client.request(method, other + path, json=body)
    assert response.status_code == 404, response.text
    assert error_of(response)["error"]["type"] == "EntityNotFound"
    by_name = url.rsplit("/", 1)[0].replace("/v1/admin/", "/v1/other/")
    assert client.request(method, by_name + path.split("/snapshots")[0], json=body).status_code in (
        404,
        405,
    )
    assert client.get(url).json()["stack"]["stack_status"] == "CREATE_COMPLETE"


def test_concurrent_creates_stay_within_the_stacks_per_project_limit(tmp_path: Path) -> None:
    """Ten creates at once with room for three: three 201s, seven of Heat's 400
    ``RequestLimitExceeded``, and three stacks (the count and the insert are one
    transaction, see `Store.create_stack`)."""
    import asyncio

    import httpx

    from stoker.api.app import build_app
    from stoker.engine.settings import EngineSettings
    from stoker.resources.registry import default_registry
    from stoker.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'limit.db'}")
    app = build_app(
        store, default_registry(), EngineSettings(max_stacks_per_project=3), recover=False
    )

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await asyncio.gather(
                *(
                    client.post(
                        "/v1/admin/stacks", json={"stack_name": f"s{i}", "template": TEMPLATE}
                    )
                    for i in range(10)
                )
            )

    answers = asyncio.run(run())
    assert sorted(a.status_code for a in answers) == [201] * 3 + [400] * 7
    for refused in (a for a in answers if a.status_code == 400):
        assert refused.json()["error"]["type"] == "RequestLimitExceeded"
        assert "maximum stacks per project, 3" in refused.json()["error"]["message"]
    assert store.count_stacks("admin") == 3
