"""``stoker serve --os-cloud NAME``: stacks created through the API act in that cloud
(the real sandbox here), and ``Fn::GetAZs`` answers its Nova's zones. In process through
the application, and (slow) a real ``stoker serve`` driven by ``openstack stack create
--wait``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from api.helpers import wait_for
from stoker.api.app import build_app
from stoker.cloud import Cloud
from stoker.engine.settings import EngineSettings
from stoker.resources import openstack
from stoker.resources.registry import default_registry
from stoker.store import open_store

#: HOT keeps Fn::GetAZs in its first version only
TEMPLATE = """heat_template_version: 2013-05-23
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: NAME}
outputs:
  zones: {value: {"Fn::GetAZs": ""}}
  network: {value: {get_resource: net}}
"""
CFN = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {"none": {"Type": "OS::Heat::None"}},
    "Outputs": {"zones": {"Value": {"Fn::GetAZs": ""}}},
}


def test_a_stack_through_the_api_is_made_in_the_chosen_cloud(
    cloud: Cloud, admin: Any, tmp_path: Path
) -> None:
    registry = default_registry()
    openstack.register(registry, cloud)
    store = open_store(f"sqlite:///{tmp_path / 'api.db'}")
    app = build_app(store, registry, EngineSettings(), recover=False, cloud=cloud)
    with TestClient(app) as client:
        created = client.post(
            "/v1/admin/stacks",
            json={"stack_name": "apinet", "template": TEMPLATE.replace("NAME", "apinet-net")},
        )
        assert created.status_code == 201, created.text
        url = created.headers["location"]
        stack = wait_for(client, url)
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        outputs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
        assert outputs["zones"] == ["nova"]  # the sandbox's Nova
        network = admin.network.get_network(outputs["network"])
        assert network.name == "apinet-net"
        assert client.delete(url).status_code == 204
        assert wait_for(client, url)["stack_status"] == "DELETE_COMPLETE"
        cfn = client.post("/v1/admin/stacks", json={"stack_name": "cfn", "template": CFN})
        assert cfn.status_code == 201, cfn.text
        stack = wait_for(client, cfn.headers["location"])
        assert stack["outputs"][0]["output_value"] == ["nova"]
    assert admin.network.find_network("apinet-net") is None


@pytest.mark.slow
def test_openstack_stack_create_against_serve_with_a_cloud(
    cloud_env: dict[str, str], admin: Any, tmp_path: Path
) -> None:
    from api.test_real_clients import BIN, Server

    server = Server(
        f"sqlite:///{tmp_path / 'serve.db'}",
        tmp_path / "serve.log",
        extra=("--os-cloud", "sandbox"),
        environ={"OS_CLIENT_CONFIG_FILE": cloud_env["OS_CLIENT_CONFIG_FILE"]},
    )
    try:
        template = tmp_path / "net.yaml"
        template.write_text(TEMPLATE.replace("NAME", "servenet-net"))
        endpoint = ["--os-auth-type", "none", "--os-endpoint", f"{server.url}/v1/admin"]

        def run(*args: str) -> str:
            done = subprocess.run(
                [str(BIN / "openstack"), *endpoint, *args],
                capture_output=True,
                text=True,
                timeout=120,
                env={"PATH": str(BIN)},
            )
            assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
            return done.stdout

        created = run("stack", "create", "-t", str(template), "servenet", "--wait")
        assert "Stack CREATE completed successfully" in created
        zones = json.loads(run("stack", "output", "show", "servenet", "zones", "-f", "json"))
        assert zones["output_value"] == ["nova"]
        assert admin.network.find_network("servenet-net") is not None
        run("stack", "delete", "servenet", "--yes", "--wait")
        assert admin.network.find_network("servenet-net") is None
    finally:
        server.stop()
