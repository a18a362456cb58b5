"""Servers made or deleted together are polled together: while they build, one listing of
the project's servers in BUILD answers every server waiting, each server is read once
when it has left that list, and a delete waits on listings of the project's servers
rather than on each server (counted by the sandbox: ``GET /sandbox/stats``)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from stoker.cli.main import cli

SERVERS = 3


def _stats(sandbox: Any, reset: bool = False) -> dict[str, int]:
    request = urllib.request.Request(
        f"{sandbox.url}/sandbox/stats", method="DELETE" if reset else "GET"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return dict(json.loads(body)["operations"]) if body else {}


def test_servers_are_polled_by_shared_listings(
    db_url: str, cloud_env: dict[str, str], sandbox: Any, tmp_path: Path
) -> None:
    template = tmp_path / "servers.yaml"
    lines = ["heat_template_version: wallaby", "resources:"]
    for index in range(SERVERS):
        lines += [
            f"  s{index}:",
            "    type: OS::Nova::Server",
            "    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.tiny,",
            "                 networks: [{allocate_network: none}]}",
        ]
    template.write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    _stats(sandbox, reset=True)
    created = runner.invoke(cli, ["--db", db_url, "stack", "create", "polled", "-t", str(template)])
    assert created.exit_code == 0, created.output
    made = _stats(sandbox)
    assert made["compute servers.create"] == SERVERS
    assert made["compute servers.show"] == SERVERS  # once each, when out of BUILD
    assert made["compute servers.list"] >= 1
    _stats(sandbox, reset=True)
    deleted = runner.invoke(cli, ["--db", db_url, "stack", "delete", "polled", "--yes"])
    assert deleted.exit_code == 0, deleted.output
    gone = _stats(sandbox)
    assert gone["compute servers.delete"] == SERVERS
    assert "compute servers.show" not in gone
    assert gone["compute servers.list"] >= 1
