"""Real templates from the corpus (``tests/corpus/data``) that use the OpenStack types, created and
deleted against the sandbox. Each is listed with the parameters it needs; what the
templates take for granted in the cloud (the images and key pairs they name, a private
network with a router to the public one, a server to attach to) is the operator's
bootstrap below, made through openstacksdk as an operator would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stoker.cli.main import cli

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"
HEAT = "openstack__heat/_extracted/rst/doc/source"
HOT = "openstack__heat-templates/hot"

IMAGES = (
    "cirros", "F18-x86_64-cfntools", "ubuntu-trusty-x86_64", "centos-6.5-x86_64-cfntools",
    "fedora-20.x86_64", "fedora-software-config", "ubuntu-software-config",
)  # fmt: skip
KEYS = ("mykey", "my_key", "test_key")
SERVER = {"key_name": "my_key", "image": "cirros", "flavor": "m1.tiny"}

#: template -> parameters ("{private_net}" and the like are filled from the bootstrap)
TEMPLATES: dict[str, dict[str, str]] = {
    f"{HEAT}/install/launch-instance.rst/L17.yaml": {"NetID": "{private_net}"},
    f"{HEAT}/template_guide/hot_guide.rst/L49.yaml": {},
    f"{HEAT}/template_guide/hot_guide.rst/L100.yaml": {
        "key_name": "my_key", "image_id": "cirros", "instance_type": "m1.tiny",
    },
    f"{HEAT}/template_guide/hello_world.rst/L89.yaml": {
        "key_name": "my_key", "image_id": "cirros", "flavor": "m1.small",
    },
    f"{HEAT}/template_guide/hello_world.rst/L40.yaml": {},
    f"{HEAT}/template_guide/composition.rst/L47.yaml": {"key_name": "my_key"},
    "openstack__heat-templates/openshift-origin/centos65/OpenShift.yaml": {"key_name": "my_key"},
    f"{HOT}/servers_in_new_neutron_net.yaml": {
        **SERVER, "public_net": "public", "private_net_name": "corpus-net",
        "private_net_cidr": "10.60.0.0/24", "private_net_gateway": "10.60.0.1",
        "private_net_pool_start": "10.60.0.10", "private_net_pool_end": "10.60.0.99",
    },
    f"{HOT}/vm_with_cinder.yaml": {"key_name": "my_key", "image": "cirros"},
    f"{HOT}/servers_in_existing_neutron_network_no_floating_ips.yaml": {
        **SERVER, "net_id": "{private_net}", "subnet_id": "{private_subnet}",
    },
    f"{HOT}/servers_in_existing_neutron_net.yaml": {
        **SERVER, "public_net_id": "{public_net}", "private_net_id": "{private_net}",
        "private_subnet_id": "{private_subnet}",
    },
    f"{HOT}/chef-server.yaml": {
        "ssh_key_name": "my_key", "chef_image_name": "cirros", "chef_flavor_name": "m1.small",
    },
    f"{HOT}/server_console.yaml": {"image": "cirros"},
    f"{HOT}/hello_world.yaml": {"key_name": "my_key", "image": "cirros", "admin_pass": "Pass1234"},
    f"{HOT}/F20/WordPress_2_Instances.yaml": {},
    f"{HOT}/F20/WordPress_Native.yaml": {"key_name": "my_key"},
    f"{HOT}/F18/WordPress_Native.yaml": {"key_name": "my_key"},
    f"{HOT}/F18/NovaInstanceWithCinderVolume_Native.yaml": {"key_name": "my_key"},
    f"{HOT}/software-config/example-templates/example-cloud-init.yaml": {
        "key_name": "my_key", "flavor": "m1.small",
    },
    f"{HOT}/software-config/example-templates/example-cloud-init-configure-ca-cert.yaml": {
        "key_name": "my_key", "flavor": "m1.small",
    },
    f"{HOT}/resource_group/volume_with_attachment.yaml": {"instance_id": "{server}"},
}  # fmt: skip


@pytest.fixture(scope="module")
def bootstrap(admin: Any, public_network: str) -> dict[str, str]:
    """What the corpus's templates expect a cloud to have."""
    for name in IMAGES:
        if admin.image.find_image(name) is None:
            admin.image.create_image(
                name=name, disk_format="qcow2", container_format="bare", data=b"not a disk"
            )
    for name in KEYS:
        if admin.compute.find_keypair(name) is None:
            admin.compute.create_keypair(name=name)
    net = admin.network.find_network("private") or admin.network.create_network(name="private")
    subnet = admin.network.find_subnet("private-subnet") or admin.network.create_subnet(
        network_id=net.id, name="private-subnet", cidr="10.0.0.0/24", ip_version=4
    )
    router = admin.network.find_router("private-router")
    if router is None:
        router = admin.network.create_router(
            name="private-router", external_gateway_info={"network_id": public_network}
        )
        admin.network.add_interface_to_router(router, subnet=subnet.id)
    server = admin.compute.find_server("bootstrap-server")
    if server is None:
        image = admin.image.find_image("cirros")
        flavor = admin.compute.find_flavor("m1.tiny")
        server = admin.compute.create_server(
            name="bootstrap-server", image_id=image.id, flavor_id=flavor.id,
            networks=[{"uuid": net.id}],
        )  # fmt: skip
        admin.compute.wait_for_server(server, interval=0.1, wait=30)
    return {
        "private_net": str(net.id),
        "private_subnet": str(subnet.id),
        "public_net": public_network,
        "server": str(server.id),
    }


def servers_of(admin: Any, stack: str) -> list[str]:
    return [s.name for s in admin.compute.servers() if s.name.startswith(f"{stack}-")]


@pytest.mark.slow
@pytest.mark.parametrize("path", list(TEMPLATES), ids=lambda p: p.split("/", 1)[1])
def test_corpus_template_creates_and_deletes(path, bootstrap, db_url, cloud_env, admin):
    template = CORPUS / path
    assert template.is_file(), template
    stack = "corpus" + str(list(TEMPLATES).index(path))
    args = ["--db", db_url, "stack", "create", stack, "-t", str(template)]
    for key, value in TEMPLATES[path].items():
        args += ["--parameter", f"{key}={value.format(**bootstrap)}"]
    created = CliRunner().invoke(cli, args)
    assert created.exit_code == 0, created.stderr[-3000:]
    deleted = CliRunner().invoke(cli, ["--db", db_url, "stack", "delete", stack, "--yes"])
    assert deleted.exit_code == 0, deleted.stderr[-3000:]
    assert servers_of(admin, stack) == []
    ports = [p.id for p in admin.network.ports() if (p.name or "").startswith(f"{stack}-")]
    assert ports == []
    volumes = [v.id for v in admin.block_storage.volumes() if (v.name or "").startswith(stack)]
    assert volumes == []


def test_at_least_twenty_corpus_templates_are_listed():
    assert len(TEMPLATES) >= 20
