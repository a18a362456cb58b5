"""ONAP's resource ids beyond servers, networks and ports (beyond the seed).

Some resource types name the vm-type or network role they serve in their id. A
package's vm-types are read from its servers' ids (``{vm-type}_server_{index}``) and its
network roles from its ports, interfaces and network parameters; an id "contains" one
when it appears between underscores (or at either end). Where a package has no server
(or no network role), nothing is there to check against. Contrail's interfaces and
instance IPs spell out the vm-type, its index, the network role and their own indexes;
a Contrail network, like a Neutron one, is internal (``int_{network-role}_network``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from stoker.diagnostics import Diagnostic, Severity
from stoker.lint.context import PackageContext, TemplateContext
from stoker.lint.memo import memoized
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.nova import typed_servers
from stoker.lint.onap.ports import (
    INSTANCE_IP,
    INTERFACE,
    NETWORK_ID,
    id_role,
    interfaces,
    network_role,
)
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.written import resources_of, section
from stoker.lint.rule import TemplateRule
from stoker.patterns import LazyPattern


@memoized
def vm_types(package: PackageContext) -> frozenset[str]:
    """The vm-types the package's servers name (``{vm-type}_server_{index}``)."""
    names: set[str] = set()
    for template in package.templates:
        if template.template is not None:
            names.update(vm_type for vm_type, _, _ in typed_servers(template))
    return frozenset(names)


@memoized
def network_roles(package: PackageContext) -> frozenset[str]:
    """The network roles (without ``int_``) the package's ports, interfaces, network
    parameters and internal networks name."""
    roles: set[str] = set()
    for template in package.templates:
        if template.template is None:
            continue
        for port in interfaces(template):
            stated = (id_role(port), network_role(port))
            roles.update(role for role in stated if role is not None)
        for name in section(template.data, "resources"):
            match = NETWORK_ID.match(str(name))
            if match is not None:
                roles.add(match["role"])
    return frozenset(r.removeprefix("int_") for r in roles)


def contains(resource_id: str, token: str) -> bool:
    """Whether ``token`` appears in the id between underscores (or at either end)."""
    return f"_{token}_" in f"_{resource_id}_"


class ResourceIdRule(FromRequirement, TemplateRule):
    """A rule on the ids of the resources of one type, declared by its requirement."""

    resource_type: ClassVar[str]


class _Contains(ResourceIdRule):
    """Each resource id of the type contains one of the package's vm-types (or roles)."""

    what: ClassVar[str]  # "vm-type" or "network role"

    def known(self, package: PackageContext) -> frozenset[str]:
        """The package's vm-types (or network roles)."""
        raise NotImplementedError

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        known = self.known(ctx.package)
        if not known:
            return
        for name, _, span in resources_of(ctx, self.resource_type):
            if not any(contains(name, token) for token in known):
                yield self.finding(
                    f'{self.resource_type} "{name}": its resource id must contain its '
                    f"{self.what} (the package's: {', '.join(sorted(known))})",
                    span,
                    ("resources", name),
                )


def _contains_rule(rid: str, kind: str, resource_type: str) -> type:
    what = "vm-type" if kind == "vm" else "network role"
    attributes = {
        "requirement": requirement(rid),
        "summary": f"An {resource_type}'s resource id contains its {what}",
        "checks": (
            f"each {resource_type}'s resource id contains, between underscores, one of the "
            f"{what}s the package names ("
            + (
                "its servers' ids"
                if kind == "vm"
                else "its ports', interfaces' and internal networks' ids, its network parameters"
            )
            + "); nothing is checked in a package that names none."
        ),
        "resource_type": resource_type,
        "what": what,
        "known": staticmethod(vm_types if kind == "vm" else network_roles),
        "__module__": __name__,
    }
    name = resource_type.rsplit("::", 1)[-1] + ("VmType" if kind == "vm" else "NetworkRole")
    return type(name, (_Contains,), attributes)


CONTAINS_RULES: list[type] = [
    _contains_rule("R-04747", "vm", "OS::Heat::CloudConfig"),
    _contains_rule("R-30804", "vm", "OS::Heat::MultipartMime"),
    _contains_rule("R-08975", "vm", "OS::Heat::SoftwareConfig"),
    _contains_rule("R-20065", "vm", "OS::ContrailV2::PortTuple"),
    _contains_rule("R-76014", "vm", "OS::ContrailV2::ServiceHealthCheck"),
    _contains_rule("R-16437", "vm", "OS::ContrailV2::ServiceTemplate"),
    _contains_rule("R-81214", "role", "OS::ContrailV2::InterfaceRouteTable"),
    _contains_rule("R-30753", "role", "OS::ContrailV2::NetworkIpam"),
]


class IdForm(ResourceIdRule):
    """Every resource of the type has an id of the form."""

    pattern: ClassVar[LazyPattern]
    form: ClassVar[str]
    noun: ClassVar[str] = ""  # how a finding names the resource ("" for its type)

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        verb = "should" if self.severity is Severity.WARNING else "must"
        noun = self.noun or self.resource_type
        for name, _, span in resources_of(ctx, self.resource_type):
            if not self.pattern.match(name):
                yield self.finding(
                    f'{noun} "{name}": its resource id {verb} read {self.form}',
                    span,
                    ("resources", name),
                )


