"""A create cut off between the cloud's answer and the record of its id (the process
died there) is found again when resumed, for the types that have no name too: a floating
IP and a security group rule carry stoker's physical name in their ``description``, and
the resumed create adopts the one the cloud made instead of making a second."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from stoker.cloud import Cloud
from stoker.resources.base import ResourceContext
from stoker.resources.openstack.base import PENDING, CloudResource
from stoker.resources.openstack.neutron import FloatingIP
from stoker.resources.openstack.security import SecurityGroupRule


class Died(Exception):
    """Stands for SIGKILL at the id's checkpoint: what was recorded before stays."""


def _context(name: str, properties: dict[str, Any], recorded: dict[str, Any]) -> ResourceContext:
    return ResourceContext(
        stack_name="leak",
        stack_id="s1",
        project_id="p1",
        resource_name="r",
        physical_name=name,
        properties=properties,
        data=recorded,
    )


def _cut_off_then_resumed(plugin: CloudResource, properties: dict[str, Any]) -> tuple[str, str]:
    """The create killed at its id's checkpoint, then resumed from what was recorded;
    (the id the cloud gave the first, the id the resumed create ended with)."""
    name = f"leak-r-{uuid.uuid4().hex[:12]}"
    recorded: dict[str, Any] = {}
    first = _context(name, dict(properties), {})

    async def checkpoint() -> None:
        if first.physical_id is not None:
            raise Died
        recorded.update(first.data)

    first.checkpoint = checkpoint
    with pytest.raises(Died):
        asyncio.run(plugin.create(first))
    assert recorded[PENDING] == name and first.physical_id is not None
    resumed = _context(name, dict(properties), dict(recorded))
    asyncio.run(plugin.create(resumed))
    assert resumed.physical_id is not None
    asyncio.run(plugin.delete(resumed))
    return first.physical_id, resumed.physical_id


def test_a_floating_ip_cut_off_before_its_id_was_recorded_is_adopted(
    cloud: Cloud, admin: Any, public_network: str
) -> None:
    made, adopted = _cut_off_then_resumed(FloatingIP(cloud), {"floating_network": public_network})
    assert adopted == made
    assert admin.network.find_ip(made) is None  # and the delete found it too


def test_a_security_group_rule_cut_off_before_its_id_was_recorded_is_adopted(
    cloud: Cloud, admin: Any
) -> None:
    group = admin.network.create_security_group(name=f"leak-{uuid.uuid4().hex[:8]}")
    rule = {"security_group": group.id, "protocol": "tcp", "port_range_min": 8080,
            "port_range_max": 8080, "direction": "ingress", "ethertype": "IPv4"}  # fmt: skip
    made, adopted = _cut_off_then_resumed(SecurityGroupRule(cloud), rule)
    assert adopted == made
    left = [r for r in admin.network.security_group_rules(security_group_id=group.id)]
    assert [r.port_range_min for r in left if r.direction == "ingress"] == []
    admin.network.delete_security_group(group)


def test_a_rule_whose_template_gives_its_description_is_not_adopted_by_it(cloud: Cloud) -> None:
    plugin = SecurityGroupRule(cloud)
    mine = _context("x", {"security_group": "g", "description": "ssh from the bastion"}, {})
    assert not plugin.findable(mine)
    assert plugin.findable(_context("x", {"security_group": "g"}, {}))
