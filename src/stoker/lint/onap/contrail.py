"""ONAP's Contrail resource parameters (beyond the seed).

Contrail's resources carry the Neutron port's conventions under requirement ids of their
own, so their rules are the port rules read on another resource: an
OS::ContrailV2::InstanceIp's instance_ip_address and subnet_uuid are a port's fixed_ips
ip_address and subnet; an OS::ContrailV2::VirtualMachineInterface's allowed address pair
ip_prefix is a port's allowed_address_pairs ip_address. Whether such a resource is on an
internal network is told from its first virtual_network_refs, as a port's from its
network. Two conventions are Contrail's own: an external network named by its FQDN
(``{network-role}_net_fqdn``) and an interface route table's prefixes
(``{vm-type}_{network-role}_route_prefixes``, json).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic
from stoker.lint.context import TemplateContext
from stoker.lint.onap import addresses, subnets, vips
from stoker.lint.onap.enumerated import enumerated
from stoker.lint.onap.ports import INSTANCE_IP, INTERFACE, Enumeration, PortRule
from stoker.lint.onap.requirement import ADDRESS_FORMS, INSTANCE_IP_ADDRESS_IDS
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import declared_type, parameter_read, resources_of, section
from stoker.patterns import LazyPattern
from stoker.template.nodes import value_span

FQDN = LazyPattern(r"^(?!int_)(?P<role>.+)_net_fqdn$")
ROUTE_TABLE = "OS::ContrailV2::InterfaceRouteTable"
ROUTE_PREFIXES = LazyPattern(r"^.+_.+_route_prefixes$")
_ROUTES = "interface_route_table_routes"
_ROUTE = "interface_route_table_routes_route"


def _contrail(base: type, rid: str, kind: str, summary: str, checks: str) -> type:
    """``base`` (a port rule) read on the Contrail resources of ``kind`` under ``rid``."""
    attributes = {
        "requirement": requirement(rid),
        "kind": kind,
        "summary": summary,
        "checks": f"as {base.__dict__.get('requirement', requirement(rid)).id} for ports, "
        f"on each {kind}: {checks}",
        "__doc__": f"{rid}: {summary}.",
        "__module__": __name__,
    }
    return type(f"Contrail{base.__name__}", (base,), attributes)


_IIP_FORMS = tuple(zip(INSTANCE_IP_ADDRESS_IDS, ADDRESS_FORMS, strict=True))

INSTANCE_IP_RULES: list[type] = [
    _contrail(
        addresses.AddressParameterType,
        "R-100000",
        INSTANCE_IP,
        "A Contrail instance IP's instance_ip_address parameter is a string or a list",
        "the parameter its instance_ip_address reads is a string or a comma_delimited_list.",
    ),
    *(addresses.address_rule(rid, *form, resource=INSTANCE_IP) for (rid, _), form in _IIP_FORMS),
    *(
        addresses.enumeration_rule(rid, *form, resource=INSTANCE_IP)
        for (_, rid), form in _IIP_FORMS
    ),
    _contrail(
        addresses.ExternalAddressesNotInEnvironment,
        "R-100170",
        INSTANCE_IP,
        "An external network's instance IP address parameters are not in the environment",
        "no instance_ip_address parameter on an ONAP external network is in the environment.",
    ),
    _contrail(
        addresses.InternalAddressesInEnvironment,
        "R-100180",
        INSTANCE_IP,
        "An internal network's instance IP address parameters are in the environment",
        "every instance_ip_address parameter on an ONAP internal network is in the "
        "environment file (modules that have one).",
    ),
    _contrail(
        subnets.SubnetParameterType,
        "R-100190",
        INSTANCE_IP,
        "The parameter of a Contrail instance IP's subnet_uuid is a string",
        "the parameter its subnet_uuid reads is a string.",
    ),
]
_SUBNETS = (
    (subnets.ExternalSubnet, "R-100200", "{network-role}_subnet_id"),
    (subnets.ExternalSubnetNotInEnvironment, "R-100210", "{network-role}_subnet_id"),
    (subnets.ExternalV6Subnet, "R-100220", "{network-role}_v6_subnet_id"),
    (subnets.ExternalV6SubnetNotInEnvironment, "R-100230", "{network-role}_v6_subnet_id"),
    (subnets.InternalSubnet, "R-100240", "int_{network-role}_subnet_id"),
    (subnets.InternalSubnetNotInEnvironment, "R-100250", "int_{network-role}_subnet_id"),
    (subnets.InternalV6Subnet, "R-100260", "int_{network-role}_v6_subnet_id"),
    (subnets.InternalV6SubnetNotInEnvironment, "R-100270", "int_{network-role}_v6_subnet_id"),
)
for _base, _rid, _form in _SUBNETS:
    _absent = issubclass(_base, Enumeration)
    INSTANCE_IP_RULES.append(
        _contrail(
            _base,
            _rid,
            INSTANCE_IP,
            f"A Contrail {_form} subnet_uuid parameter is not in the environment file"
            if _absent
            else f"A Contrail instance IP's subnet_uuid parameter is {_form}",
            f"a subnet_uuid parameter named {_form} is not in the environment file."
            if _absent
            else f"its subnet_uuid parameter, of the matching network kind and IP version, "
            f"is named {_form}.",
        )
    )

INTERFACE_RULES: list[type] = [
    _contrail(
        vips.ExternalVipsNotInEnvironment,
        "R-100280",
        INTERFACE,
        "An external Contrail interface's allowed address pair parameters are not in the env",
        "no allowed address pair ip_prefix parameter on an ONAP external network is in the "
        "environment file.",
    ),
    _contrail(
        vips.ExternalVip,
        "R-100310",
        INTERFACE,
        "An external Contrail IPv4 VIP is a string {vm-type}_{network-role}_floating_ip",
        "an IPv4 allowed address pair ip_prefix parameter on an ONAP external network, not "
        "in aap_exempt, is a string named <vm-type>_<role>_floating_ip.",
    ),
    _contrail(
        vips.ExternalV6Vip,
        "R-100330",
        INTERFACE,
        "An external Contrail IPv6 VIP is a string {vm-type}_{network-role}_floating_v6_ip",
        "an IPv6 allowed address pair ip_prefix parameter on an ONAP external network, not "
        "in aap_exempt, is a string named <vm-type>_<role>_floating_v6_ip.",
    ),
    _contrail(
        vips.VipExemptions,
        "R-100350",
        INTERFACE,
        "A Contrail interface's aap_exempt is resource-level metadata listing its VIPs",
        "aap_exempt is in the resource-level metadata and lists only parameters its "
        "allowed address pairs read.",
    ),
    _contrail(
        vips.InternalVip,
        "R-100360",
        INTERFACE,
        "An internal Contrail IPv4 VIP is {vm-type}_int_{network-role}_floating_ip(s)",
        "an IPv4 allowed address pair ip_prefix parameter on an ONAP internal network is a "
        "string ..._floating_ip or a comma_delimited_list ..._floating_ips, in the "
        "environment file.",
    ),
    _contrail(
        vips.InternalV6Vip,
        "R-100370",
        INTERFACE,
        "An internal Contrail IPv6 VIP is {vm-type}_int_{network-role}_floating_v6_ip(s)",
        "an IPv6 allowed address pair ip_prefix parameter on an ONAP internal network is a "
        "string ..._floating_v6_ip or a comma_delimited_list ..._floating_v6_ips, in the "
        "environment file.",
    ),
]


# ---------------------------------------------------------------- network FQDN


def _fqdn_reads(ctx: TemplateContext) -> Iterator[tuple[Any, str, str]]:
    """(resource, parameter) for each Contrail resource's network reference by parameter
    to an external network (not int_...)."""
    for name, definition in section(ctx.data, "resources").items():
        kind = definition.get("type") if isinstance(definition, dict) else None
        if not isinstance(kind, str) or not kind.startswith("OS::ContrailV2::"):
            continue
        properties = definition.get("properties")
        refs = properties.get("virtual_network_refs") if isinstance(properties, dict) else None
        for index, ref in enumerate(refs if isinstance(refs, list) else ()):
            parameter = parameter_read(ref)
            if parameter is not None and not parameter.startswith("int_"):
                yield (refs, index), str(name), parameter


class ExternalNetworkFqdn(PortRule):
    requirement = requirement("R-02164")
    summary = "A Contrail reference to an external network is a string {network-role}_net_fqdn"
    checks = (
        "each virtual_network_refs entry of a Contrail resource that reads a parameter not "
        "named int_... reads a string parameter named <role>_net_fqdn (whether it is in the "
        "environment file is R-92193's finding)."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for (refs, index), name, parameter in _fqdn_reads(ctx):
            kind = declared_type(ctx, parameter)
            if not FQDN.match(parameter):
                problem = "must be named {network-role}_net_fqdn"
            elif kind is not None and kind != "string":
                problem = f"is a {kind}; it must be a string"
            else:
                continue
            yield self.finding(
                f'resource "{name}" references its network by "{parameter}", which {problem}',
                value_span(refs, index),
                ("resources", name, "properties", "virtual_network_refs", index),
            )


class FqdnNotInEnvironment(PortRule):
    requirement = requirement("R-92193")
    summary = "A {network-role}_net_fqdn parameter is not in the environment file"
    checks = "a <role>_net_fqdn parameter a Contrail resource reads is not in the environment."

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        values = enumerated(ctx)
        if values is None:
            return
        seen: set[str] = set()
        for _, name, parameter in _fqdn_reads(ctx):
            if FQDN.match(parameter) and parameter in values and parameter not in seen:
                seen.add(parameter)
                yield self.finding(
                    f'parameter "{parameter}" (the network of resource "{name}") is supplied '
                    "by ONAP; remove it from the environment file",
                    values[parameter],
                )


# ---------------------------------------------------------------- interface route tables


def _route_prefixes(ctx: TemplateContext) -> Iterator[tuple[str, str, Any]]:
    for name, definition, _ in resources_of(ctx, ROUTE_TABLE):
        properties = definition.get("properties")
        routes = properties.get(_ROUTES) if isinstance(properties, dict) else None
        parameter = parameter_read(routes.get(_ROUTE)) if isinstance(routes, dict) else None
        if parameter is not None:
            yield name, parameter, value_span(routes, _ROUTE)


class _RoutePrefixes(PortRule):
    problem: ClassVar[str]

    def wrong(self, ctx: TemplateContext, parameter: str) -> bool:
        raise NotImplementedError

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, parameter, span in _route_prefixes(ctx):
            if self.wrong(ctx, parameter):
                yield self.finding(
                    f'route table "{name}" reads its routes from "{parameter}", {self.problem}',
                    span,
                    ("resources", name, "properties", _ROUTES, _ROUTE),
                )


class RoutePrefixesName(_RoutePrefixes):
    requirement = requirement("R-28222")
    summary = (
        "An interface route table's routes parameter is {vm-type}_{network-role}_route_prefixes"
    )
    checks = (
        "the parameter each OS::ContrailV2::InterfaceRouteTable's interface_route_table_routes"
        "_route reads is named <vm-type>_<role>_route_prefixes."
    )
    problem = "which must be named {vm-type}_{network-role}_route_prefixes"

    def wrong(self, ctx: TemplateContext, parameter: str) -> bool:
        return not ROUTE_PREFIXES.match(parameter)


class RoutePrefixesJson(_RoutePrefixes):
    requirement = requirement("R-19756")
    summary = "A {vm-type}_{network-role}_route_prefixes parameter is json"
    checks = "the route prefixes parameter of an interface route table is declared json."
    problem = "which must be declared type json"

    def wrong(self, ctx: TemplateContext, parameter: str) -> bool:
        kind = declared_type(ctx, parameter)
        return kind is not None and kind != "json"


class RoutePrefixesNotInEnvironment(_RoutePrefixes):
    requirement = requirement("R-76682")
    summary = "A {vm-type}_{network-role}_route_prefixes parameter is not in the environment"
    checks = "the route prefixes parameter of an interface route table is not in the environment."
    problem = "which ONAP supplies; remove it from the environment file"

    def wrong(self, ctx: TemplateContext, parameter: str) -> bool:
        values = enumerated(ctx)
        return values is not None and parameter in values


CONTRAIL_RULES: list[type] = [
    ExternalNetworkFqdn,
    FqdnNotInEnvironment,
    RoutePrefixesName,
    RoutePrefixesJson,
    RoutePrefixesNotInEnvironment,
    *INSTANCE_IP_RULES,
    *INTERFACE_RULES,
]
