"""Ports asked for together go to Neutron in one bulk call (`resources.openstack.bulk`);
each port's create is otherwise its own. A bulk call the cloud refuses made nothing
(Neutron's bulk create is atomic), so each of its ports is asked for again by itself
and ends as it would have alone: the ones that fit are made, the others fail with the
cloud's own words."""

from __future__ import annotations

import asyncio
import json
import urllib.request
import uuid
from typing import Any

from stoker.cloud import Cloud
from stoker.errors import CloudError
from stoker.resources.base import ResourceContext
from stoker.resources.openstack.base import PENDING
from stoker.resources.openstack.neutron import Port


def _stats(sandbox: Any, reset: bool = False) -> dict[str, int]:
    request = urllib.request.Request(
        f"{sandbox.url}/sandbox/stats", method="DELETE" if reset else "GET"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return dict(json.loads(body)["operations"]) if body else {}


def _ports(admin: Any, cidr: str, count: int) -> tuple[Any, list[ResourceContext]]:
    """A network with a subnet of ``cidr``, and ``count`` port creates on it, each with
    a checkpoint that keeps what the record would hold when it is called."""
    tag = uuid.uuid4().hex[:8]
    network = admin.network.create_network(name=f"bulk-{tag}")
    subnet = admin.network.create_subnet(network_id=network.id, cidr=cidr, ip_version=4)
    contexts = []
    for index in range(count):
        name = f"bulk-{tag}-p{index}"
        context = ResourceContext(
            stack_name="bulk",
            stack_id="s1",
            project_id="p1",
            resource_name=f"p{index}",
            physical_name=name,
            properties={"network": network.id, "fixed_ips": [{"subnet": subnet.id}]},
        )
        recorded: list[tuple[str | None, str | None]] = []
        context.data["checkpoints"] = recorded

        async def checkpoint(context: ResourceContext = context, recorded: Any = recorded) -> None:
            recorded.append((context.data.get(PENDING), context.physical_id))

        context.checkpoint = checkpoint
        contexts.append(context)
    return network, contexts


def _create_together(plugin: Port, contexts: list[ResourceContext]) -> list[Any]:
    async def run() -> list[Any]:
        return await asyncio.gather(*(plugin.create(c) for c in contexts), return_exceptions=True)

    return asyncio.run(run())


def test_ports_asked_together_are_made_in_one_call(cloud: Cloud, admin: Any, sandbox: Any) -> None:
    network, contexts = _ports(admin, "10.41.0.0/24", 5)
    _stats(sandbox, reset=True)
    results = _create_together(Port(cloud), contexts)
    assert results == [None] * 5
    assert _stats(sandbox)["network ports.create"] == 1
    for context in contexts:
        # the name noted before the call, the id the moment the answer came
        name = context.physical_name
        assert context.data["checkpoints"] == [(name, None), (name, context.physical_id)]
        port = admin.network.get_port(context.physical_id)
        assert port.name == name and port.network_id == network.id
        assert context.data["show"]["id"] == port.id
        assert context.data["show"]["fixed_ips"] == port.fixed_ips
    assert len({c.data["show"]["fixed_ips"][0]["ip_address"] for c in contexts}) == 5
    for context in contexts:
        asyncio.run(Port(cloud).delete(context))
    admin.network.delete_network(network)


def test_a_refused_bulk_call_leaves_each_port_to_be_made_alone(
    cloud: Cloud, admin: Any, sandbox: Any
) -> None:
    """One port of six asks for an address outside its subnet: the call of all six is
    refused (the sandbox, as Neutron, makes none of them), then each is asked for alone,
    so five are made and that one fails with the cloud's words, as it would have alone."""
    network, contexts = _ports(admin, "10.42.0.0/24", 6)
    subnet = contexts[3].properties["fixed_ips"][0]["subnet"]
    contexts[3].properties["fixed_ips"] = [{"subnet": subnet, "ip_address": "10.99.0.5"}]
    _stats(sandbox, reset=True)
    results = _create_together(Port(cloud), contexts)
    assert _stats(sandbox)["network ports.create"] == 1 + 6
    failed = results.pop(3)
    assert results == [None] * 5
    assert isinstance(failed, CloudError) and failed.status == 400, failed
    assert "10.99.0.5" in str(failed)
    assert contexts[3].physical_id is None
    made = [c for c in contexts if c.physical_id is not None]
    listed = {p.id for p in admin.network.ports(network_id=network.id)}
    assert listed == {c.physical_id for c in made} and len(made) == 5
    for context in made:
        asyncio.run(Port(cloud).delete(context))
    admin.network.delete_network(network)
