"""ONAP's virtual IPs: allowed_address_pairs parameters, and no Neutron floating IPs.

A VIP is an address a port lets through besides its own (``allowed_address_pairs``).
ONAP's data model holds one IPv4 and one IPv6 VIP per vm-type and network role, under
fixed names; any other VIP parameter of a port on an external network must be listed in
the port's resource-level metadata under ``aap_exempt``. ONAP supplies external VIPs (not
in the environment file); internal ones are the VNF's own (in it). Neutron's floating IPs
(NAT in OpenStack) are not supported at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic
from stoker.lint.context import TemplateContext
from stoker.lint.onap.enumerated import enumerated
from stoker.lint.onap.ports import (
    Address,
    Enumeration,
    PortRule,
    exempt,
    ports,
    who,
)
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import declared_type, resources_of
from stoker.patterns import LazyPattern
from stoker.template.nodes import key_span, span_of

EXTERNAL_VIP = LazyPattern(r"^(?!.*_int_).+_floating_ip$")
EXTERNAL_V6_VIP = LazyPattern(r"^(?!.*_int_).+_floating_v6_ip$")
INTERNAL_VIP = LazyPattern(r"^.+_int_.+_floating_ips?$")
INTERNAL_V6_VIP = LazyPattern(r"^.+_int_.+_floating_v6_ips?$")


def _vips(ctx: TemplateContext, internal: bool, kind: str) -> Iterator[Address]:
    for port in ports(ctx, kind):
        if port.internal is internal:
            yield from port.vips


class ExternalVipsNotInEnvironment(Enumeration):
    requirement = requirement("R-83412")
    summary = "An external network's allowed_address_pairs parameters are not in the environment"
    checks = (
        "no allowed_address_pairs ip_address parameter of an OS::Neutron::Port on an ONAP "
        "external network is in the module's environment file."
    )
    wanted = False

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        return _vips(ctx, False, self.kind)


class _Vip(PortRule):
    """The VIP parameters of ports on one network kind, of one IP version by their names:
    named by ``form``; a string, or on an internal network a comma_delimited_list named
    ..._ips; on an internal network, in the environment file. An external VIP listed in
    the port's aap_exempt is exempt."""

    internal: ClassVar[bool]
    v6: ClassVar[bool]
    pattern: ClassVar[LazyPattern]
    form: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        values = enumerated(ctx) if self.internal else None
        for address in _vips(ctx, self.internal, self.kind):
            parameter = address.parameter
            if ("v6" in parameter) is not self.v6:
                continue
            if not self.internal and parameter in exempt(address.port):
                continue
            kind = declared_type(ctx, parameter)
            listed = self.internal and parameter.endswith("s")
            wanted = "comma_delimited_list" if listed else "string"
            if not self.pattern.match(parameter):
                problem = f"the parameter must be named {self.form}"
            elif kind is not None and kind != wanted:
                problem = f"the parameter is a {kind}; it must be a {wanted}"
            elif values is not None and parameter not in values:
                problem = "the parameter must have a value in the module's environment file"
            else:
                continue
            vip = "an internal VIP" if self.internal else "a VIP"
            yield self.finding_at(
                f'{who(address.port)} reads {vip} from "{parameter}"; {problem}',
                address,
            )


class ExternalVip(_Vip):
    requirement = requirement("R-41492")
    summary = "An external IPv4 VIP is a string {vm-type}_{network-role}_floating_ip"
    checks = (
        "each allowed_address_pairs ip_address parameter of a port on an ONAP external "
        "network, IPv4 by its name (no v6) and not listed in the port's aap_exempt, is a "
        "string named <vm-type>_<role>_floating_ip."
    )
    internal, v6, pattern = False, False, EXTERNAL_VIP
    form = "{vm-type}_{network-role}_floating_ip (or be listed in aap_exempt)"


class ExternalV6Vip(_Vip):
    requirement = requirement("R-35735")
    summary = "An external IPv6 VIP is a string {vm-type}_{network-role}_floating_v6_ip"
    checks = (
        "each allowed_address_pairs ip_address parameter of a port on an ONAP external "
        "network, IPv6 by its name (v6 in it) and not listed in the port's aap_exempt, is a "
        "string named <vm-type>_<role>_floating_v6_ip."
    )
    internal, v6, pattern = False, True, EXTERNAL_V6_VIP
    form = "{vm-type}_{network-role}_floating_v6_ip (or be listed in aap_exempt)"


