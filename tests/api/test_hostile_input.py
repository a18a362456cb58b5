"""What a hostile client sends `stoker serve`, answered as Heat answers a bad request
(issue 28): JSON nested past any recursion, on every route that reads a JSON body."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from stoker.request_body import MAX_JSON_DEPTH

from .helpers import create, make_client

HEAT_400 = {
    "explanation": "The server could not comply with the request since it is either "
    "malformed or otherwise incorrect.",
    "code": 400,
    "title": "Bad Request",
}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("hostile") / "api.db"
    with make_client(f"sqlite:///{path}") as client:
        yield client


def deep(levels: int) -> str:
    """A JSON object whose one value is ``levels`` lists deep."""
    return '{"stack_name": "x", "template": ' + "[" * levels + "]" * levels + "}"


@pytest.fixture(scope="module")
def json_routes(api: TestClient) -> list[tuple[str, str]]:
    """Every route of Heat's API that reads a JSON body, on a stack that exists."""
    client = api
    url = create(client, "target").removeprefix("http://testserver")
    config = client.post("/v1/admin/software_configs", json={"name": "c", "config": "x"})
    config_id = config.json()["software_config"]["id"]
    deployment = client.post(
        "/v1/admin/software_deployments", json={"config_id": config_id, "server_id": "srv"}
    )
    deployment_id = deployment.json()["software_deployment"]["id"]
    return [
        ("POST", "/v1/admin/stacks"),
        ("POST", "/v1/admin/stacks/preview"),
        ("POST", "/v1/admin/validate"),
        ("PUT", url),
        ("PATCH", url),
        ("PUT", url + "/preview"),
        ("PATCH", url + "/preview"),
        ("POST", url + "/actions"),
        ("POST", url + "/snapshots"),
        ("POST", url + "/resources/r/signal"),
        ("PATCH", url + "/resources/r"),
        ("POST", "/v1/admin/software_configs"),
        ("POST", "/v1/admin/software_deployments"),
        ("PUT", f"/v1/admin/software_deployments/{deployment_id}"),
    ]


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 1_000, 100_000])
def test_deeply_nested_json_is_a_bad_request_on_every_json_route(
    api: TestClient, json_routes: list[tuple[str, str]], levels: int
) -> None:
    body = deep(levels)
    for method, path in json_routes:
        answer = api.request(
            method, path, content=body, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 400, (method, path, answer.text)
        document: dict[str, Any] = answer.json()
        assert {k: document[k] for k in HEAT_400} == HEAT_400
        assert document["error"] == {
            "type": "HTTPBadRequest",
            "message": "The request body is not valid JSON: it nests more than "
            f"{MAX_JSON_DEPTH} levels deep.",
            "traceback": None,
        }


def test_json_as_deep_as_the_limit_is_read(api: TestClient) -> None:
    template = {"heat_template_version": "2018-08-31", "outputs": {"o": {"value": None}}}
    # the body's own two levels (the object and "template"), then the template's four
    inner = MAX_JSON_DEPTH - 4
    text = str(template).replace("'", '"').replace("None", "[" * inner + "]" * inner)
    answer = api.post(
        "/v1/admin/validate",
        content='{"template": ' + text + "}",
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 200, answer.text
