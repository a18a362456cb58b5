"""``--os-cloud`` after the subcommand (``stoker stack create ... --os-cloud sandbox``),
the cloud kept with the stack it created, and a delete refused up front when a stack's
cloud resources have no cloud to be deleted from."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from stoker.cli.main import cli

NETWORK = """\
heat_template_version: 2021-04-16
resources:
  net: {type: OS::Neutron::Net, properties: {name: kept-cloud-net}}
"""


@pytest.fixture
def run(tmp_path: Path, clouds_yaml: Path, monkeypatch: pytest.MonkeyPatch):
    """``stoker --db DB ARGS``, with the sandbox in clouds.yaml and no cloud chosen by the
    environment."""
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
    for name in ("OS_CLOUD", "OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    db = tmp_path / "s.db"

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, ["--db", str(db), *args])

    invoke.db = db
    return invoke


@pytest.fixture
def template(tmp_path: Path) -> str:
    path = tmp_path / "net.yaml"
    path.write_text(NETWORK)
    return str(path)


def test_os_cloud_after_the_subcommand_and_kept_with_the_stack(run, template, admin) -> None:
    created = run("stack", "create", "n1", "-t", template, "--os-cloud", "sandbox", "--wait")
    assert created.exit_code == 0, created.output
    resources = json.loads(run("stack", "resource", "list", "n1", "-f", "json").stdout)
    net_id = resources[0]["physical_resource_id"]
    assert admin.network.get_network(net_id).name == "kept-cloud-net"
    # no option, no OS_CLOUD: the stack's own cloud
    deleted = run("stack", "delete", "n1", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert "DELETE_COMPLETE" in deleted.output
    assert admin.network.find_network(net_id) is None


def test_delete_without_a_cloud_is_refused_up_front(run, template) -> None:
    created = run("stack", "create", "n2", "-t", template, "--os-cloud", "sandbox")
    assert created.exit_code == 0, created.output
    with sqlite3.connect(run.db) as connection:  # as a stack created before 0007 has it
        connection.execute("UPDATE stacks SET cloud = NULL")
    refused = run("stack", "delete", "n2", "--yes")
    assert refused.exit_code == 1, refused.output
    assert refused.output.startswith(
        "error: n2: not deleted: its resources net (OS::Neutron::Net) are in an OpenStack "
        "cloud and none is chosen: choose a cloud with --os-cloud NAME"
    )
    shown = run("stack", "show", "n2", "-f", "value", "-c", "stack_status")
    assert shown.stdout.strip() == "CREATE_COMPLETE"  # nothing was started
    deleted = run("stack", "delete", "n2", "--yes", "--os-cloud", "sandbox")
    assert deleted.exit_code == 0, deleted.output
