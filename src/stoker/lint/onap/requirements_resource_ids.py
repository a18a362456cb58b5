"""ONAP's resource id conventions beyond servers, networks and ports (beyond the seed),
summarised, not quoted; those no static check can decide say why."""

from __future__ import annotations

from stoker.lint.onap.requirement import Requirement, beyond, unchecked

_IDS = "5.2.3 ONAP Heat Resource ID and Parameter Naming Convention: Resource IDs"
_MAY = "a MAY permission: nothing a template does can violate it"
_SERVES = (
    "ONAP marks it validation_mode none: which vm-type or network a resource is "
    '"associated with" is the designer\'s intent, which a template does not state'
)
_APPLIES = (
    'which vm-types and networks the resource "applies to" is the designer\'s intent: the '
    "resources using it in one template need not be all of them"
)


def _contains(rid: str, kind: str, what: str) -> Requirement:
    return beyond(rid, "MUST", _IDS, f"An {kind}'s resource id contains the {what}.")


RESOURCE_IDS: tuple[Requirement, ...] = (
    unchecked(
        "R-54517",
        "MUST",
        _IDS,
        "A resource associated with a single {vm-type} has a resource id containing it.",
        _SERVES,
        "none",
    ),
    unchecked(
        "R-96482",
        "MUST",
        _IDS,
        "A resource associated with a single external network has a resource id "
        "containing its {network-role}.",
        _SERVES,
        "none",
    ),
    unchecked(
        "R-98138",
        "MUST",
        _IDS,
        "A resource associated with a single internal network has a resource id "
        "containing int_{network-role}.",
        _SERVES,
        "none",
    ),
    unchecked(
        "R-82115",
        "MUST",
        _IDS,
        "A resource associated with one {vm-type} and one external network has an id "
        "containing both, the vm-type first ({vm-type}_{network-role}, "
        "{vm-type}_{index}_{network-role}).",
        _SERVES,
        "none",
    ),
    unchecked(
        "R-82551",
        "MUST",
        _IDS,
        "A resource associated with one {vm-type} and one internal network has an id "
        "containing both, the vm-type first ({vm-type}_int_{network-role}, ...).",
        _SERVES,
        "none",
    ),
    unchecked(
        "R-67793",
        "MUST NOT",
        _IDS,
        "A resource associated with several vm-types or networks has no vm-type or network "
        "role in its id.",
        _SERVES,
        "none",
    ),
    unchecked(
        "R-27970",
        "MAY",
        _IDS,
        "A shared resource's id may contain 'shared' or text naming the VNF.",
        _MAY,
    ),
    unchecked(
        "R-11690",
        "MUST",
        _IDS,
        "An {index} in a resource id starts at zero and goes up by one.",
        "an id's index is known only within a convention that says where it is; those "
        "conventions check it (R-29751 servers, R-40971 and the address forms), and across "
        "the VNF an index need not start at zero in a given template",
        "static",
    ),
    beyond("R-87004", "SHOULD", _IDS, "An OS::Cinder::Volume's id is {vm-type}_volume_{index}."),
    beyond(
        "R-86497",
        "SHOULD",
        _IDS,
        "An OS::Cinder::VolumeAttachment's id is {vm-type}_volume_attachment_{index}.",
    ),
    _contains("R-04747", "OS::Heat::CloudConfig", "{vm-type}"),
    unchecked("R-20319", "MAY", _IDS, "A CloudConfig's id may be {vm-type}_RCC.", _MAY),
    _contains("R-30804", "OS::Heat::MultipartMime", "{vm-type}"),
    unchecked("R-18202", "MAY", _IDS, "A MultipartMime's id may be {vm-type}_RMM.", _MAY),
    _contains("R-08975", "OS::Heat::SoftwareConfig", "{vm-type}"),
    unchecked("R-03656", "MAY", _IDS, "A SoftwareConfig's id may be {vm-type}_RSC.", _MAY),
    unchecked(
        "R-27469",
        "SHOULD",
        _IDS,
        "An IPv4 reserve port's id is reserve_port_{vm-type}_{network-role}_floating_ip_{index}.",
        "nothing but this very id marks a port as a reserve port, so no template can be "
        "seen to break it",
        "none",
    ),
    unchecked(
        "R-68520",
        "SHOULD",
        _IDS,
        "An IPv6 reserve port's id is "
        "reserve_port_{vm-type}_{network-role}_floating_v6_ip_{index}.",
        "nothing but this very id marks a port as a reserve port, so no template can be "
        "seen to break it",
        "none",
    ),
    unchecked(
        "R-08775",
        "SHOULD",
        _IDS,
        "A security group for one vm-type and several networks is {vm-type}_security_group.",
        _APPLIES,
    ),
    unchecked(
        "R-03595",
        "SHOULD",
        _IDS,
        "A security group for several vm-types and one external network is "
        "{network-role}_security_group.",
        _APPLIES,
    ),
    unchecked(
        "R-73213",
        "SHOULD",
        _IDS,
        "A security group for several vm-types and one internal network is "
        "int_{network-role}_security_group.",
        _APPLIES,
    ),
    unchecked(
        "R-17334",
        "SHOULD",
        _IDS,
        "A security group for one vm-type and one external network is "
        "{vm-type}_{network-role}_security_group.",
        _APPLIES,
    ),
    unchecked(
        "R-14198",
        "SHOULD",
        _IDS,
        "A security group for one vm-type and one internal network is "
        "{vm-type}_int_{network-role}_security_group.",
        _APPLIES,
    ),
    unchecked(
        "R-30005",
        "MAY",
        _IDS,
        "A security group shared widely may be shared_security_group or {vnf-type}_security_group.",
        _MAY,
    ),
    beyond(
        "R-59434",
        "SHOULD",
        _IDS,
        "An OS::Neutron::Subnet's id is int_{network-role}_subnet_{index}.",
    ),
    unchecked(
        "R-24997",
        "SHOULD",
        _IDS,
        "A keypair for one vm-type is {vm-type}_keypair_{index}.",
        _APPLIES,
    ),
    unchecked(
        "R-65516", "SHOULD", _IDS, "A keypair for the whole VNF is {vnf-type}_keypair.", _APPLIES
    ),
    unchecked(
        "R-15189",
        "MAY",
        _IDS,
        "A server group's id may be {vm-type}_RSG, _Server_Grp, _ServerGroup or _servergroup.",
        _MAY,
    ),
    beyond(
        "R-53310",
        "MUST",
        _IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv4 on an external network's interface "
        "has the id {vm-type}_{vm-type_index}_{network-role}_vmi_{vmi_index}_IP_{index}.",
    ),
    beyond(
        "R-46128",
        "MUST",
        _IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv6 on an external network's interface "
        "has the id {vm-type}_{vm-type_index}_{network-role}_vmi_{vmi_index}_v6_IP_{index}.",
    ),
    beyond(
        "R-62187",
        "MUST",
        _IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv4 on an internal network's interface "
        "has the id {vm-type}_{vm-type_index}_int_{network-role}_vmi_{vmi_index}_IP_{index}.",
    ),
    beyond(
        "R-87563",
        "MUST",
        _IDS,
        "An OS::ContrailV2::InstanceIp configuring IPv6 on an internal network's interface "
        "has the id {vm-type}_{vm-type_index}_int_{network-role}_vmi_{vmi_index}_v6_IP_{index}.",
    ),
    _contains("R-81214", "OS::ContrailV2::InterfaceRouteTable", "{network-role}"),
    unchecked(
        "R-28189", "MAY", _IDS, "An interface route table's id may be {network-role}_RIRT.", _MAY
    ),
    _contains("R-30753", "OS::ContrailV2::NetworkIpam", "{network-role} of its internal network"),
    unchecked("R-81979", "MAY", _IDS, "A network IPAM's id may be {network-role}_RNI.", _MAY),
    _contains("R-20065", "OS::ContrailV2::PortTuple", "{vm-type}"),
    unchecked("R-84457", "MAY", _IDS, "A port tuple's id may be {vm-type}_RPT.", _MAY),
    _contains("R-76014", "OS::ContrailV2::ServiceHealthCheck", "{vm-type}"),
    unchecked(
        "R-65618",
        "MAY",
        _IDS,
        "A service health check's id may be {vm-type}_RSHC_{LEFT|RIGHT}.",
        _MAY,
    ),
    _contains("R-16437", "OS::ContrailV2::ServiceTemplate", "{vm-type}"),
    unchecked(
        "R-14447", "MAY", _IDS, "A service template's id may be {vm-type}_RST_{index}.", _MAY
    ),
    beyond(
        "R-96253",
        "MUST",
        _IDS,
        "An OS::ContrailV2::VirtualMachineInterface on an external network has the id "
        "{vm-type}_{vm-type_index}_{network-role}_vmi_{vmi_index}.",
    ),
    beyond(
        "R-50468",
        "MUST",
        _IDS,
        "An OS::ContrailV2::VirtualMachineInterface on an internal network has the id "
        "{vm-type}_{vm-type_index}_int_{network-role}_vmi_{vmi_index}.",
    ),
    beyond(
        "R-99110",
        "MUST",
        _IDS,
        "An OS::ContrailV2::VirtualNetwork's id is int_{network-role}_network.",
    ),
)
