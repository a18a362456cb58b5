"""ONAP's parameter names for OS::Neutron::Port, per network kind (beyond the seed).

A port is on an ONAP *internal* network (the VNF's own) when its network is a resource of
the package (get_resource, or get_attr of a nested stack) or a parameter named ``int_...``;
on an *external* one (ONAP's) when its network is any other parameter. Everything ONAP
supplies at instantiation (external network ids, their subnets and addresses) must not be
in the environment file; the VNF's own internal addresses must be. Which IP version an
address is, the template says only in the parameter's name (``_v6_``), so the name
decides between the IPv4 and the IPv6 convention. A "reserve port" (resource id
``Reserve_Port_...``) holds VIP addresses for other ports: its fixed_ips are not checked
against the fixed_ips conventions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, NamedTuple

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.context import TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.onap.base import DeclaredType, FromRequirement
from stoker.lint.onap.enumerated import EnumerationRule
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import parameter_read, property_at, resources_of, section
from stoker.lint.rule import TemplateRule
from stoker.patterns import LazyPattern
from stoker.template.nodes import value_span

PORT = "OS::Neutron::Port"
INSTANCE_IP = "OS::ContrailV2::InstanceIp"
INTERFACE = "OS::ContrailV2::VirtualMachineInterface"
NOUNS = {PORT: "port", INSTANCE_IP: "instance IP", INTERFACE: "interface"}
PORT_ID = LazyPattern(r"^(?P<vm>.+?)_(?P<vm_index>\d+)_(?P<role>.+)_port_(?P<index>\d+)$")
RESERVE_PORT = LazyPattern(r"^reserve_port_", re.IGNORECASE)
NETWORK_PARAMETER = LazyPattern(r"^(?P<role>.+)_net_(?:id|name)$")
NETWORK_FQDN = LazyPattern(r"^(?P<role>.+)_net_fqdn$")
#: a Contrail interface's id, and a network's (the VNF's own, so internal)
INTERFACE_ID = LazyPattern(r"^(?P<vm>.+?)_(?P<vm_index>\d+)_(?P<role>.+)_vmi_(?P<index>\d+)$")
NETWORK_ID = LazyPattern(r"^int_(?P<role>.+)_network$")
SUBNET_PARAMETER = LazyPattern(r"^(?P<role>.+?)_(?:v6_)?subnet_id$")
#: after ``{vm-type}_``: the role, then what the parameter holds
ADDRESS_ROLE = LazyPattern(r"^(?P<role>.+?)_(?:v6_)?(?:ips|ip_\d+|floating_(?:v6_)?ips?)$")
#: a Contrail interface's VIPs: allowed_address_pairs -> allowed_address_pair[] -> ip -> prefix
_VMI_PAIRS = "virtual_machine_interface_allowed_address_pairs"
_VMI_PAIR = _VMI_PAIRS + "_allowed_address_pair"
_VMI_IP = _VMI_PAIR + "_ip"
_VMI_PREFIX = _VMI_IP + "_ip_prefix"


class Address(NamedTuple):
    """One parameter an address property of a port (or Contrail resource) reads."""

    port: Port
    parameter: str
    path: Path
    span: Span | None


class Port(NamedTuple):
    """A resource that attaches to a network: a Neutron port, or Contrail's instance IP
    or virtual machine interface; its addresses are found once, for every rule."""

    name: str
    kind: str  # the resource type
    definition: dict[Any, Any]
    properties: dict[Any, Any]
    path: Path
    span: Span | None
    internal: bool | None  # None: the network is not a get_param or a resource of the VNF
    network: str | None  # the parameter its network (or first virtual_network_refs) reads
    fixed: tuple[Address, ...] = ()  # fixed_ips ip_address; instance_ip_address
    subnets: tuple[Address, ...] = ()  # fixed_ips subnet; subnet_uuid
    vips: tuple[Address, ...] = ()  # allowed_address_pairs ip_address (and Contrail's)


def who(port: Port) -> str:
    """How a finding names the resource: ``port "lb_0_oam_port_0"``."""
    return f'{NOUNS[port.kind]} "{port.name}"'


@memoized
def interfaces(ctx: TemplateContext) -> list[Port]:
    """The template's ports and Contrail interfaces, found once for the rules."""
    return list(_find_ports(ctx))


@memoized
def _by_kind(ctx: TemplateContext) -> dict[str, list[Port]]:
    grouped: dict[str, list[Port]] = {kind: [] for kind in NOUNS}
    for port in interfaces(ctx):
        grouped[port.kind].append(port)
    return grouped


