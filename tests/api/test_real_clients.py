"""A real ``stoker serve`` on an ephemeral port, driven by the real clients:
python-openstackclient with python-heatclient (each command's output checked) and
openstacksdk's orchestration proxy; and a server killed mid-operation whose work a second
server takes over. Slow (real processes): `pytest -m slow`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  q: {type: string, default: hello}
resources:
  r: {type: OS::Heat::None}
  v:
    type: OS::Heat::Value
    properties: {value: {get_param: q}}
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def: {type: OS::Heat::None}
outputs:
  o: {value: {get_attr: [v, value]}}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(
        self,
        db: str,
        log: Path,
        lease_seconds: float = 30.0,
        *,
        extra: tuple[str, ...] = (),
        environ: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.log = log.open("ab")
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, **(environ or {}), "STOKER_DB_URL": db}
        self.process = subprocess.Popen(
            [
                str(BIN / "stoker"),
                "serve",
                "--port",
                str(self.port),
                "--lease-seconds",
                str(lease_seconds),
                *extra,
            ],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(self.url + "/").status_code == 300:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"stoker serve did not start: {log.read_text()}")
            time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "serve.log")
    yield running
    running.stop()


def openstack(server: Server, *args: str) -> str:
    command = [
        str(BIN / "openstack"),
        "--os-auth-type",
        "none",
        "--os-endpoint",
        f"{server.url}/v1/admin",
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


def test_openstackclient(server: Server, tmp_path: Path) -> None:
    template = tmp_path / "stack.yaml"
    template.write_text(TEMPLATE)
    created = openstack(server, "stack", "create", "-t", str(template), "demo", "--wait")
    assert "Stack CREATE completed successfully" in created
    assert "CREATE_COMPLETE" in created
    listed = json.loads(openstack(server, "stack", "list", "-f", "json"))
    assert [(s["Stack Name"], s["Stack Status"]) for s in listed] == [("demo", "CREATE_COMPLETE")]
    shown = json.loads(openstack(server, "stack", "show", "demo", "-f", "json"))
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert shown["outputs"][0]["output_value"] == "hello"
    value = openstack(
        server, "stack", "output", "show", "demo", "o", "-f", "value", "-c", "output_value"
    )
    assert value.strip() == "hello"
    resources = json.loads(
        openstack(server, "stack", "resource", "list", "-n", "2", "demo", "-f", "json")
    )
    assert sorted(r["resource_name"] for r in resources) == ["0", "1", "g", "r", "v"]
    events = openstack(server, "stack", "event", "list", "demo")
    assert "[demo]: CREATE_IN_PROGRESS  Stack CREATE started" in events
    assert "[demo.v]: CREATE_COMPLETE" in events
    validated = openstack(server, "orchestration", "template", "validate", "-t", str(template))
    assert "Parameters:" in validated and "Default: hello" in validated
    types = openstack(server, "orchestration", "resource", "type", "list", "-f", "value")
    assert "OS::Heat::ResourceGroup" in types.split()
    dry = openstack(
        server, "stack", "update", "--dry-run", "--existing", "--parameter", "q=next", "demo"
    )
    assert "changed in place: value" in dry
    updated = openstack(
        server, "stack", "update", "--existing", "--parameter", "q=world", "demo", "--wait"
    )
    assert "UPDATE_COMPLETE" in updated
    value = openstack(
        server, "stack", "output", "show", "demo", "o", "-f", "value", "-c", "output_value"
    )
    assert value.strip() == "world"
    deleted = openstack(server, "stack", "delete", "--wait", "-y", "demo")
    # the events it prints are those its polls saw before the stack was gone
    assert all("DELETE_" in line for line in deleted.splitlines())
    assert json.loads(openstack(server, "stack", "list", "-f", "json")) == []
    gone = json.loads(openstack(server, "stack", "show", shown["id"], "-f", "json"))
    assert gone["stack_status"] == "DELETE_COMPLETE"


def test_openstackclient_sends_files_and_environments(server: Server, tmp_path: Path) -> None:
    """heatclient reads get_file and -e files itself and sends them as the files map
    (keyed by file:// URLs) and environment_files: the server reads nothing of its own."""
    (tmp_path / "script.sh").write_text("echo from-file\n")
    (tmp_path / "env.yaml").write_text("parameters:\n  q: from-env\n")
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  q: {type: string, default: d}\n"
        "resources:\n  f:\n    type: OS::Heat::Value\n"
        "    properties: {value: {get_file: script.sh}}\n"
        "outputs:\n  f: {value: {get_attr: [f, value]}}\n  q: {value: {get_param: q}}\n"
    )
    created = openstack(
        server,
        "stack",
        "create",
        "-t",
        str(tmp_path / "t.yaml"),
        "-e",
        str(tmp_path / "env.yaml"),
        "files",
        "--wait",
        "-f",
        "value",
        "-c",
        "stack_status",
    )
    assert created.strip().endswith("CREATE_COMPLETE")
    outputs = json.loads(
        openstack(server, "stack", "output", "show", "files", "--all", "-f", "json")
    )
    assert outputs["f"]["output_value"] == "echo from-file\n"
    assert outputs["q"]["output_value"] == "from-env"


