"""The ``openstack`` command (python-openstackclient) against the sandbox, unchanged:
pointed at it by the clouds.yaml ``stoker sandbox clouds-yaml`` writes.

Each run starts a new Python (1-2 s): one test is in the default suite, the operator's
whole bootstrap is marked slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

from .server import PASSWORD, RunningSandbox

OPENSTACK = str(Path(sys.executable).with_name("openstack"))


class Openstack:
    def __init__(self, sandbox: RunningSandbox, directory: Path) -> None:
        clouds = directory / "clouds.yaml"
        written = CliRunner().invoke(
            cli,
            ["sandbox", "clouds-yaml", "--port", str(sandbox.port), "--password", PASSWORD],
        )
        assert written.exit_code == 0, written.output
        clouds.write_text(written.output)
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(directory),
            "OS_CLIENT_CONFIG_FILE": str(clouds),
            "OS_CLOUD": "sandbox",
        }

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [OPENSTACK, *args], capture_output=True, text=True, env=self.env, timeout=120
        )
        if check:
            assert done.returncode == 0, done.stderr
        return done

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "-f", "json").stdout)


@pytest.mark.slow  # moved out of the default suite: its 90 s budget
def test_server_create_wait_and_list(sandbox: RunningSandbox, cloud: Any, tmp_path: Path) -> None:
    osc = Openstack(sandbox, tmp_path)
    name = f"osc-{uuid.uuid4().hex[:6]}"
    image = cloud.image.find_image("cirros-0.6.2-x86_64-disk")
    created = osc.json(
        "server", "create", "--flavor", "m1.tiny", "--image", image.id, "--wait", name
    )
    assert (created["name"], created["status"]) == (name, "ACTIVE")
    assert cloud.compute.get_server(created["id"]).status == "ACTIVE"
    cloud.compute.delete_server(created["id"])


@pytest.mark.slow
def test_operator_bootstrap_and_server_lifecycle(sandbox: RunningSandbox, tmp_path: Path) -> None:
    osc = Openstack(sandbox, tmp_path)
    suffix = uuid.uuid4().hex[:6]
    assert "compute" in {c["Type"] for c in osc.json("catalog", "list")}
    flavor = osc.json(
        "flavor", "create", "--ram", "256", "--vcpus", "1", "--disk", "1", f"f-{suffix}"
    )
    assert flavor["ram"] == 256
    disk = tmp_path / "disk.img"
    disk.write_bytes(os.urandom(4096))
    image = osc.json(
        "image",
        "create",
        "--file",
        str(disk),
        "--disk-format",
        "qcow2",
        "--container-format",
        "bare",
        f"img-{suffix}",
    )
    assert (image["status"], image["size"]) == ("active", 4096)
    keypair = osc.run("keypair", "create", f"kp-{suffix}").stdout
    assert "PRIVATE KEY" in keypair
    server = osc.json(
        "server",
        "create",
        "--flavor",
        flavor["id"],
        "--image",
        image["id"],
        "--key-name",
        f"kp-{suffix}",
        "--wait",
        f"vm-{suffix}",
    )
    assert server["status"] == "ACTIVE"
    listed = {s["Name"]: s["Status"] for s in osc.json("server", "list")}
    assert listed[f"vm-{suffix}"] == "ACTIVE"
    osc.run("server", "set", "--property", "role=web", server["id"])
    assert osc.json("server", "show", server["id"])["properties"] == {"role": "web"}
    osc.run("server", "resize", "--flavor", "m1.small", "--wait", server["id"])
    assert osc.json("server", "show", server["id"])["status"] == "VERIFY_RESIZE"
    osc.run("server", "resize", "confirm", server["id"])
    osc.run("server", "reboot", "--wait", server["id"])
    group = osc.json("server", "group", "create", "--policy", "anti-affinity", f"g-{suffix}")
    assert group["policy"] == "anti-affinity"
    assert [z["Zone Name"] for z in osc.json("availability", "zone", "list", "--compute")] == [
        "nova"
    ]
    osc.run("server", "delete", "--wait", server["id"])
    missing = osc.run("server", "show", server["id"], check=False)
    assert missing.returncode == 1 and "No Server found" in missing.stderr
    osc.run("server", "group", "delete", group["id"])
    osc.run("keypair", "delete", f"kp-{suffix}")
    osc.run("image", "delete", image["id"])
    osc.run("flavor", "delete", flavor["id"])
    assert f"img-{suffix}" not in {i["Name"] for i in osc.json("image", "list")}
