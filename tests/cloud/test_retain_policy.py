"""``deletion_policy: Retain``, as Heat does it: the stack's delete skips the resource's
delete handler, so what it made stays in the cloud (a get_param naming the policy is
resolved first); a resource without the policy is deleted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import StackCli

pytestmark = pytest.mark.heavy


def test_retained_resources_stay_in_the_cloud_after_the_stack_is_deleted(
    stoker: StackCli, admin: Any, tmp_path: Path
) -> None:
    template = tmp_path / "retain.yaml"
    template.write_text(
        "heat_template_version: wallaby\n"
        "parameters:\n"
        "  policy: {type: string, default: Retain}\n"
        "resources:\n"
        "  kept:\n"
        "    type: OS::Neutron::Net\n"
        "    deletion_policy: Retain\n"
        "  kept_by_param:\n"
        "    type: OS::Neutron::Net\n"
        "    deletion_policy: {get_param: policy}\n"
        "  gone:\n"
        "    type: OS::Neutron::Net\n"
    )

    created = stoker("create", "retainpol", "-t", str(template))
    assert created.exit_code == 0, created.output
    ids = stoker.ids("retainpol")

    deleted = stoker("delete", "retainpol", "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert admin.network.find_network(ids["gone"]) is None
    for name in ("kept", "kept_by_param"):
        assert admin.network.find_network(ids[name]) is not None, name
        admin.network.delete_network(ids[name])


def test_a_retained_resource_an_update_removes_stays_in_the_cloud(
    stoker: StackCli, admin: Any, tmp_path: Path
) -> None:
    before = tmp_path / "before.yaml"
    before.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  kept: {type: OS::Neutron::Net, deletion_policy: Retain}\n"
        "  gone: {type: OS::Neutron::Net}\n"
        "  stays: {type: OS::Neutron::Net}\n"
    )
    after = tmp_path / "after.yaml"
    after.write_text(
        "heat_template_version: wallaby\nresources:\n  stays: {type: OS::Neutron::Net}\n"
    )

    assert stoker("create", "retainupd", "-t", str(before)).exit_code == 0
    ids = stoker.ids("retainupd")
    updated = stoker("update", "retainupd", "-t", str(after))
    assert updated.exit_code == 0, updated.output
    assert admin.network.find_network(ids["gone"]) is None
    assert admin.network.find_network(ids["kept"]) is not None
    assert stoker("delete", "retainupd", "--yes").exit_code == 0
    assert admin.network.find_network(ids["stays"]) is None
    admin.network.delete_network(ids["kept"])


def test_a_replaced_resource_goes_by_its_own_old_deletion_policy(
    stoker: StackCli, admin: Any, tmp_path: Path
) -> None:
    """As Heat: the old subnet of a replacement (a new cidr) stays if its own definition
    said Retain, whatever the new one says, and goes if it did not, even under a new
    Retain (tests/fidelity/update_retain records Heat doing it)."""
    before = tmp_path / "before.yaml"
    before.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net}\n"
        "  kept:\n"
        "    type: OS::Neutron::Subnet\n"
        "    deletion_policy: Retain\n"
        "    properties: {network: {get_resource: net}, cidr: 10.61.0.0/24}\n"
        "  gone:\n"
        "    type: OS::Neutron::Subnet\n"
        "    properties: {network: {get_resource: net}, cidr: 10.62.0.0/24}\n"
    )
    after = tmp_path / "after.yaml"
    after.write_text(
        "heat_template_version: wallaby\n"
        "resources:\n"
        "  net: {type: OS::Neutron::Net}\n"
        "  kept:\n"
        "    type: OS::Neutron::Subnet\n"
        "    properties: {network: {get_resource: net}, cidr: 10.61.1.0/24}\n"
        "  gone:\n"
        "    type: OS::Neutron::Subnet\n"
        "    deletion_policy: Retain\n"
        "    properties: {network: {get_resource: net}, cidr: 10.62.1.0/24}\n"
    )

    assert stoker("create", "retainrepl", "-t", str(before)).exit_code == 0
    old = stoker.ids("retainrepl")
    updated = stoker("update", "retainrepl", "-t", str(after))
    assert updated.exit_code == 0, updated.output
    new = stoker.ids("retainrepl")
    assert new["kept"] != old["kept"] and new["gone"] != old["gone"]  # both replaced
    assert admin.network.find_subnet(old["kept"]) is not None
    assert admin.network.find_subnet(old["gone"]) is None
    admin.network.delete_subnet(old["kept"])
    # the network's delete takes the subnets left on it along (Neutron's rule)
    assert stoker("delete", "retainrepl", "--yes").exit_code == 0
