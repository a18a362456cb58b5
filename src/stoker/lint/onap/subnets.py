"""ONAP's names for the parameter of a port's fixed_ips subnet (beyond the seed).

A subnet is named for cloud-assigned (DHCP) addresses: ``{network-role}_subnet_id`` on an
external network, ``int_{network-role}_subnet_id`` in an incremental module on an
internal network made by the base module (``_v6_subnet_id`` for IPv6). ONAP supplies
both at instantiation, so neither is in the environment file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import DeclaredType
from stoker.lint.onap.modules import ModuleRole
from stoker.lint.onap.ports import (
    Address,
    Enumeration,
    PortRule,
    ports,
    who,
)
from stoker.lint.onap.requirements import requirement
from stoker.patterns import LazyPattern

# ---------------------------------------------------------------- fixed_ips subnet


class SubnetParameterType(PortRule, DeclaredType):
    requirement = requirement("R-38236")
    summary = "The parameter of a port's fixed_ips subnet is a string"
    checks = "the parameter each fixed_ips subnet of an OS::Neutron::Port reads is a string."

    def readers(self, ctx: TemplateContext) -> Iterator[tuple[str, Any]]:
        for port in ports(ctx, self.kind):
            for address in port.subnets:
                yield address.parameter, port

    def reader(self, holder: Any) -> str:
        return f"a subnet of {who(holder)}"


@cache  # four forms, asked for by every rule on every subnet
def _subnet_form(internal: bool, v6: bool) -> LazyPattern:
    role = r"int_(?P<role>.+)" if internal else r"(?!int_)(?P<role>.+)"
    return LazyPattern(f"^{role}_{'v6_' if v6 else ''}subnet_id$")


class _SubnetName(PortRule):
    internal: ClassVar[bool]
    v6: ClassVar[bool]
    form: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        if self.internal and ctx.role is not ModuleRole.INCREMENTAL:
            return
        pattern = _subnet_form(self.internal, self.v6)
        for port in ports(ctx, self.kind):
            if port.internal is not self.internal:
                continue
            for address in port.subnets:
                if ("v6" in address.parameter) is self.v6 and not pattern.match(address.parameter):
                    yield self.finding_at(
                        f'{who(port)} reads a subnet from "{address.parameter}"; the '
                        f"parameter must be named {self.form}",
                        address,
                    )


class ExternalSubnet(_SubnetName):
    requirement = requirement("R-62802")
    summary = "An external network's IPv4 subnet parameter is {network-role}_subnet_id"
    checks = (
        "a fixed_ips subnet parameter of a port on an ONAP external network, IPv4 by its "
        "name (no v6), is named <role>_subnet_id."
    )
    internal, v6, form = False, False, "{network-role}_subnet_id"


class ExternalV6Subnet(_SubnetName):
    requirement = requirement("R-15287")
    summary = "An external network's IPv6 subnet parameter is {network-role}_v6_subnet_id"
    checks = (
        "a fixed_ips subnet parameter of a port on an ONAP external network, IPv6 by its "
        "name (v6 in it), is named <role>_v6_subnet_id."
    )
    internal, v6, form = False, True, "{network-role}_v6_subnet_id"


class InternalSubnet(_SubnetName):
    requirement = requirement("R-84123")
    summary = "In an incremental module, an internal IPv4 subnet is int_{network-role}_subnet_id"
    checks = (
        "in incremental modules, a fixed_ips subnet parameter of a port on an ONAP internal "
        "network, IPv4 by its name, is named int_<role>_subnet_id."
    )
    internal, v6, form = True, False, "int_{network-role}_subnet_id"


class InternalV6Subnet(_SubnetName):
    requirement = requirement("R-76160")
    summary = "In an incremental module, an internal IPv6 subnet is int_{network-role}_v6_subnet_id"
    checks = (
        "in incremental modules, a fixed_ips subnet parameter of a port on an ONAP internal "
        "network, IPv6 by its name, is named int_<role>_v6_subnet_id."
    )
    internal, v6, form = True, True, "int_{network-role}_v6_subnet_id"


class _SubnetEnumeration(Enumeration):
    internal: ClassVar[bool]
    v6: ClassVar[bool]
    wanted = False

    def parameters(self, ctx: TemplateContext) -> Iterator[Address]:
        pattern = _subnet_form(self.internal, self.v6)
        for port in ports(ctx, self.kind):
            for address in port.subnets:
                if pattern.match(address.parameter):
                    yield address


class ExternalSubnetNotInEnvironment(_SubnetEnumeration):
    requirement = requirement("R-83677")
    summary = "A {network-role}_subnet_id parameter is not in the environment file"
    checks = "a fixed_ips subnet parameter named <role>_subnet_id is not in the environment."
    internal, v6 = False, False


class ExternalV6SubnetNotInEnvironment(_SubnetEnumeration):
    requirement = requirement("R-80829")
    summary = "A {network-role}_v6_subnet_id parameter is not in the environment file"
    checks = "a fixed_ips subnet parameter named <role>_v6_subnet_id is not in the environment."
    internal, v6 = False, True


class InternalSubnetNotInEnvironment(_SubnetEnumeration):
    requirement = requirement("R-69634")
    summary = "An int_{network-role}_subnet_id parameter is not in the environment file"
    checks = "a fixed_ips subnet parameter named int_<role>_subnet_id is not in the environment."
    internal, v6 = True, False


class InternalV6SubnetNotInEnvironment(_SubnetEnumeration):
    requirement = requirement("R-22288")
    summary = "An int_{network-role}_v6_subnet_id parameter is not in the environment file"
    checks = "a fixed_ips subnet parameter named int_<role>_v6_subnet_id is not in the environment."
    internal, v6 = True, True


SUBNET_RULES: list[type] = [
    SubnetParameterType,
    ExternalSubnet,
    ExternalV6Subnet,
    InternalSubnet,
    InternalV6Subnet,
    ExternalSubnetNotInEnvironment,
    ExternalV6SubnetNotInEnvironment,
    InternalSubnetNotInEnvironment,
    InternalV6SubnetNotInEnvironment,
]
