"""Servers made or deleted together are polled together: while they build, one listing of
the project's servers in BUILD answers every server waiting, the servers that have left
it are read together (a detail listing by their names), and a delete waits on listings of
the project's servers rather than on each server (counted by the sandbox:
``GET /sandbox/stats``)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

pytestmark = pytest.mark.heavy

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
    # read when out of BUILD, together: a detail listing by their names, not a show each
    assert "compute servers.show" not in made
    assert 1 <= made["compute servers.list_detail"] <= SERVERS
    assert made["compute servers.list"] >= 1
    _stats(sandbox, reset=True)
    deleted = runner.invoke(cli, ["--db", db_url, "stack", "delete", "polled", "--yes"])
    assert deleted.exit_code == 0, deleted.output
    gone = _stats(sandbox)
    assert gone["compute servers.delete"] == SERVERS
    assert "compute servers.show" not in gone
    assert gone["compute servers.list"] >= 1


def test_what_the_stack_made_is_not_listed_to_check_it(
    db_url: str, cloud_env: dict[str, str], sandbox: Any, tmp_path: Path
) -> None:
    """The subnet's ``network``, the port's ``subnet`` and the server's ``port`` carry
    ``neutron.*`` constraints; their values are ids this process just made, so checking
    them lists nothing (before, each meant a listing of every network, subnet or port, on
    the critical path of the chain)."""
    template = tmp_path / "chain.yaml"
    template.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net}\n"
        "  subnet:\n"
        "    type: OS::Neutron::Subnet\n"
        "    properties: {network: {get_resource: net}, cidr: 10.31.0.0/24}\n"
        "  port:\n"
        "    type: OS::Neutron::Port\n"
        "    properties: {network: {get_resource: net},\n"
        "                 fixed_ips: [{subnet: {get_resource: subnet}}]}\n"
        "  server:\n"
        "    type: OS::Nova::Server\n"
        "    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.tiny,\n"
        "                 networks: [{port: {get_resource: port}}]}\n"
    )
    runner = CliRunner()
    _stats(sandbox, reset=True)
    created = runner.invoke(cli, ["--db", db_url, "stack", "create", "chain", "-t", str(template)])
    assert created.exit_code == 0, created.output
    made = _stats(sandbox)
    assert "network networks.list" not in made
    assert "network subnets.list" not in made
    assert made.get("network ports.list") == 1  # the server's ports, for its attributes
    deleted = runner.invoke(cli, ["--db", db_url, "stack", "delete", "chain", "--yes"])
    assert deleted.exit_code == 0, deleted.output


def test_a_server_read_out_of_build_is_recorded_as_its_show(cloud: Any, sandbox: Any) -> None:
    """What the detail listing gave for each server is what Nova's show of it gives (the
    sandbox builds both from one view, as Nova does): the record's ``show`` is the same."""
    import asyncio
    import uuid

    from stoker.resources.base import ResourceContext
    from stoker.resources.openstack.server import Server

    tag = uuid.uuid4().hex[:8]
    properties = {"image": "cirros-0.6.2-x86_64-disk", "flavor": "m1.tiny",
                  "networks": [{"allocate_network": "none"}]}  # fmt: skip
    contexts = [
        ResourceContext("read", "s1", "p1", f"s{i}", f"read-{tag}-s{i}", dict(properties))
        for i in range(3)
    ]
    plugin = Server(cloud)

    async def create_all() -> None:
        await asyncio.gather(*(plugin.create(c) for c in contexts))

    _stats(sandbox, reset=True)
    asyncio.run(create_all())
    made = _stats(sandbox)
    assert "compute servers.show" not in made and made["compute servers.list_detail"] >= 1
    for context in contexts:
        server = context.physical_id
        assert server is not None
        shown = cloud.run("show", lambda c, server=server: plugin.show(c, server))
        assert shown["status"] == "ACTIVE"
        assert context.data["show"] == json.loads(json.dumps(shown))
    for context in contexts:
        asyncio.run(plugin.delete(context))
