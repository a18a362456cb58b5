"""Dependencies Heat adds by resource type, beyond the template's references.

Some Neutron types in Heat add edges that no ``get_resource`` or ``depends_on`` states
(their plugins' ``add_dependencies``), because Neutron refuses the call otherwise or
because the order is implied by what the call creates:

- a port waits for every subnet of its network (which subnet Neutron picks is unknown);
- a router with an external gateway waits for the subnets of that network;
- the deprecated router gateway waits for the interfaces of its router and the subnets of
  its network;
- a floating IP waits for a router (or router gateway) on its floating network, and for a
  router interface on the subnet of a port it already depends on: Neutron refuses the
  association while the port's subnet is not reachable from the external network
  ("External network ... is not reachable from subnet ...");
- a floating IP association waits for a router interface on its port's subnet.

Delete runs in the reverse order, so the floating IP also goes before the interface that
makes it reachable. Heat compares the property values it has before anything exists: a
``get_resource`` of a resource not yet created gives the resource's name, ``get_attr``
gives None, a parameter its value. Values are compared the same way here, without
asking the cloud: a name and the id of the same network are different values (Heat
resolves both to ids), and a port with no ``fixed_ips`` is on the subnets of its network
that the template creates (Heat asks Neutron for the network's subnets).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from stoker.definition.edges import IMPLIED
from stoker.functions.base import Function
from stoker.functions.refs import GetAttr, GetParam, GetResource, Ref

if TYPE_CHECKING:
    from stoker.definition.stack import StackDefinition

_PORT = "OS::Neutron::Port"
_SUBNET = "OS::Neutron::Subnet"
_ROUTER = "OS::Neutron::Router"
_INTERFACE = "OS::Neutron::RouterInterface"
_GATEWAY = "OS::Neutron::RouterGateway"
_FLOATING_IP = "OS::Neutron::FloatingIP"
_ASSOCIATION = "OS::Neutron::FloatingIPAssociation"
#: the types that add edges; a template without any of them costs one set intersection
_DEPENDENT = frozenset({_PORT, _ROUTER, _GATEWAY, _FLOATING_IP, _ASSOCIATION})


class _Unknown:
    """A value computed by a function other than a reference (``str_replace``, ...):
    Heat has its value; here it equals nothing, so it adds no edge."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return id(self)


def add_implied(definition: StackDefinition, requires: Mapping[str, dict[str, int]]) -> None:
    """Add Heat's type-implied edges to ``requires`` (resource -> what it waits for -> the
    `EdgeReason` bits of the edge)."""
    resources = definition.template.resources
    by_type: dict[str, list[str]] = {}
    for name in definition.enabled:
        by_type.setdefault(resources[name].type, []).append(name)
    if by_type.keys().isdisjoint(_DEPENDENT):
        return
    values = _Values(definition)

    def prop(name: str, *keys: str) -> Any:
        """A property under its name or its deprecated one (Heat's translation rules)."""
        return values.first(resources[name].properties, keys)

    subnets = [(s, prop(s, "network", "network_id")) for s in by_type.get(_SUBNET, ())]
    interfaces = [
        (i, prop(i, "subnet", "subnet_id"), prop(i, "router", "router_id"))
        for i in by_type.get(_INTERFACE, ())
    ]
    # routers with an external gateway, and deprecated gateways: (name, external network)
    external: list[tuple[str, Any]] = []
    for router in by_type.get(_ROUTER, ()):
        info = values.of(_get(resources[router].properties, "external_gateway_info"))
        if info and isinstance(info, Mapping):
            external.append((router, values.of(info.get("network"))))
    gateways = [(g, prop(g, "network", "network_id")) for g in by_type.get(_GATEWAY, ())]

    def on_subnets_of(name: str, network: Any) -> None:
        for subnet, subnet_network in subnets:
            if subnet_network == network:
                _add(requires[name], subnet)

    for port in by_type.get(_PORT, ()):
        on_subnets_of(port, prop(port, "network", "network_id"))
    for router, network in external:
        on_subnets_of(router, network)
    for gateway, network in gateways:
        router_id = prop(gateway, "router_id")
        for interface, _, interface_router in interfaces:
            if interface_router == router_id:
                _add(requires[gateway], interface)
        on_subnets_of(gateway, network)
    ports = set(by_type.get(_PORT, ()))
    for floating in by_type.get(_FLOATING_IP, ()):
        network = prop(floating, "floating_network", "floating_network_id")
        for name, gateway_network in (*gateways, *external):
            if gateway_network == network:
                _add(requires[floating], name)
        _wait_for_interfaces(floating, requires, ports, interfaces, values, subnets, True)
    for association in by_type.get(_ASSOCIATION, ()):
        _wait_for_interfaces(association, requires, ports, interfaces, values, subnets, False)


def _wait_for_interfaces(
    name: str,
    requires: Mapping[str, dict[str, int]],
    ports: set[str],
    interfaces: list[tuple[str, Any, Any]],
    values: _Values,
    subnets: list[tuple[str, Any]],
    by_network: bool,
) -> None:
    """``name`` waits for each router interface on the subnet of a port it waits for.
    As in Heat, only a port's first fixed IP counts; a floating IP (``by_network``) takes
    a port without fixed IPs to be on every subnet of its network."""
    resources = values.definition.template.resources
    waited = [d for d in requires[name] if d in ports]
    for interface, interface_subnet, _ in interfaces:
        for port in waited:
            properties = resources[port].properties
            fixed_ips = values.of(_get(properties, "fixed_ips"))
            if isinstance(fixed_ips, list) and fixed_ips:
                first = values.of(fixed_ips[0])
                if not isinstance(first, Mapping):
                    continue
                on_subnet = values.first(first, ("subnet", "subnet_id")) == interface_subnet
            elif by_network:
                network = values.first(properties, ("network", "network_id"))
                on_subnet = network is not None and any(
                    subnet == interface_subnet and subnet_network == network
                    for subnet, subnet_network in subnets
                )
            else:
                on_subnet = False
            if on_subnet:
                _add(requires[name], interface)
                break


def _add(needs: dict[str, int], needed: str) -> None:
    needs[needed] = needs.get(needed, 0) | IMPLIED


def _get(tree: Any, key: str) -> Any:
    return tree.get(key) if isinstance(tree, Mapping) else None


class _Values:
    """Property values as Heat has them before anything is created."""

    __slots__ = ("definition", "unknown")

    def __init__(self, definition: StackDefinition) -> None:
        self.definition = definition
        self.unknown = _Unknown()

    def first(self, tree: Any, keys: Iterable[str]) -> Any:
        """The first of ``keys`` with a value (Heat's ``a or b`` over translated names)."""
        for key in keys:
            value = self.of(_get(tree, key))
            if value:
                return value
        return None

    def of(self, value: Any) -> Any:
        if not isinstance(value, Function):
            return value
        resources, parameters = self.definition.template.resources, self.definition.parameters
        if isinstance(value, GetResource) and isinstance(value.args, str):
            return value.args  # a resource not yet created: its name
        if isinstance(value, Ref) and isinstance(value.args, str):
            if not value.parameters_only and value.args in resources:
                return value.args
            return parameters.get(value.args, self.unknown)
        if isinstance(value, GetParam) and isinstance(value.args, str):
            return parameters.get(value.args, self.unknown)
        if isinstance(value, GetAttr):
            return None  # an attribute of a resource not yet created
        return self.unknown