def ports(ctx: TemplateContext, kind: str = PORT) -> list[Port]:
    """The template's resources of type ``kind`` (Neutron ports by default), picked once
    per kind for the forty rules that read them."""
    return _by_kind(ctx)[kind]


def id_role(port: Port) -> str | None:
    """The network role a port's (or interface's) resource id states, int_ included."""
    match = PORT_ID.match(port.name) or INTERFACE_ID.match(port.name)
    return match["role"] if match is not None else None


def network_role(port: Port) -> str | None:
    """The network role the parameter of its network states (id, name or FQDN)."""
    network = port.network
    named = (NETWORK_PARAMETER.match(network) or NETWORK_FQDN.match(network)) if network else None
    return named["role"] if named is not None else None


def _find_ports(ctx: TemplateContext) -> Iterator[Port]:
    for name, definition, span in resources_of(ctx, *NOUNS):
        kind = definition["type"]
        properties = section(definition, "properties")
        if kind == PORT:
            network = properties.get("network")
        else:
            refs = properties.get("virtual_network_refs")
            network = refs[0] if isinstance(refs, list) and refs else None
        port = Port(
            name,
            kind,
            definition,
            properties,
            ("resources", name),
            span,
            _internal(network),
            parameter_read(network),
        )
        yield port._replace(
            fixed=tuple(_fixed_ips(port, "ip_address", "instance_ip_address")),
            subnets=tuple(_fixed_ips(port, "subnet", "subnet_uuid")),
            vips=tuple(_vips(port)),
        )


def _internal(network: Any) -> bool | None:
    """A network of the VNF's own (get_resource, get_attr, or an int_ parameter)?"""
    if isinstance(network, dict) and ("get_resource" in network or "get_attr" in network):
        return True
    parameter = parameter_read(network)
    return None if parameter is None else parameter.startswith("int_")


def _entries(port: Port, prop: str, key: str) -> Iterator[Address]:
    entries = port.properties.get(prop)
    for index, entry in enumerate(entries if isinstance(entries, list) else ()):
        if isinstance(entry, dict):
            parameter = parameter_read(entry.get(key))
            if parameter is not None:
                path = (*port.path, "properties", prop, index, key)
                yield Address(port, parameter, path, value_span(entry, key))


def _single(port: Port, prop: str) -> Iterator[Address]:
    parameter = parameter_read(port.properties.get(prop))
    if parameter is not None:
        span, path = property_at(port, prop)
        yield Address(port, parameter, path, span)


def _fixed_ips(port: Port, key: str, instance_ip_prop: str) -> Iterator[Address]:
    """A port's fixed_ips ``key``, or an instance IP's ``instance_ip_prop``."""
    if port.kind == PORT:
        return _entries(port, "fixed_ips", key)
    return _single(port, instance_ip_prop) if port.kind == INSTANCE_IP else iter(())


def _vips(port: Port) -> Iterator[Address]:
    if port.kind == PORT:
        yield from _entries(port, "allowed_address_pairs", "ip_address")
        return
    pairs = port.properties.get(_VMI_PAIRS) if port.kind == INTERFACE else None
    inner = pairs.get(_VMI_PAIR) if isinstance(pairs, dict) else None
    for index, pair in enumerate(inner if isinstance(inner, list) else ()):
        ip = pair.get(_VMI_IP) if isinstance(pair, dict) else None
        parameter = parameter_read(ip.get(_VMI_PREFIX)) if isinstance(ip, dict) else None
        if parameter is not None:
            assert isinstance(ip, dict)
            path = (*port.path, "properties", _VMI_PAIRS, _VMI_PAIR, index, _VMI_IP, _VMI_PREFIX)
            yield Address(port, parameter, path, value_span(ip, _VMI_PREFIX))


def exempt(port: Port) -> set[str]:
    """The parameters the port's resource-level metadata lists under aap_exempt."""
    metadata = port.definition.get("metadata")
    listed = metadata.get("aap_exempt") if isinstance(metadata, dict) else None
    return {str(name) for name in listed} if isinstance(listed, list) else set()


class PortRule(FromRequirement, TemplateRule):
    """A rule on the ports of a template (or the Contrail resources of ``kind``),
    declared by its requirement."""

    kind: ClassVar[str] = PORT


# ---------------------------------------------------------------- network


class NetworkParameterType(PortRule, DeclaredType):
    requirement = requirement("R-18008")
    summary = "The parameter of a port's network is a string"
    checks = "the parameter each OS::Neutron::Port's network reads is declared type string."

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        for port in ports(ctx, self.kind):
            if port.network:
                yield port.network, port

    def reader(self, holder: Any) -> str:
        return f"the network of {who(holder)}"


