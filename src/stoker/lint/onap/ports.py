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
import weakref
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, NamedTuple

from stoker.diagnostics import Diagnostic, Path, Span
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.neutron import is_internal
from stoker.lint.onap.nova import declared, enumerated, parameter_read
from stoker.lint.onap.requirements import requirement
from stoker.lint.rule import TemplateRule
from stoker.template.nodes import key_span, value_span

PORT = "OS::Neutron::Port"
PORT_ID = re.compile(r"^(?P<vm>.+?)_(?P<vm_index>\d+)_(?P<role>.+)_port_(?P<index>\d+)$")
RESERVE_PORT = re.compile(r"^reserve_port_", re.IGNORECASE)
NETWORK_PARAMETER = re.compile(r"^(?P<role>.+)_net_(?:id|name)$")
SUBNET_PARAMETER = re.compile(r"^(?P<role>.+?)_(?:v6_)?subnet_id$")
#: after ``{vm-type}_``: the role, then what the parameter holds
ADDRESS_ROLE = re.compile(r"^(?P<role>.+?)_(?:v6_)?(?:ips|ip_\d+|floating_(?:v6_)?ips?)$")


class Port(NamedTuple):
    name: str
    definition: dict[Any, Any]
    properties: dict[Any, Any]
    path: Path
    span: Span | None
    internal: bool | None  # None: the network is not a get_param or a resource of the VNF
    network: str | None  # the parameter its network reads


class Address(NamedTuple):
    """One parameter a port's fixed_ips or allowed_address_pairs entry reads."""

    port: Port
    parameter: str
    path: Path
    span: Span | None


_PORTS: weakref.WeakKeyDictionary[TemplateContext, list[Port]] = weakref.WeakKeyDictionary()


def ports(ctx: TemplateContext) -> list[Port]:
    """The template's ports, found once for the rules that read them."""
    found = _PORTS.get(ctx)
    if found is None:
        found = _PORTS[ctx] = list(_find_ports(ctx))
    return found


def _find_ports(ctx: TemplateContext) -> Iterator[Port]:
    data = ctx.data
    section = data.get("resources") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        return
    for name, definition in section.items():
        if not isinstance(definition, dict) or definition.get("type") != PORT:
            continue
        properties = definition.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        network = properties.get("network")
        internal = is_internal(definition)
        if internal is None and isinstance(network, dict) and "get_attr" in network:
            internal = True  # a network a nested stack of the VNF creates
        yield Port(
            str(name),
            definition,
            properties,
            ("resources", str(name)),
            key_span(section, name),
            internal,
            parameter_read(network),
        )


def addresses(port: Port, prop: str, key: str) -> Iterator[Address]:
    """The parameters ``prop`` (fixed_ips, allowed_address_pairs) entries read for ``key``."""
    entries = port.properties.get(prop)
    for index, entry in enumerate(entries if isinstance(entries, list) else ()):
        if isinstance(entry, dict):
            parameter = parameter_read(entry.get(key))
            if parameter is not None:
                path = (*port.path, "properties", prop, index, key)
                yield Address(port, parameter, path, value_span(entry, key))


def parameter_type(ctx: TemplateContext, parameter: str) -> Any:
    declaration = declared(ctx, parameter)
    return declaration.get("type") if declaration is not None else None


def exempt(port: Port) -> set[str]:
    """The parameters the port's resource-level metadata lists under aap_exempt."""
    metadata = port.definition.get("metadata")
    listed = metadata.get("aap_exempt") if isinstance(metadata, dict) else None
    return {str(name) for name in listed} if isinstance(listed, list) else set()


class PortRule(FromRequirement, TemplateRule):
    """A rule on the ports of a template, declared by its requirement."""


# ---------------------------------------------------------------- network


class NetworkParameterType(PortRule):
    requirement = requirement("R-18008")
    summary = "The parameter of a port's network is a string"
    checks = "the parameter each OS::Neutron::Port's network reads is declared type string."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        seen: set[str] = set()
        for port in ports(ctx):
            parameter = port.network
            declaration = declared(ctx, parameter) if parameter else None
            if parameter is None or declaration is None or parameter in seen:
                continue
            seen.add(parameter)
            if "type" in declaration and declaration["type"] != "string":
                yield self.finding(
                    f'parameter "{parameter}" (the network of port "{port.name}") has type '
                    f"{declaration['type']!r}; it must be string",
                    value_span(declaration, "type"),
                    ("parameters", parameter, "type"),
                )


