"""ONAP's resource id conventions beyond servers, networks and ports (beyond the seed),
summarised, not quoted; those no static check can decide say why."""

from __future__ import annotations

from stoker.lint.onap.requirement import IDS, PERMISSION, Requirement, beyond, unchecked

_SERVES = (
    "ONAP marks it validation_mode none: which vm-type or network a resource is "
    '"associated with" is the designer\'s intent, which a template does not state'
)
_APPLIES = (
    'which vm-types and networks the resource "applies to" is the designer\'s intent: the '
    "resources using it in one template need not be all of them"
)


def _contains(rid: str, kind: str, what: str) -> Requirement:
    return beyond(rid, "MUST", IDS, f"An {kind}'s resource id contains the {what}.")


def _serves(rid: str, text: str, keyword: str = "MUST") -> Requirement:
    """An id convention for what a resource serves, which the template does not state."""
    return unchecked(rid, keyword, IDS, text, _SERVES, "none")


def _applies(rid: str, text: str) -> Requirement:
    """An id convention for what a resource applies to, which its users do not tell."""
    return unchecked(rid, "SHOULD", IDS, text, _APPLIES)


def _may(rid: str, text: str) -> Requirement:
    """An id a resource may have: a permission."""
    return unchecked(rid, "MAY", IDS, text, PERMISSION)


