"""ONAP's resource ids for networks and ports (beyond the seed's 5.2.2).

A VNF's templates create only internal networks, named ``int_{network-role}_network``. A
port is on an internal network when its network is one the package creates (a
get_resource) or a parameter named ``int_...``; any other port is on an external network.
The two kinds of port ids differ by the ``int_`` before the network role.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stoker.diagnostics import Diagnostic
from stoker.lint.context import TemplateContext
from stoker.lint.onap.base import FromRequirement
from stoker.lint.onap.ports import NETWORK_ID
from stoker.lint.onap.requirements import requirement
from stoker.lint.onap.resource_ids import IdForm
from stoker.lint.onap.written import parameter_read, resources_of
from stoker.lint.rule import TemplateRule
from stoker.patterns import LazyPattern

EXTERNAL_PORT = LazyPattern(r"^.+_\d+_(?!int_).+_port_\d+$")
INTERNAL_PORT = LazyPattern(r"^.+_\d+_int_.+_port_\d+$")


def is_internal(port: dict[Any, Any]) -> bool | None:
    """Whether a port's network is internal; None when its network cannot be told."""
    properties = port.get("properties")
    network = properties.get("network") if isinstance(properties, dict) else None
    if isinstance(network, dict) and "get_resource" in network:
        return True
    parameter = parameter_read(network)
    if parameter is None:
        return None
    return parameter.startswith("int_")


class NetworkResourceId(IdForm):
    requirement = requirement("R-25720")
    summary = "An OS::Neutron::Net's resource id is int_{network-role}_network"
    checks = "each OS::Neutron::Net's resource id matches int_<role>_network."
    resource_type, noun = "OS::Neutron::Net", "network"
    pattern, form = NETWORK_ID, "int_{network-role}_network"


class _PortResourceId(FromRequirement, TemplateRule):
    internal: bool
    pattern: LazyPattern
    form: str

    def check(self, ctx: TemplateContext) -> Iterable[Diagnostic]:
        for name, definition, span in resources_of(ctx, "OS::Neutron::Port"):
            if is_internal(definition) is self.internal and not self.pattern.match(name):
                where = "an internal" if self.internal else "an external"
                yield self.finding(
                    f'port "{name}" is on {where} network; its resource id must read {self.form}',
                    span,
                    ("resources", name),
                )


class ExternalPortResourceId(_PortResourceId):
    requirement = requirement("R-20453")
    summary = "An external network's port id is {vm-type}_{index}_{network-role}_port_{index}"
    checks = (
        "each OS::Neutron::Port whose network is a get_param of a parameter not named "
        "int_... has a resource id matching <vm-type>_<digits>_<role>_port_<digits> (the "
        "role not starting with int_)."
    )
    internal = False
    pattern = EXTERNAL_PORT
    form = "{vm-type}_{vm-type_index}_{network-role}_port_{port-index}"


class InternalPortResourceId(_PortResourceId):
    requirement = requirement("R-26351")
    summary = "An internal network's port id is {vm-type}_{index}_int_{network-role}_port_{index}"
    checks = (
        "each OS::Neutron::Port whose network is a get_resource (a network of the VNF) or "
        "a get_param of an int_... parameter has a resource id matching "
        "<vm-type>_<digits>_int_<role>_port_<digits>."
    )
    internal = True
    pattern = INTERNAL_PORT
    form = "{vm-type}_{vm-type_index}_int_{network-role}_port_{port-index}"
