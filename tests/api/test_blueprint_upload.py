"""``POST /stacks`` with a blueprint (seed 004) as YAML or in a ZIP: compiled, then made
into a stack; one that needs a cloud the server has not chosen is a located 400."""

from __future__ import annotations

import httpx2
import pytest
from starlette.testclient import TestClient

from .helpers import wait_for
from .test_upload import package

pytestmark = pytest.mark.heavy

SCRIPTS = """name: scripts only
components:
  setup:
    type: com.example.script.ShellScript
    content: setup.sh
  packages: {type: rpm, rpms: [php]}
"""


@pytest.fixture(autouse=True)
def no_cloud(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OS_CLOUD", "OS_AUTH_URL"):
        monkeypatch.delenv(name, raising=False)


def resource_types(client: TestClient, url: str) -> dict[str, str]:
    stack = wait_for(client, url)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    listed = client.get(f"{url}/resources").json()["resources"]
    return {r["resource_name"]: r["resource_type"] for r in listed}


def post_scripts(client: TestClient, stack_name: str) -> httpx2.Response:
    """The scripts blueprint, zipped with its setup.sh, posted as a new stack."""
    data = package({"blueprint.yaml": SCRIPTS, "setup.sh": "#!/bin/sh\necho ready\n"})
    return client.post(
        f"/v1/admin/stacks?stack_name={stack_name}",
        content=data,
        headers={"Content-Type": "application/zip"},
    )


def test_zip_blueprint_is_compiled_with_its_content(client: TestClient) -> None:
    response = post_scripts(client, "bp")
    assert response.status_code == 201, response.text
    url = response.headers["location"]
    assert resource_types(client, url) == {
        "setup": "Blueprint::Script::Shell",
        "packages": "Blueprint::Package::Rpm",
    }
    template = client.get(f"{url}/template").json()
    assert template["resources"]["setup"]["properties"]["script"] == "#!/bin/sh\necho ready\n"


def test_yaml_blueprint_that_needs_a_cloud_is_refused_with_its_position(
    client: TestClient,
) -> None:
    text = "components:\n  web:\n    type: server\n    requires: {minRam: 1gb}\n"
    response = client.post(
        "/v1/admin/stacks?stack_name=bp2",
        content=text.encode(),
        headers={"Content-Type": "application/x-yaml"},
    )
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message.startswith("upload.yaml:2:3: components.web:")
    assert "needs a cloud to choose its flavor and image" in message
    assert "OS_CLOUD" in message


def test_a_fulfillment_names_a_resource_of_a_stack_of_the_callers_project(
    client: TestClient,
) -> None:
    response = post_scripts(client, "shared")
    assert response.status_code == 201, response.text
    wait_for(client, response.headers["location"])
    text = "components:\n  web:\n    type: server\n    requires:\n"
    text += "      run: {fulfillment: 'stacks/shared/resources/setup'}\n"

    def upload(project: str) -> str:
        response = client.post(
            f"/v1/{project}/stacks?stack_name=web",
            content=text.encode(),
            headers={"Content-Type": "application/x-yaml"},
        )
        assert response.status_code == 400
        message: str = response.json()["error"]["message"]
        return message

    # found in the caller's project: what stops it is the cloud, not the fulfillment
    message = upload("admin")
    assert "needs a cloud to choose its flavor" in message and "shared" not in message
    # another project's stacks are not seen
    message = upload("demo")
    assert message.startswith("upload.yaml:5:")
    assert 'there is no stack "shared" in project "demo"' in message