def test_openstackclient_sends_provider_templates(server: Server, tmp_path: Path) -> None:
    """An environment maps a type to a local provider template, which names a nested
    provider by path and a get_file: heatclient sends all three in the files map (keyed
    by file:// URLs, the references rewritten to them) and the server runs them."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "leaf.yaml").write_text(
        "heat_template_version: 2018-08-31\nparameters:\n  text: {type: string}\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: text}}}\n"
        "outputs:\n  said: {value: {get_attr: [v, value]}}\n"
    )
    (lib / "suffix.txt").write_text("world")
    (lib / "provider.yaml").write_text(
        "heat_template_version: 2018-08-31\nparameters:\n  word: {type: string}\n"
        "resources:\n  inner:\n    type: leaf.yaml\n    properties:\n"
        "      text: {list_join: ['-', [{get_param: word}, {get_file: suffix.txt}]]}\n"
        "outputs:\n  said: {value: {get_attr: [inner, said]}}\n"
    )
    (tmp_path / "env.yaml").write_text("resource_registry:\n  My::Provider: lib/provider.yaml\n")
    (tmp_path / "template.yaml").write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  p: {type: My::Provider, properties: {word: hello}}\n"
        "outputs:\n  out: {value: {get_attr: [p, said]}}\n"
    )
    created = openstack(
        server,
        "stack",
        "create",
        "-t",
        str(tmp_path / "template.yaml"),
        "-e",
        str(tmp_path / "env.yaml"),
        "prov",
        "--wait",
        "-f",
        "value",
        "-c",
        "stack_status",
    )
    assert created.strip().endswith("CREATE_COMPLETE")
    value = openstack(
        server, "stack", "output", "show", "prov", "out", "-f", "value", "-c", "output_value"
    )
    assert value.strip() == "hello-world"
    resources = json.loads(
        openstack(server, "stack", "resource", "list", "-n", "2", "prov", "-f", "json")
    )
    types = {r["resource_name"]: r["resource_type"] for r in resources}
    # as Heat 24.1.2 lists them: the nested provider by the URL heatclient sent
    assert types == {
        "p": "My::Provider",
        "inner": (lib / "leaf.yaml").as_uri(),
        "v": "OS::Heat::Value",
    }


def test_openstacksdk(server: Server) -> None:
    with warnings.catch_warnings():  # openstacksdk's own deprecations
        warnings.simplefilter("ignore")
        drive_sdk(server)


def drive_sdk(server: Server) -> None:
    import openstack as sdk

    connection = sdk.connect(
        auth_type="none",
        auth={"endpoint": server.url},
        orchestration_endpoint_override=f"{server.url}/v1/admin",
        load_yaml_config=False,
        load_envvars=False,
    )
    orchestration = connection.orchestration

    def template(default: str) -> dict[str, Any]:
        return {
            "heat_template_version": "2018-08-31",
            "parameters": {"q": {"type": "string", "default": default}},
            "resources": {
                "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "q"}}}
            },
            "outputs": {"o": {"value": {"get_attr": ["v", "value"]}}},
        }

    stack = orchestration.create_stack(name="sdk", template=template("a"))
    stack = orchestration.wait_for_status(
        orchestration.get_stack(stack.id), "CREATE_COMPLETE", failures=["CREATE_FAILED"], wait=60
    )
    found = orchestration.find_stack("sdk")
    assert found is not None and found.id == stack.id
    orchestration.update_stack(found, template=template("b"))
    stack = orchestration.wait_for_status(
        orchestration.get_stack(stack.id), "UPDATE_COMPLETE", failures=["UPDATE_FAILED"], wait=60
    )
    assert stack.outputs[0]["output_value"] == "b"
    orchestration.delete_stack(stack)
    orchestration.wait_for_delete(stack, wait=60)
    assert orchestration.find_stack("sdk") is None


def test_a_new_server_takes_over_a_dead_ones_operation(store_url: str, tmp_path: Path) -> None:
    """On SQLite and PostgreSQL: SIGKILL a server mid-create; the next one finishes it."""
    db = store_url
    slow = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "wait": {
                "type": "OS::Heat::TestResource",
                "properties": {"action_wait_secs": {"create": 3}},
            },
            "after": {"type": "OS::Heat::None", "depends_on": "wait"},
        },
    }
    first = Server(db, tmp_path / "first.log", lease_seconds=2)
    response = httpx.post(
        f"{first.url}/v1/admin/stacks", json={"stack_name": "takeover", "template": slow}
    )
    assert response.status_code == 201
    path = response.headers["location"].split(str(first.port), 1)[1]
    first.stop(signal.SIGKILL)  # mid-create: the wait resource is still running
    second = Server(db, tmp_path / "second.log", lease_seconds=2)
    try:
        deadline = time.monotonic() + 60
        while True:
            stack = httpx.get(second.url + path).json()["stack"]
            if stack["stack_status"] != "CREATE_IN_PROGRESS" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        resources = httpx.get(second.url + path + "/resources").json()["resources"]
        assert {r["resource_status"] for r in resources} == {"CREATE_COMPLETE"}
    finally:
        second.stop()