RESOURCE_IDS: tuple[Requirement, ...] = (
    _serves(
        "R-54517", "A resource associated with a single {vm-type} has a resource id containing it."
    ),
    _serves(
        "R-96482",
        "A resource associated with a single external network has a resource id "
        "containing its {network-role}.",
    ),
    _serves(
        "R-98138",
        "A resource associated with a single internal network has a resource id "
        "containing int_{network-role}.",
    ),
    _serves(
        "R-82115",
        "A resource associated with one {vm-type} and one external network has an id "
        "containing both, the vm-type first ({vm-type}_{network-role}, "
        "{vm-type}_{index}_{network-role}).",
    ),
    _serves(
        "R-82551",
        "A resource associated with one {vm-type} and one internal network has an id "
        "containing both, the vm-type first ({vm-type}_int_{network-role}, ...).",
    ),
    _serves(
        "R-67793",
        "A resource associated with several vm-types or networks has no vm-type or network "
        "role in its id.",
        "MUST NOT",
    ),
    _may("R-27970", "A shared resource's id may contain 'shared' or text naming the VNF."),
    unchecked(
        "R-11690",
        "MUST",
        IDS,
        "An {index} in a resource id starts at zero and goes up by one.",
        "an id's index is known only within a convention that says where it is; those "
        "conventions check it (R-29751 servers, R-40971 and the address forms), and across "
        "the VNF an index need not start at zero in a given template",
        "static",
    ),
    beyond("R-87004", "SHOULD", IDS, "An OS::Cinder::Volume's id is {vm-type}_volume_{index}."),
    beyond(
        "R-86497",
        "SHOULD",
        IDS,
        "An OS::Cinder::VolumeAttachment's id is {vm-type}_volume_attachment_{index}.",
    ),
    _contains("R-04747", "OS::Heat::CloudConfig", "{vm-type}"),
    _may("R-20319", "A CloudConfig's id may be {vm-type}_RCC."),
    _contains("R-30804", "OS::Heat::MultipartMime", "{vm-type}"),
    _may("R-18202", "A MultipartMime's id may be {vm-type}_RMM."),
    _contains("R-08975", "OS::Heat::SoftwareConfig", "{vm-type}"),
    _may("R-03656", "A SoftwareConfig's id may be {vm-type}_RSC."),
    unchecked(
        "R-27469",
        "SHOULD",
        IDS,
        "An IPv4 reserve port's id is reserve_port_{vm-type}_{network-role}_floating_ip_{index}.",
        "nothing but this very id marks a port as a reserve port, so no template can be "
        "seen to break it",
        "none",
    ),
    unchecked(
        "R-68520",
        "SHOULD",
        IDS,
        "An IPv6 reserve port's id is "
        "reserve_port_{vm-type}_{network-role}_floating_v6_ip_{index}.",
        "nothing but this very id marks a port as a reserve port, so no template can be "
        "seen to break it",
        "none",
    ),
    _applies(
        "R-08775",
        "A security group for one vm-type and several networks is {vm-type}_security_group.",
    ),
    _applies(
        "R-03595",
        "A security group for several vm-types and one external network is "
        "{network-role}_security_group.",
    ),
    _applies(
        "R-73213",
        "A security group for several vm-types and one internal network is "
        "int_{network-role}_security_group.",
    ),
    _applies(
        "R-17334",
        "A security group for one vm-type and one external network is "
        "{vm-type}_{network-role}_security_group.",
    ),
    _applies(
        "R-14198",
        "A security group for one vm-type and one internal network is "
        "{vm-type}_int_{network-role}_security_group.",
    ),
    _may(
        "R-30005",
        "A security group shared widely may be shared_security_group or {vnf-type}_security_group.",
    ),
    beyond(
        "R-59434",
        "SHOULD",
        IDS,
        "An OS::Neutron::Subnet's id is int_{network-role}_subnet_{index}.",
    ),
    _applies("R-24997", "A keypair for one vm-type is {vm-type}_keypair_{index}."),
    _applies("R-65516", "A keypair for the whole VNF is {vnf-type}_keypair."),
    _may(
        "R-15189",
        "A server group's id may be {vm-type}_RSG, _Server_Grp, _ServerGroup or _servergroup.",
    ),
    beyond(
        "R-53310",
        "MUST",
        IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv4 on an external network's interface "
        "has the id {vm-type}_{vm-type_index}_{network-role}_vmi_{vmi_index}_IP_{index}.",
    ),
    beyond(
        "R-46128",
        "MUST",
        IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv6 on an external network's interface "
        "has the id {vm-type}_{vm-type_index}_{network-role}_vmi_{vmi_index}_v6_IP_{index}.",
    ),
    beyond(
        "R-62187",
        "MUST",
        IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv4 on an internal network's interface "
        "has the id {vm-type}_{vm-type_index}_int_{network-role}_vmi_{vmi_index}_IP_{index}.",
    ),
    beyond(
        "R-87563",
        "MUST",
        IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv6 on an internal network's interface "
        "has the id {vm-type}_{vm-type_index}_int_{network-role}_vmi_{vmi_index}_v6_IP_{index}.",
    ),
    _contains("R-81214", "OS::ContrailV2::InterfaceRouteTable", "{network-role}"),
    _may("R-28189", "An interface route table's id may be {network-role}_RIRT."),
    _contains("R-30753", "OS::ContrailV2::NetworkIpam", "{network-role} of its internal network"),
    _may("R-81979", "A network IPAM's id may be {network-role}_RNI."),
    _contains("R-20065", "OS::ContrailV2::PortTuple", "{vm-type}"),
    _may("R-84457", "A port tuple's id may be {vm-type}_RPT."),
    _contains("R-76014", "OS::ContrailV2::ServiceHealthCheck", "{vm-type}"),
    _may("R-65618", "A service health check's id may be {vm-type}_RSHC_{LEFT|RIGHT}."),
    _contains("R-16437", "OS::ContrailV2::ServiceTemplate", "{vm-type}"),
    _may("R-14447", "A service template's id may be {vm-type}_RST_{index}."),
    beyond(
        "R-96253",
        "MUST",
        IDS,
        "An OS::ContrailV2::VirtualMachineInterface on an external network has the id "
        "{vm-type}_{vm-type_index}_{network-role}_vmi_{vmi_index}.",
    ),
    beyond(
        "R-50468",
        "MUST",
        IDS,
        "An OS::ContrailV2::VirtualMachineInterface on an internal network has the id "
        "{vm-type}_{vm-type_index}_int_{network-role}_vmi_{vmi_index}.",
    ),
    beyond(
        "R-99110",
        "MUST",
        IDS,
        "An OS::ContrailV2::VirtualNetwork's id is int_{network-role}_network.",
    ),
)
