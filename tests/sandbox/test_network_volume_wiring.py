"""Neutron and Cinder as the rest of the sandbox uses them: quotas from the fault plan, and
Nova booting a server on a network (a port from Neutron) with a volume (from Cinder)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from stoker.sandbox.faults import Faults

from .server import RunningSandbox


@pytest.fixture
def quotas(sandbox: RunningSandbox) -> Iterator[dict[str, dict[str, int]]]:
    """The fault plan's quotas for one test (the session's sandbox is shared)."""
    faults = Faults()
    sandbox.hub.config.faults = faults
    try:
        yield faults.quotas
    finally:
        sandbox.hub.config.faults = None


def test_quotas_from_the_fault_plan(
    sandbox: RunningSandbox, cloud: Any, demo: Any, quotas: dict[str, dict[str, int]]
) -> None:
    project = demo.current_project_id
    net = demo.network.create_network(name=f"q-{uuid.uuid4().hex[:6]}")
    ports = sum(1 for p in cloud.network.ports() if p.project_id == project)
    quotas["network"] = {"port": ports + 1}
    demo.network.create_port(network_id=net.id)
    token = demo.session.get_token()
    refused = httpx.post(
        f"{sandbox.url}/network/v2.0/ports",
        headers={"X-Auth-Token": token},
        json={"port": {"network_id": net.id}},
    )
    assert refused.status_code == 409
    assert refused.json() == {
        "NeutronError": {
            "type": "OverQuota",
            "message": "Quota exceeded for resources: ['port'].",
            "detail": "",
        }
    }
    volumes = list(demo.block_storage.volumes())
    quotas["block-storage"] = {"volumes": len(volumes)}
    over = httpx.post(
        f"{sandbox.url}/volume/v3/{project}/volumes",
        headers={"X-Auth-Token": token},
        json={"volume": {"size": 1}},
    )
    assert over.status_code == 413
    assert over.json()["overLimit"]["message"] == (
        f"VolumeLimitExceeded: Maximum number of volumes allowed ({len(volumes)}) exceeded "
        "for quota 'volumes'."
    )
    quotas.clear()
    for port in demo.network.ports(network_id=net.id):
        demo.network.delete_port(port)
    demo.network.delete_network(net)


def _image(cloud: Any) -> str:
    """An image to boot: Glance's first when the sandbox runs Glance, else any id (Nova
    without Glance takes it)."""
    catalog = cloud.session.auth.get_access(cloud.session).service_catalog
    if not catalog.get_endpoints(service_type="image"):
        return str(uuid.uuid4())
    return str(next(iter(cloud.image.images())).id)


def test_a_server_boots_on_a_network_with_a_volume_and_leaves_nothing_behind(
    sandbox: RunningSandbox, cloud: Any
) -> None:
    image = _image(cloud)
    net = cloud.network.create_network(name=f"boot-{uuid.uuid4().hex[:6]}")
    cloud.network.create_subnet(network_id=net.id, cidr="10.90.0.0/24", ip_version=4)
    flavor = next(iter(cloud.compute.flavors()))
    server = cloud.compute.create_server(
        name="web-1", flavor_id=flavor.id, image_id=image, networks=[{"uuid": net.id}]
    )
    server = cloud.compute.wait_for_server(server, wait=20, interval=0.05)
    (port,) = cloud.network.ports(network_id=net.id)
    assert (port.device_id, port.device_owner, port.status) == (
        server.id,
        "compute:nova",
        "ACTIVE",
    )
    assert server.addresses[net.name][0]["addr"] == port.fixed_ips[0]["ip_address"] == "10.90.0.2"
    volume = cloud.block_storage.create_volume(size=1)
    cloud.block_storage.wait_for_status(volume, "available", wait=10, interval=0.05)
    cloud.compute.create_volume_attachment(server, volume_id=volume.id)
    attached = cloud.block_storage.get_volume(volume.id)
    assert attached.status == "in-use"
    assert attached.attachments[0]["server_id"] == server.id
    cloud.compute.delete_server(server)
    cloud.compute.wait_for_delete(server, wait=20, interval=0.05)
    assert list(cloud.network.ports(network_id=net.id)) == []
    assert cloud.block_storage.get_volume(volume.id).status == "available"
    cloud.block_storage.delete_volume(volume)
    cloud.network.delete_network(net)


def test_quota_documents_show_the_plan_and_the_use(
    sandbox: RunningSandbox, demo: Any, quotas: dict[str, dict[str, int]]
) -> None:
    project = demo.current_project_id
    quotas["network"] = {"network": 7}
    quotas["block-storage"] = {"gigabytes": 50}
    networks = sum(1 for _ in demo.network.networks(project_id=project))
    headers = {"X-Auth-Token": demo.session.get_token()}
    plain = httpx.get(f"{sandbox.url}/network/v2.0/quotas/{project}", headers=headers).json()
    assert plain["quota"]["network"] == 7 and plain["quota"]["port"] == -1
    details = httpx.get(
        f"{sandbox.url}/network/v2.0/quotas/{project}/details", headers=headers
    ).json()
    assert details["quota"]["network"] == {"limit": 7, "used": networks, "reserved": 0}
    volumes = httpx.get(
        f"{sandbox.url}/volume/v3/{project}/os-quota-sets/{project}?usage=True", headers=headers
    ).json()["quota_set"]
    assert volumes["gigabytes"]["limit"] == 50
    assert volumes["volumes"]["in_use"] == len(list(demo.block_storage.volumes()))