class ContrailNetworkId(IdForm):
    requirement = requirement("R-99110")
    summary = "An OS::ContrailV2::VirtualNetwork's resource id is int_{network-role}_network"
    checks = "each OS::ContrailV2::VirtualNetwork's resource id matches int_<role>_network."
    resource_type = "OS::ContrailV2::VirtualNetwork"
    pattern, form = NETWORK_ID, "int_{network-role}_network"


class VolumeId(IdForm):
    requirement = requirement("R-87004")
    summary = "An OS::Cinder::Volume's resource id is {vm-type}_volume_{index}"
    checks = "each OS::Cinder::Volume's resource id matches <vm-type>_volume_<digits>."
    resource_type = "OS::Cinder::Volume"
    pattern, form = LazyPattern(r"^.+_volume_\d+$"), "{vm-type}_volume_{index}"


class VolumeAttachmentId(IdForm):
    requirement = requirement("R-86497")
    summary = "An OS::Cinder::VolumeAttachment's resource id is {vm-type}_volume_attachment_{index}"
    checks = (
        "each OS::Cinder::VolumeAttachment's resource id matches "
        "<vm-type>_volume_attachment_<digits>."
    )
    resource_type = "OS::Cinder::VolumeAttachment"
    pattern = LazyPattern(r"^.+_volume_attachment_\d+$")
    form = "{vm-type}_volume_attachment_{index}"


class SubnetId(IdForm):
    requirement = requirement("R-59434")
    summary = "An OS::Neutron::Subnet's resource id is int_{network-role}_subnet_{index}"
    checks = "each OS::Neutron::Subnet's resource id matches int_<role>_subnet_<digits>."
    resource_type = "OS::Neutron::Subnet"
    pattern, form = LazyPattern(r"^int_.+_subnet_\d+$"), "int_{network-role}_subnet_{index}"


class _ContrailId(ResourceIdRule):
    """Contrail interfaces and instance IPs: the form depends on the network's kind (and,
    for an instance IP, the address's IP version)."""

    internal: ClassVar[bool]
    v6: ClassVar[bool | None] = None  # instance IPs only
    pattern: ClassVar[LazyPattern]
    form: ClassVar[str]

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for port in interfaces(ctx):
            if port.kind != self.resource_type or port.internal is not self.internal:
                continue
            if self.v6 is not None and _is_v6(port.properties, port.fixed) is not self.v6:
                continue
            if not self.pattern.match(port.name):
                yield self.finding_at(
                    f'{self.resource_type} "{port.name}": its resource id must read {self.form}',
                    port,
                )


def _is_v6(properties: dict[Any, Any], fixed: tuple[Any, ...]) -> bool:
    """An instance IP configures IPv6 when its instance_ip_family says v6, or (not saying)
    its address parameter's name does."""
    family = properties.get("instance_ip_family")
    if isinstance(family, str):
        return family.lower() == "v6"
    return any("_v6_" in address.parameter for address in fixed)


def _contrail_id(
    rid: str, resource_type: str, internal: bool, form: str, v6: bool | None = None
) -> type:
    network = "int_{network-role}" if internal else "{network-role}"
    shown = form.replace("{net}", network)
    regex = (
        form.replace("{net}", "int_.+" if internal else "(?!int_).+")
        .replace("{vm-type}", ".+?")
        .replace("{vm-type_index}", r"\d+")
        .replace("{vmi_index}", r"\d+")
        .replace("{index}", r"\d+")
    )
    attributes = {
        "requirement": requirement(rid),
        "summary": f"An {resource_type.rsplit('::', 1)[-1]} id on an "
        f"{'internal' if internal else 'external'} network"
        + ("" if v6 is None else f" (IPv{6 if v6 else 4})")
        + " follows ONAP's naming",
        "checks": (
            f"each {resource_type} on an ONAP {'internal' if internal else 'external'} network "
            + ("" if v6 is None else f"configuring an IPv{6 if v6 else 4} address ")
            + f"has a resource id of the form {shown}."
        ),
        "resource_type": resource_type,
        "internal": internal,
        "v6": v6,
        "pattern": LazyPattern(f"^{regex}$"),
        "form": shown,
        "__module__": __name__,
    }
    name = f"{'Internal' if internal else 'External'}{'V6' if v6 else ''}"
    name += resource_type.rsplit("::", 1)[-1] + "Id"
    return type(name, (_ContrailId,), attributes)


_VMI = "{vm-type}_{vm-type_index}_{net}_vmi_{vmi_index}"
CONTRAIL_ID_RULES: list[type] = [
    _contrail_id("R-96253", INTERFACE, False, _VMI),
    _contrail_id("R-50468", INTERFACE, True, _VMI),
    _contrail_id("R-53310", INSTANCE_IP, False, _VMI + "_IP_{index}", False),
    _contrail_id("R-46128", INSTANCE_IP, False, _VMI + "_v6_IP_{index}", True),
    _contrail_id("R-62187", INSTANCE_IP, True, _VMI + "_IP_{index}", False),
    _contrail_id("R-87563", INSTANCE_IP, True, _VMI + "_v6_IP_{index}", True),
]

RESOURCE_ID_RULES: list[type] = [
    *CONTAINS_RULES,
    ContrailNetworkId,
    VolumeId,
    VolumeAttachmentId,
    SubnetId,
    *CONTRAIL_ID_RULES,
]
