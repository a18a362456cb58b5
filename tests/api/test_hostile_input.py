"""What a hostile client sends `stoker serve` (issue 28), answered as Heat answers a bad
request: JSON nested past any recursion, on every route that reads a JSON body; a NUL
character in a path, query or name, on both stores; a signal to a resource that takes
none; hidden values given to ``POST /validate``. Heat's own answers to the same requests
are recorded in tests/fixtures/heat_api/issue28-heat-24.1.2.json."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from stoker.request_body import MAX_JSON_DEPTH

from .helpers import TEMPLATE, create, make_client

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


HEAT = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "heat_api" / "issue28-heat-24.1.2.json").read_text()
)


def test_signalling_a_resource_that_takes_no_signals_is_heats_400(api: TestClient) -> None:
    url = create(api, "unsignalled")
    answer = api.post(url + "/resources/r/signal", json={"a": 1})
    recorded = HEAT["signal_unsupported"]
    assert answer.status_code == recorded["status"] == 400
    assert answer.json() == recorded["body"]


def test_validate_masks_the_hidden_values_it_was_given(api: TestClient) -> None:
    """Heat echoes them in clear (recorded); stoker masks them, by the parameter's name,
    as `stack environment show` does."""
    recorded = HEAT["validate_hidden"]
    request = recorded["request"]["body"]
    answer = api.post("/v1/admin/validate", json=request)
    assert answer.status_code == 200, answer.text
    assert "s3cret" in json.dumps(recorded["body"])
    assert "s3cret" not in answer.text
    environment = answer.json()["Environment"]
    assert environment["parameters"] == {"p": "******", "q": "plain"}
    assert environment["parameter_defaults"] == {"p": "******"}
    assert set(recorded["body"]["Environment"]) <= set(environment)


NUL_TEMPLATE_YAML = (
    'heat_template_version: 2018-08-31\nresources:\n  "r\\0x": {type: OS::Heat::None}\n'
)


def test_a_nul_character_is_a_bad_request_on_both_stores(store_url: str) -> None:
    """PostgreSQL's text cannot hold a NUL: a path, query, body or template naming one
    answered 500 there (and 404 or 201 on SQLite); now 400 on both, before any store is
    asked, and nothing is stored."""
    nul_template = {
        "heat_template_version": "2018-08-31",
        "resources": {"r\u0000x": {"type": "OS::Heat::None"}},
    }
    with make_client(store_url) as client:
        url = create(client, "kept").removeprefix("http://testserver")
        refused = [
            client.get("/v1/admin/stacks/%00"),
            client.get("/v1/admin/stacks/kept/%00"),
            client.get("/v1/admin%00/stacks"),
            client.get(url + "/resources/r%00"),
            client.get("/v1/admin/software_configs/%00"),
            client.get("/v1/admin/software_deployments/metadata/%00"),
            client.get("/v1/admin/stacks?name=%00"),
            client.get("/v1/admin/stacks?tags=a%00"),
            client.post("/v1/admin/stacks", json={"stack_name": "n", "template": nul_template}),
            client.post(
                "/v1/admin/stacks", json={"stack_name": "y", "template": NUL_TEMPLATE_YAML}
            ),
            client.post(
                "/v1/admin/stacks?stack_name=u",
                content=NUL_TEMPLATE_YAML,
                headers={"content-type": "application/x-yaml"},
            ),
            client.post("/v1/admin/software_configs", json={"name": "a\u0000", "config": ""}),
            client.post(
                "/v1/admin/software_deployments",
                json={"config_id": "c", "server_id": "s\u0000"},
            ),
        ]
        for answer in refused:
            assert answer.status_code == 400, (answer.request.url, answer.text)
            assert answer.json()["error"]["type"] in ("HTTPBadRequest", "StackValidationFailed")
        names = [s["stack_name"] for s in client.get("/v1/admin/stacks").json()["stacks"]]
        assert names == ["kept"]
        assert client.get("/v1/admin/software_configs").json()["software_configs"] == []
        resource = client.post(
            "/v1/admin/stacks", json={"stack_name": "y", "template": NUL_TEMPLATE_YAML}
        )
        message = resource.json()["error"]["message"]
        assert 'Resource name "r\\0x" may not contain a NUL character' in message


@pytest.mark.parametrize("text", ["[" * 1_000 + "]" * 1_000, '{"x": "\\u0000"}'])
def test_adopt_data_sent_as_a_string_is_read_as_a_body_is(api: TestClient, text: str) -> None:
    """``adopt_stack_data`` may be JSON in a string (python-heatclient sends it so): it is
    parsed by the same reader, so nesting and NUL characters are 400s there too."""
    answer = api.post(
        "/v1/admin/stacks",
        json={"stack_name": "adopted", "adopt_stack_data": text, "template": TEMPLATE},
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["message"].startswith("Invalid adopt data: adopt_stack_data is")


def test_a_json_parameter_nested_past_the_depth_limit_is_a_bad_request(api: TestClient) -> None:
    """A ``json`` parameter's value is JSON in a string: decoded by the decoder that gave
    a RecursionError (500) at a thousand levels; now bounded by the document's depth
    limit, in the parameters and in an environment's parameter_defaults alike."""
    template = {"heat_template_version": "2018-08-31", "parameters": {"p": {"type": "json"}}}
    value = "[" * 1_000 + "]" * 1_000
    for given in (
        {"parameters": {"p": value}},
        {"environment": {"parameter_defaults": {"p": value}}},
    ):
        answer = api.post(
            "/v1/admin/stacks", json={"stack_name": "deep", "template": template, **given}
        )
        assert answer.status_code == 400, answer.text
        assert "nested more than 100 levels deep" in answer.json()["error"]["message"]