class ExternalNetworkParameter(PortRule):
    requirement = requirement("R-62983")
    summary = "An external network's port reads {network-role}_net_id or _net_name"
    checks = (
        "each OS::Neutron::Port whose network is not a resource of the VNF reads it with a "
        "get_param of a parameter named <role>_net_id or <role>_net_name (not int_...)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for port in ports(ctx):
            if port.internal or "network" not in port.properties:
                continue
            where = value_span(port.properties, "network")
            path = (*port.path, "properties", "network")
            if port.network is None:
                yield self.finding(
                    f'port "{port.name}": the network of an ONAP external network must be a '
                    "get_param of {network-role}_net_id or {network-role}_net_name",
                    where,
                    path,
                )
            elif not NETWORK_PARAMETER.match(port.network):
                yield self.finding(
                    f'port "{port.name}" reads its network from "{port.network}"; the '
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
        for port in ports(ctx):
            network = port.network
            if network is None or not port.internal:
                continue
            match = NETWORK_PARAMETER.match(network)
            if match is None or not match["role"].startswith("int_"):
                yield self.finding(
                    f'port "{port.name}" reads its internal network from "{network}"; the '
                    "parameter must be named int_{network-role}_net_id or "
                    "int_{network-role}_net_name",
                    value_span(port.properties, "network"),
                    (*port.path, "properties", "network"),
                )


class Enumeration(PortRule):
    """Parameters that must (``wanted``) or must not be in the module's environment."""

    wanted: ClassVar[bool]

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        raise NotImplementedError

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        values = enumerated(ctx)
        if values is None:
            return
        seen: set[str] = set()
        for address in self.parameters(ctx):
            parameter = address.parameter
            if parameter in seen or declared(ctx, parameter) is None:
                continue
            seen.add(parameter)
            if self.wanted and parameter not in values:
                yield self.finding(
                    f'parameter "{parameter}" (read by port "{address.port.name}") has no '
                    "value in the module's environment file; the VNF's own addresses must",
                    key_span(ctx.data["parameters"], parameter),
                    ("parameters", parameter),
                )
            elif not self.wanted and parameter in values:
                yield self.finding(
                    f'parameter "{parameter}" (read by port "{address.port.name}") is '
                    "supplied by ONAP; remove it from the environment file",
                    values[parameter],
                )


class NetworkNotInEnvironment(Enumeration):
    requirement = requirement("R-29872")
    summary = "The parameter of a port's network is not in the environment file"
    checks = "the parameter each OS::Neutron::Port's network reads is not in the environment."
    wanted = False

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        for port in ports(ctx):
            if port.network is not None:
                span = value_span(port.properties, "network")
                yield Address(port, port.network, (*port.path, "properties", "network"), span)


# ---------------------------------------------------------------- one network role


def _roles(port: Port, vm_type: str) -> Iterator[tuple[str, str, Path, Span | None]]:
    """(parameter, the network role its name states, path, span) of each parameter the
    port reads whose name follows its own convention."""
    if port.network is not None:
        match = NETWORK_PARAMETER.match(port.network)
        if match is not None:
            span = value_span(port.properties, "network")
            yield port.network, match["role"], (*port.path, "properties", "network"), span
    for address in addresses(port, "fixed_ips", "subnet"):
        match = SUBNET_PARAMETER.match(address.parameter)
        if match is not None:
            yield address.parameter, match["role"], address.path, address.span
    exempted = exempt(port)
    for prop in ("fixed_ips", "allowed_address_pairs"):
        for address in addresses(port, prop, "ip_address"):
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
        for port in ports(ctx):
            match = PORT_ID.match(port.name)
            if match is None:
                continue
            role = match["role"]
            for parameter, stated, path, span in _roles(port, match["vm"]):
                if stated != role:
                    yield self.finding(
                        f'port "{port.name}" (network role {role}) reads "{parameter}", whose '
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
