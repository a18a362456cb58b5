"""The sandbox's IP allocation on its backend, in process: lowest free first, freed
addresses handed out again, and the cost of one allocation independent of how many ports
the network already has (an index of held addresses, not a read of every port)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stoker.sandbox.http_errors import Conflict
from stoker.sandbox.network.backend import NeutronBackend
from stoker.sandbox.network.ports import ADDRESSES, MACS
from stoker.sandbox.service import Hub, SandboxConfig
from stoker.sandbox.store import SandboxStore


def _neutron(url: str = "sqlite://") -> NeutronBackend:
    return NeutronBackend(Hub(store=SandboxStore(url), config=SandboxConfig()))


def _network(neutron: NeutronBackend, cidr: str = "10.0.0.0/24") -> tuple[str, str]:
    net = neutron.networks.create("p1", {"name": "n"})
    subnet = neutron.subnets.create("p1", {"network_id": net["id"], "cidr": cidr, "ip_version": 4})
    return net["id"], subnet["id"]


def _port(neutron: NeutronBackend, net: str, **body: Any) -> dict[str, Any]:
    with neutron.transaction():
        return neutron.ports.create("p1", {"network_id": net, **body})


def _address(port: dict[str, Any]) -> str:
    return str(port["fixed_ips"][0]["ip_address"])


def test_lowest_free_first_and_freed_addresses_come_back() -> None:
    neutron = _neutron()
    net, subnet = _network(neutron)
    ports = [_port(neutron, net) for _ in range(5)]
    assert [_address(p) for p in ports] == [f"10.0.0.{i}" for i in range(2, 7)]
    neutron.delete_port(ports[1]["id"], "p1")  # 10.0.0.3 freed
    assert _address(_port(neutron, net)) == "10.0.0.3"
    assert _address(_port(neutron, net)) == "10.0.0.7"
    taken = _port(neutron, net, fixed_ips=[{"subnet_id": subnet, "ip_address": "10.0.0.9"}])
    assert _address(taken) == "10.0.0.9"
    with pytest.raises(Conflict, match="10.0.0.9 already allocated"):
        _port(neutron, net, fixed_ips=[{"ip_address": "10.0.0.9"}])
    assert [_address(_port(neutron, net)) for _ in range(2)] == ["10.0.0.8", "10.0.0.10"]
    # an update that moves a port frees its old address
    moved = neutron.ports.update(taken["id"], "p1", {"fixed_ips": [{"ip_address": "10.0.0.50"}]})
    assert _address(moved) == "10.0.0.50"
    assert _address(_port(neutron, net)) == "10.0.0.9"


def test_a_failed_create_leaves_its_address_free() -> None:
    neutron = _neutron()
    net, subnet = _network(neutron)
    _port(neutron, net)
    with pytest.raises(Conflict):  # the second address is the first's: nothing is kept
        _port(neutron, net, fixed_ips=[{"subnet_id": subnet}, {"ip_address": "10.0.0.2"}])
    assert _address(_port(neutron, net)) == "10.0.0.3"


def test_one_allocation_costs_the_same_on_a_full_network(monkeypatch: pytest.MonkeyPatch) -> None:
    neutron = _neutron()
    net, _ = _network(neutron, "10.1.0.0/22")
    store = neutron.hub.store
    reads: list[str] = []
    listing, getting = store.list, store.get
    monkeypatch.setattr(store, "list", lambda kind, **kw: reads.append(kind) or listing(kind, **kw))
    monkeypatch.setattr(store, "get", lambda kind, id: reads.append(kind) or getting(kind, id))

    def reads_of_one_port() -> tuple[str, list[str]]:
        reads.clear()
        address = _address(_port(neutron, net))
        return address, sorted(reads)

    _port(neutron, net)
    second = reads_of_one_port()
    for _ in range(150):
        _port(neutron, net)
    last = reads_of_one_port()
    assert (second[0], last[0]) == ("10.1.0.3", "10.1.0.154")
    assert last[1] == second[1]  # the same reads, whatever the number of ports


def test_a_database_from_before_the_index_is_indexed_on_start(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sandbox.db'}"
    neutron = _neutron(url)
    net, _ = _network(neutron)
    first = _port(neutron, net)
    store = neutron.hub.store
    assert store.delete(ADDRESSES, f"{first['fixed_ips'][0]['subnet_id']} {_address(first)}")
    assert store.delete(MACS, f"{net} {first['mac_address']}")
    assert store.count(ADDRESSES) == store.count(MACS) == 0
    store.close()
    again = _neutron(url)
    assert _address(_port(again, net)) == "10.0.0.3"
