"""Nova's side of the interfaces Neutron and Cinder implement (stoker.sandbox.interfaces).

Neutron and Cinder are built on another branch; until they are merged, these minimal
backends implement the two Protocols in the sandbox's own store, so Nova's use of them
(ports made at boot and deleted with the server, interfaces, volume attachments, rollback
when a boot fails half way) is tested through the real HTTP API.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import openstack.exceptions
import pytest

from stoker.sandbox.http_errors import Conflict, NotFound
from stoker.sandbox.interfaces import FixedIp, PortAddress, PortProvider, VolumeProvider
from stoker.sandbox.service import Hub

from .server import RunningSandbox


class MinimalNetwork:
    """One network per id given, ports with addresses from 10.0.0.0/24."""

    def __init__(self, hub: Hub) -> None:
        self.store = hub.store
        self.networks = {"net-a": "private"}

    def plug(
        self,
        project_id: str,
        server_id: str,
        *,
        network_id: str | None = None,
        port_id: str | None = None,
        fixed_ip: str | None = None,
        security_groups: tuple[str, ...] = (),
    ) -> str:
        if port_id:
            port = self.store.get("test.port", port_id)
            if port is None:
                raise NotFound(f"Port {port_id} could not be found.")
            if port["device_id"]:
                raise Conflict(f"Port {port_id} is still in use.")
            port["device_id"] = server_id
            self.store.put("test.port", port_id, port)
            return port_id
        if network_id not in self.networks:
            raise NotFound(f"Network {network_id} could not be found.")
        new = str(uuid.uuid4())
        count = self.store.count("test.port")
        port = {
            "id": new,
            "network_id": network_id,
            "device_id": server_id,
            "ip": fixed_ip or f"10.0.0.{count + 10}",
            "security_groups": list(security_groups),
        }
        self.store.insert("test.port", new, port, project_id)
        return new

    def unplug(self, port_id: str, *, delete: bool) -> None:
        port = self.store.get("test.port", port_id)
        if port is None:
            return
        if delete:
            self.store.delete("test.port", port_id)
        else:
            port["device_id"] = ""
            self.store.put("test.port", port_id, port)

    def addresses(self, port_ids: list[str]) -> list[PortAddress]:
        found = []
        for port_id in port_ids:
            port = self.store.get("test.port", port_id)
            if port is not None:
                found.append(
                    PortAddress(
                        port_id=port_id,
                        network_id=port["network_id"],
                        network_name=self.networks[port["network_id"]],
                        mac_address="fa:16:3e:00:00:01",
                        fixed_ips=(FixedIp("subnet-a", port["ip"], 4),),
                    )
                )
        return found

    def auto_network(self, project_id: str) -> str | None:
        return "net-a"

    # -- VolumeProvider ---------------------------------------------------------------

    def attach(self, project_id: str, volume_id: str, server_id: str, device: str) -> None:
        volume = self.store.get("test.volume", volume_id)
        if volume is None:
            raise NotFound(f"Volume {volume_id} could not be found.")
        if volume["status"] != "available":
            raise Conflict(f"volume {volume_id} status must be available")
        volume.update(status="in-use", server_id=server_id, device=device)
        self.store.put("test.volume", volume_id, volume)

    def detach(self, volume_id: str, server_id: str) -> None:
        volume = self.store.get("test.volume", volume_id)
        if volume is not None:
            volume.update(status="available", server_id=None)
            self.store.put("test.volume", volume_id, volume)


@pytest.fixture
def network(sandbox: RunningSandbox) -> Iterator[MinimalNetwork]:
    """These backends in place of Neutron's and Cinder's (first in the order `Hub.find`
    looks in, so they are found even when the real services run)."""
    backend = MinimalNetwork(sandbox.hub)
    assert isinstance(backend, PortProvider) and isinstance(backend, VolumeProvider)
    saved = sandbox.hub.backends
    sandbox.hub.backends = {"test-network": backend, **saved}
    yield backend
    sandbox.hub.backends = saved


@pytest.fixture
def no_network(sandbox: RunningSandbox) -> Iterator[None]:
    """A sandbox without Neutron and Cinder (whether or not they run)."""
    saved = sandbox.hub.backends
    sandbox.hub.backends = {
        name: backend
        for name, backend in saved.items()
        if not isinstance(backend, PortProvider | VolumeProvider)
    }
    yield
    sandbox.hub.backends = saved


def _boot(cloud: Any, **kwargs: Any) -> Any:
    image = cloud.image.find_image("cirros-0.6.2-x86_64-disk")
    return cloud.compute.create_server(
        name=f"vm-{uuid.uuid4().hex[:6]}", flavor_id="1", image_id=image.id, **kwargs
    )


def test_boot_on_a_network_makes_a_port_and_delete_removes_it(
    cloud: Any, network: MinimalNetwork
) -> None:
    server = _boot(cloud, networks=[{"uuid": "net-a", "fixed_ip": "10.0.0.99"}])
    shown = cloud.compute.get_server(server.id)
    (entry,) = shown.addresses["private"]
    assert (entry["addr"], entry["OS-EXT-IPS:type"], entry["version"]) == ("10.0.0.99", "fixed", 4)
    (interface,) = cloud.compute.server_interfaces(server)
    assert interface.fixed_ips == [{"subnet_id": "subnet-a", "ip_address": "10.0.0.99"}]
    port = network.store.get("test.port", interface.port_id)
    assert port is not None and port["security_groups"] == ["default"]
    # an interface added later, on an existing port: kept (unbound) when detached
    network.store.insert(
        "test.port",
        "own-port",
        {"id": "own-port", "network_id": "net-a", "device_id": "", "ip": "10.0.0.200"},
        None,
    )
    cloud.compute.create_server_interface(server, port_id="own-port")
    assert {i.port_id for i in cloud.compute.server_interfaces(server)} == {
        interface.port_id,
        "own-port",
    }
    cloud.compute.delete_server(server)
    assert network.store.get("test.port", interface.port_id) is None
    kept = network.store.get("test.port", "own-port")
    assert kept is not None and kept["device_id"] == ""
    network.store.delete("test.port", "own-port")


def test_auto_network_and_a_failed_boot_leaves_no_port(cloud: Any, network: MinimalNetwork) -> None:
    server = _boot(cloud, networks="auto")
    assert list(cloud.compute.get_server(server.id).addresses) == ["private"]
    cloud.compute.delete_server(server)
    before = network.store.count("test.port")
    with pytest.raises(openstack.exceptions.BadRequestException, match="net-x could not"):
        _boot(cloud, networks=[{"uuid": "net-a"}, {"uuid": "net-x"}])
    assert network.store.count("test.port") == before  # the first port was rolled back


def test_networks_without_neutron_are_refused(cloud: Any, no_network: None) -> None:
    with pytest.raises(openstack.exceptions.BadRequestException, match="net-a could not"):
        _boot(cloud, networks=[{"uuid": "net-a"}])
    server = _boot(cloud, networks="auto")  # no network to boot on: no address
    assert cloud.compute.get_server(server.id).addresses == {}
    cloud.compute.delete_server(server)


def test_volume_attachments_go_through_cinders_backend(cloud: Any, network: MinimalNetwork) -> None:
    volume_id = str(uuid.uuid4())
    network.store.insert("test.volume", volume_id, {"status": "available"}, None)
    server = _boot(cloud, networks="none")
    attachment = cloud.compute.create_volume_attachment(server, volume_id=volume_id)
    assert attachment.device == "/dev/vdb"
    volume = network.store.get("test.volume", volume_id)
    assert volume is not None and volume["status"] == "in-use"
    other = _boot(cloud, networks="none")
    with pytest.raises(openstack.exceptions.BadRequestException, match="Invalid volume"):
        cloud.compute.create_volume_attachment(other, volume_id=volume_id)
    shown = cloud.compute.get_server(server.id)
    assert [v["id"] for v in shown.attached_volumes] == [volume_id]
    cloud.compute.delete_volume_attachment(server, volume_id)
    volume = network.store.get("test.volume", volume_id)
    assert volume is not None and volume["status"] == "available"
    with pytest.raises(openstack.exceptions.NotFoundException):
        cloud.compute.create_volume_attachment(server, volume_id=str(uuid.uuid4()))
    cloud.compute.delete_server(server)
    cloud.compute.delete_server(other)