class VipExemptions(PortRule):
    requirement = requirement("R-41493")
    summary = "aap_exempt is resource-level metadata listing the port's VIP parameters"
    checks = (
        "a port's aap_exempt is in its resource-level metadata (not properties' metadata) "
        "and is a list of the names of parameters its allowed_address_pairs read."
    )

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for port in ports(ctx, self.kind):
            wrong = port.properties.get("metadata")
            if isinstance(wrong, dict) and "aap_exempt" in wrong:
                yield self.finding(
                    f"{who(port)}: aap_exempt belongs in the resource-level metadata, "
                    "not in the metadata property",
                    key_span(wrong, "aap_exempt"),
                    (*port.path, "properties", "metadata", "aap_exempt"),
                )
            metadata = port.definition.get("metadata")
            listed: Any = metadata.get("aap_exempt") if isinstance(metadata, dict) else None
            if listed is None:
                continue
            read = {a.parameter for a in port.vips}
            path = (*port.path, "metadata", "aap_exempt")
            if not isinstance(listed, list):
                yield self.finding(
                    f"{who(port)}: aap_exempt must be a list of parameter names",
                    span_of(listed),
                    path,
                )
                continue
            for index, name in enumerate(listed):
                if not isinstance(name, str) or name not in read:
                    yield self.finding(
                        f"{who(port)}: aap_exempt lists {name!r}, which none of its "
                        "allowed_address_pairs reads",
                        span_of(name) or span_of(listed),
                        (*path, index),
                    )


class InternalVip(_Vip):
    requirement = requirement("R-717227")
    summary = "An internal IPv4 VIP is {vm-type}_int_{network-role}_floating_ip(s), enumerated"
    checks = (
        "each allowed_address_pairs ip_address parameter of a port on an ONAP internal "
        "network, IPv4 by its name, is a string <vm-type>_int_<role>_floating_ip or a "
        "comma_delimited_list ..._floating_ips, with a value in the environment file."
    )
    internal, v6, pattern = True, False, INTERNAL_VIP
    form = "{vm-type}_int_{network-role}_floating_ip or ..._floating_ips"


class InternalV6Vip(_Vip):
    requirement = requirement("R-805572")
    summary = "An internal IPv6 VIP is {vm-type}_int_{network-role}_floating_v6_ip(s), enumerated"
    checks = (
        "each allowed_address_pairs ip_address parameter of a port on an ONAP internal "
        "network, IPv6 by its name, is a string <vm-type>_int_<role>_floating_v6_ip or a "
        "comma_delimited_list ..._floating_v6_ips, with a value in the environment file."
    )
    internal, v6, pattern = True, True, INTERNAL_V6_VIP
    form = "{vm-type}_int_{network-role}_floating_v6_ip or ..._floating_v6_ips"


class _NoResourceType(PortRule):
    forbidden: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, _, span in resources_of(ctx, self.forbidden):
            yield self.finding(
                f'resource "{name}" is an {self.forbidden}; ONAP does not support '
                "Neutron floating IPs (use allowed_address_pairs for a VIP)",
                span,
                ("resources", name),
            )


class NoFloatingIp(_NoResourceType):
    requirement = requirement("R-05257")
    summary = "No OS::Neutron::FloatingIP resource"
    checks = "no resource of the template has type OS::Neutron::FloatingIP."
    forbidden = "OS::Neutron::FloatingIP"


class NoFloatingIpAssociation(_NoResourceType):
    requirement = requirement("R-76449")
    summary = "No OS::Neutron::FloatingIPAssociation resource"
    checks = "no resource of the template has type OS::Neutron::FloatingIPAssociation."
    forbidden = "OS::Neutron::FloatingIPAssociation"


VIP_RULES: list[type] = [
    ExternalVipsNotInEnvironment,
    ExternalVip,
    ExternalV6Vip,
    VipExemptions,
    InternalVip,
    InternalV6Vip,
    NoFloatingIp,
    NoFloatingIpAssociation,
]
