"""IP address management as Neutron's reference IPAM does it, on stdlib `ipaddress`.

A subnet's addresses come from its allocation pools; the gateway is kept for router ports;
addresses named explicitly may lie anywhere in the cidr (outside the pools too), as Neutron
allows. Neutron picks a free address at random in a window of the lowest ones; the sandbox
takes the lowest free one, so tests can predict addresses (docs/sandbox.md says so).

Every check raises the error Neutron raises, with its exception name and message, so a
client sees the same answer (``InvalidAllocationPool``, ``IpAddressGenerationFailure``...).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from stoker.sandbox.http_errors import BadRequest, Conflict
from stoker.sandbox.network.records import invalid

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: ``(first, last)`` of an allocation pool, as integers (ranges compare cheaply)
Range = tuple[int, int]


def invalid_input(message: str) -> BadRequest:
    return BadRequest(f"Invalid input for operation: {message}.", kind="InvalidInput")


def parse_cidr(value: Any, ip_version: int | None) -> Network:
    """A subnet's ``cidr``: a valid network of the subnet's IP version, no host bits."""
    try:
        network = ipaddress.ip_network(str(value), strict=False)
    except ValueError:
        raise invalid("cidr", f"'{value}' is not a valid IP subnet") from None
    if str(network) != str(value) and str(value) != network.with_prefixlen:
        raise invalid_input(
            f"'{value}' isn't a recognized IP subnet cidr, '{network}' is recommended"
        )
    if ip_version is not None and network.version != ip_version:
        raise invalid_input(f"Cidr {network} is incompatible with ip_version {ip_version}")
    if network.version == 4 and network.prefixlen > 30:
        # Neutron needs room for a network, a gateway and one address
        raise invalid_input(f"Requested subnet with cidr: {network} is too small")
    return network


def parse_address(value: Any, field: str) -> Address:
    try:
        return ipaddress.ip_address(str(value))
    except ValueError:
        raise invalid(field, f"'{value}' is not a valid IP address") from None


def usable_range(network: Network) -> Range:
    """The addresses a pool may hold: IPv4 leaves out the network and broadcast addresses;
    IPv6 leaves out the subnet-router anycast address (the first)."""
    first, last = int(network.network_address), int(network.broadcast_address)
    if network.version == 4:
        return first + 1, last - 1
    return first + 1, last


def default_gateway(network: Network) -> Address:
    return ipaddress.ip_address(usable_range(network)[0])


def pool_text(pool: Range, version: int) -> str:
    """A pool as Neutron's messages print one (netaddr's ``IPRange``: ``first-last``)."""
    return f"{_address(pool[0], version)}-{_address(pool[1], version)}"


def _address(value: int, version: int) -> Address:
    return ipaddress.IPv4Address(value) if version == 4 else ipaddress.IPv6Address(value)


def default_pools(network: Network, gateway: Address | None) -> list[Range]:
    """The whole usable range, split around the gateway when it lies inside."""
    first, last = usable_range(network)
    if gateway is None or not first <= int(gateway) <= last:
        return [(first, last)]
    pools = []
    if int(gateway) > first:
        pools.append((first, int(gateway) - 1))
    if int(gateway) < last:
        pools.append((int(gateway) + 1, last))
    return pools


def parse_pools(
    raw: Iterable[Mapping[str, Any]], network: Network, gateway: Address | None
) -> list[Range]:
    """``allocation_pools`` given by the client, checked as Neutron checks them: each pool
    well formed and inside the cidr, no two overlapping, none holding the gateway."""
    pools: list[Range] = []
    for entry in raw:
        if not isinstance(entry, Mapping) or "start" not in entry or "end" not in entry:
            raise invalid_input(f"Invalid data format for IP pool: '{entry}'")
        start = parse_address(entry["start"], "allocation_pools")
        end = parse_address(entry["end"], "allocation_pools")
        pool = (int(start), int(end))
        text = f"{start}-{end}"
        if start.version != network.version or end.version != network.version or pool[0] > pool[1]:
            raise BadRequest(
                f"The allocation pool {text} is not valid.", kind="InvalidAllocationPool"
            )
        low, high = int(network.network_address), int(network.broadcast_address)
        if not (low <= pool[0] and pool[1] <= high):
            raise BadRequest(
                f"The allocation pool {text} spans beyond the subnet cidr {network}.",
                kind="OutOfBoundsAllocationPool",
            )
        pools.append(pool)
    for index, pool in enumerate(pools):
        for other in pools[index + 1 :]:
            if pool[0] <= other[1] and other[0] <= pool[1]:
                first = pool_text(pool, network.version)
                second = pool_text(other, network.version)
                raise Conflict(
                    f"Found overlapping allocation pools: {first} {second} for subnet {network}.",
                    kind="OverlappingAllocationPools",
                )
    if gateway is not None:
        for pool in pools:
            if pool[0] <= int(gateway) <= pool[1]:
                raise Conflict(
                    f"Gateway ip {gateway} conflicts with allocation pool "
                    f"{pool_text(pool, network.version)}",
                    kind="GatewayConflictWithAllocationPools",
                )
    return pools


def pools_document(pools: Sequence[Range], version: int) -> list[dict[str, str]]:
    return [
        {"start": str(_address(first, version)), "end": str(_address(last, version))}
        for first, last in pools
    ]


def pools_of(subnet: Mapping[str, Any]) -> list[Range]:
    return [
        (int(ipaddress.ip_address(pool["start"])), int(ipaddress.ip_address(pool["end"])))
        for pool in subnet["allocation_pools"]
    ]


def free_addresses(
    subnet: Mapping[str, Any], held: Callable[[str], bool], start: int | None = None
) -> Iterator[str]:
    """The subnet's pool addresses nobody holds (``held`` says), lowest first from
    ``start`` (an address as an integer; below it every pool address is known to be held),
    the gateway never."""
    version = int(subnet["ip_version"])
    gateway = subnet.get("gateway_ip")
    for first, last in pools_of(subnet):
        for value in range(max(first, start or first), last + 1):
            text = str(_address(value, version))
            if text != gateway and not held(text):
                yield text


def address_value(address: str) -> int:
    return int(ipaddress.ip_address(address))


def in_subnet(address: str, subnet: Mapping[str, Any]) -> bool:
    try:
        return ipaddress.ip_address(address) in ipaddress.ip_network(subnet["cidr"])
    except ValueError:
        return False


def overlaps(cidr: str, other: str) -> bool:
    mine, theirs = ipaddress.ip_network(cidr), ipaddress.ip_network(other)
    return mine.version == theirs.version and mine.overlaps(theirs)