class ExternalNetworkParameter(PortRule):
    requirement = requirement("R-62983")
    summary = "An external network's port reads {network-role}_net_id or _net_name"
    checks = (
        "each OS::Neutron::Port whose network is not a resource of the VNF reads it with a "
        "get_param of a parameter named <role>_net_id or <role>_net_name (not int_...)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for port in ports(ctx, self.kind):
            if port.internal or "network" not in port.properties:
                continue
            where, path = property_at(port, "network")
            if port.network is None:
                yield self.finding(
                    f"{who(port)}: the network of an ONAP external network must be a "
                    "get_param of {network-role}_net_id or {network-role}_net_name",
                    where,
                    path,
                )
            elif not NETWORK_PARAMETER.match(port.network):
                yield self.finding(
                    f'{who(port)} reads its network from "{port.network}"; the '
                    "parameter must be named {network-role}_net_id or {network-role}_net_name",
                    where,
                    path,
                )


class InternalNetworkParameter(PortRule):
    requirement = requirement("R-86182")
    summary = "In an incremental module, an internal network is int_{network-role}_net_id/_name"
    checks = (
        "in incremental modules, each OS::Neutron::Port that reads an int_... network "
        "parameter reads one named int_<role>_net_id or int_<role>_net_name."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if ctx.role is not ModuleRole.INCREMENTAL:
            return
        for port in ports(ctx, self.kind):
            network = port.network
            if network is None or not port.internal:
                continue
            match = NETWORK_PARAMETER.match(network)
            if match is None or not match["role"].startswith("int_"):
                yield self.finding(
                    f'{who(port)} reads its internal network from "{network}"; the '
                    "parameter must be named int_{network-role}_net_id or "
                    "int_{network-role}_net_name",
                    *property_at(port, "network"),
                )


class Enumeration(PortRule, EnumerationRule):
    """Parameters of ports that must (``wanted``) or must not be in the environment."""

    why = "; the VNF's own addresses must"

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        raise NotImplementedError

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        for address in self.parameters(ctx):
            yield address.parameter, address.port

    def reader(self, holder: Any) -> str:
        return f"read by {who(holder)}"


class NetworkNotInEnvironment(Enumeration):
    requirement = requirement("R-29872")
    summary = "The parameter of a port's network is not in the environment file"
    checks = "the parameter each OS::Neutron::Port's network reads is not in the environment."
    wanted = False

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        for port in ports(ctx, self.kind):
            if port.network is not None:
                span, path = property_at(port, "network")
                yield Address(port, port.network, path, span)


# ---------------------------------------------------------------- one network role


def _roles(port: Port, vm_type: str) -> Iterator[tuple[str, str, Path, Span | None]]:
    """(parameter, the network role its name states, path, span) of each parameter the
    port reads whose name follows its own convention."""
    if port.network is not None:
        match = NETWORK_PARAMETER.match(port.network)
        if match is not None:
            span, path = property_at(port, "network")
            yield port.network, match["role"], path, span
    for address in port.subnets:
        match = SUBNET_PARAMETER.match(address.parameter)
        if match is not None:
            yield address.parameter, match["role"], address.path, address.span
    exempted = exempt(port)
    for address in (*port.fixed, *port.vips):
        parameter = address.parameter
        if parameter in exempted or not parameter.startswith(f"{vm_type}_"):
            continue
        match = ADDRESS_ROLE.match(parameter[len(vm_type) + 1 :])
        if match is not None:
            yield parameter, match["role"], address.path, address.span


class OneNetworkRole(PortRule):
    requirement = requirement("R-681859")
    summary = "A port's id and its parameters carry the identical {network-role}"
    checks = (
        "for each OS::Neutron::Port whose resource id reads {vm-type}_{index}_{network-role}"
        "_port_{index}, the parameters its network, fixed_ips (ip_address, subnet) and "
        "allowed_address_pairs read, where they follow their own naming convention, state "
        "that same network role (int_ included for an internal network)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for port in ports(ctx, self.kind):
            match = PORT_ID.match(port.name)
            if match is None:
                continue
            role = match["role"]
            for parameter, stated, path, span in _roles(port, match["vm"]):
                if stated != role:
                    yield self.finding(
                        f'{who(port)} (network role {role}) reads "{parameter}", whose '
                        f"name states the network role {stated}",
                        span,
                        path,
                    )


PORT_RULES: list[type] = [
    OneNetworkRole,
    NetworkParameterType,
    ExternalNetworkParameter,
    InternalNetworkParameter,
    NetworkNotInEnvironment,
]
