"""Cases for ONAP's resource id conventions beyond servers, networks and ports (beyond the
seed): a base module whose every resource keeps its convention; each case renames one
resource as the requirement's wording forbids."""

from __future__ import annotations

from .cases import Case

BASE = """\
heat_template_version: 2015-04-30
description: base module with resources named after their vm-type and network role
parameters:
  oam_net_id: {type: string, description: network}
  oam_net_fqdn: {type: string, description: network FQDN}
  lb_oam_ip_0: {type: string, description: address}
resources:
  lb_server_0:
    type: OS::Nova::Server
  lb_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
  int_ctrl_network:
    type: OS::ContrailV2::VirtualNetwork
  lb_config:
    type: OS::Heat::CloudConfig
  lb_mime:
    type: OS::Heat::MultipartMime
  lb_software:
    type: OS::Heat::SoftwareConfig
  lb_tuple:
    type: OS::ContrailV2::PortTuple
  lb_health:
    type: OS::ContrailV2::ServiceHealthCheck
  lb_template:
    type: OS::ContrailV2::ServiceTemplate
  oam_route_table:
    type: OS::ContrailV2::InterfaceRouteTable
  ctrl_ipam:
    type: OS::ContrailV2::NetworkIpam
  lb_volume_0:
    type: OS::Cinder::Volume
  lb_volume_attachment_0:
    type: OS::Cinder::VolumeAttachment
  int_ctrl_subnet_0:
    type: OS::Neutron::Subnet
  lb_0_oam_vmi_0:
    type: OS::ContrailV2::VirtualMachineInterface
    properties:
      virtual_network_refs: [{get_param: oam_net_fqdn}]
  lb_0_int_ctrl_vmi_0:
    type: OS::ContrailV2::VirtualMachineInterface
    properties:
      virtual_network_refs: [{get_resource: int_ctrl_network}]
  lb_0_oam_vmi_0_IP_0:
    type: OS::ContrailV2::InstanceIp
    properties:
      virtual_network_refs: [{get_param: oam_net_fqdn}]
      instance_ip_address: {get_param: lb_oam_ip_0}
  lb_0_oam_vmi_0_v6_IP_0:
    type: OS::ContrailV2::InstanceIp
    properties:
      virtual_network_refs: [{get_param: oam_net_fqdn}]
      instance_ip_family: v6
  lb_0_int_ctrl_vmi_0_IP_0:
    type: OS::ContrailV2::InstanceIp
    properties:
      virtual_network_refs: [{get_resource: int_ctrl_network}]
  lb_0_int_ctrl_vmi_0_v6_IP_0:
    type: OS::ContrailV2::InstanceIp
    properties:
      virtual_network_refs: [{get_resource: int_ctrl_network}]
      instance_ip_family: v6
"""
PACKAGE = {"base_lb.yaml": BASE, "base_lb.env": "parameters:\n  lb_oam_ip_0: 10.0.0.1\n"}
B = "base_lb.yaml"


def renamed(old: str, new: str) -> dict[str, str]:
    """The package with resource ``old`` renamed ``new`` (references too)."""
    assert f"  {old}:\n" in BASE, old
    text = BASE.replace(f"  {old}:\n", f"  {new}:\n").replace(f": {old}}}", f": {new}}}")
    return {**PACKAGE, B: text}


def case(rule: str, old: str, new: str, line: int) -> Case:
    return Case(rule, renamed(old, new), [(B, line, 3)], ok=PACKAGE, profiles=("onap",))


RESOURCE_ID_CASES: list[Case] = [
    case("R-99110", "int_ctrl_network", "ctrl_network", 14),
    case("R-04747", "lb_config", "boot_config", 16),
    case("R-30804", "lb_mime", "boot_mime", 18),
    case("R-08975", "lb_software", "boot_software", 20),
    case("R-20065", "lb_tuple", "tuple", 22),
    case("R-76014", "lb_health", "health", 24),
    case("R-16437", "lb_template", "template", 26),
    case("R-81214", "oam_route_table", "route_table", 28),
    case("R-30753", "ctrl_ipam", "ipam", 30),
    case("R-87004", "lb_volume_0", "lb_disk_0", 32),
    case("R-86497", "lb_volume_attachment_0", "lb_attach_0", 34),
    case("R-59434", "int_ctrl_subnet_0", "ctrl_subnet", 36),
    case("R-96253", "lb_0_oam_vmi_0", "lb_oam_vmi", 38),
    case("R-50468", "lb_0_int_ctrl_vmi_0", "lb_0_ctrl_vmi_0", 42),
    case("R-53310", "lb_0_oam_vmi_0_IP_0", "lb_0_oam_ip_0", 46),
    case("R-46128", "lb_0_oam_vmi_0_v6_IP_0", "lb_0_oam_vmi_0_IP_1", 51),
    case("R-62187", "lb_0_int_ctrl_vmi_0_IP_0", "lb_0_ctrl_vmi_0_IP_0", 56),
    case("R-87563", "lb_0_int_ctrl_vmi_0_v6_IP_0", "lb_0_int_ctrl_vmi_0_IP_1", 60),
]

#: two vm-types, each with its own image and flavor parameter, and a port per server
SERVERS = """\
heat_template_version: 2015-04-30
description: two vm-types
parameters:
  lb_image_name: {type: string, description: image}
  lb_flavor_name: {type: string, description: flavor}
  db_image_name: {type: string, description: image}
  db_flavor_name: {type: string, description: flavor}
  oam_net_id: {type: string, description: network}
resources:
  lb_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
  lb_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: lb_image_name}
      flavor: {get_param: lb_flavor_name}
      networks: [{port: {get_resource: lb_0_oam_port_0}}]
  db_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: db_image_name}
      flavor: {get_param: db_flavor_name}
"""
SERVERS_PACKAGE = {"base_two.yaml": SERVERS, "base_two.env": "parameters:\n  lb_image_name: i\n"}


def servers_changed(old: str, new: str) -> dict[str, str]:
    assert old in SERVERS, old
    return {**SERVERS_PACKAGE, "base_two.yaml": SERVERS.replace(old, new, 1)}


RESOURCE_ID_CASES += [
    Case(
        "R-57282",
        servers_changed("image: {get_param: db_image_name}", "image: {get_param: lb_image_name}"),
        [("base_two.yaml", 23, 14)],
        ok=SERVERS_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-40499",
        servers_changed(
            "flavor: {get_param: db_flavor_name}", "flavor: {get_param: lb_flavor_name}"
        ),
        [("base_two.yaml", 24, 15)],
        ok=SERVERS_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-304011",
        servers_changed("  lb_server_0:\n", "  lb_server_1:\n"),
        [("base_two.yaml", 19, 25)],
        ok=SERVERS_PACKAGE,
        profiles=("onap",),
        name="port-index",
    ),
]

LB_SERVER_1 = (
    "  lb_server_1:\n    type: OS::Nova::Server\n    properties:\n"
    "      image: {get_param: lb_image_name}\n      flavor: {get_param: lb_flavor_name}\n"
)


def servers_added(text: str) -> dict[str, str]:
    return {**SERVERS_PACKAGE, "base_two.yaml": SERVERS + text}


def renamed_parameter(old: str, new: str) -> dict[str, str]:
    text = SERVERS.replace(f"  {old}: {{", f"  {new}: {{").replace(f": {old}}}", f": {new}}}")
    return {**SERVERS_PACKAGE, "base_two.yaml": text}


def vm_case(rule: str, fail: dict[str, str], at: tuple[int, int]) -> Case:
    return Case(rule, fail, [("base_two.yaml", *at)], ok=SERVERS_PACKAGE, profiles=("onap",))


RESOURCE_ID_CASES += [
    vm_case("R-01455", servers_added(LB_SERVER_1), (25, 3)),
    vm_case("R-98407", servers_changed("  db_server_0:\n", "  int_db_server_0:\n"), (20, 3)),
    vm_case("R-48067", servers_changed("  db_server_0:\n", "  oa_server_0:\n"), (20, 3)),
    vm_case("R-32394", renamed_parameter("db_image_name", "DB_image_name"), (24, 15)),
    vm_case("R-46839", servers_added(LB_SERVER_1.replace("lb_server_1", "LB_server_1")), (25, 3)),
    vm_case("R-36687", renamed_parameter("db_image_name", "DB_image_name"), (23, 14)),
]


def port(name: str, parameter: str) -> str:
    return (
        f"  {name}:\n    type: OS::Neutron::Port\n    properties:\n"
        f"      network: {{get_param: {parameter}}}\n"
    )


OAM_UPPER = servers_changed(
    "  oam_net_id: {type", "  OAM_net_id: {type: string, description: n}\n  oam_net_id: {type"
)
OAM_UPPER["base_two.yaml"] += port("lb_1_oam_port_0", "OAM_net_id")

RESOURCE_ID_CASES += [
    vm_case("R-26506", servers_changed("lb_0_oam_port_0", "lb_0_oam_v6_port_0"), (10, 3)),
    vm_case("R-00977", servers_changed("  db_server_0:\n", "  oamdb_server_0:\n"), (10, 3)),
    vm_case("R-58424", OAM_UPPER, (26, 3)),
    vm_case("R-21511", servers_added(port("lb_1_OAM_port_0", "oam_net_id")), (25, 3)),
    vm_case("R-86588", servers_added(port("lb_1_OAM_port_0", "oam_net_id")), (25, 3)),
]

#: a base module with its volume module, which makes its volume through a nested file
VOLUME_PACKAGE = {
    "base_db.yaml": (
        "heat_template_version: 2015-04-30\ndescription: base\n"
        "parameters:\n  db_volume_id_0: {type: string, description: volume}\n"
        "resources:\n  db_volume_attachment_0:\n    type: OS::Cinder::VolumeAttachment\n"
        "    properties:\n      volume_id: {get_param: db_volume_id_0}\n"
    ),
    "base_db.env": "parameters: {}\n",
    "base_db_volume.yaml": (
        "heat_template_version: 2015-04-30\ndescription: volume module\n"
        "parameters:\n  db_volume_size_0: {type: number, description: size}\n"
        "resources:\n  db_volume_group:\n    type: db_nested_volume.yaml\n"
        "    properties:\n      db_volume_size_0: {get_param: db_volume_size_0}\n"
        "outputs:\n  db_volume_id_0:\n    value: {get_attr: [db_volume_group, db_volume_id_0]}\n"
    ),
    "base_db_volume.env": "parameters:\n  db_volume_size_0: 10\n",
    "db_nested_volume.yaml": (
        "heat_template_version: 2015-04-30\ndescription: the volume\n"
        "parameters:\n  db_volume_size_0: {type: number, description: size}\n"
        "resources:\n  db_volume_0:\n    type: OS::Cinder::Volume\n"
        "    properties:\n      size: {get_param: db_volume_size_0}\n"
        "outputs:\n  db_volume_id_0:\n    value: {get_resource: db_volume_0}\n"
    ),
}


def volume_changed(file: str, old: str, new: str) -> dict[str, str]:
    assert old in VOLUME_PACKAGE[file], old
    return {**VOLUME_PACKAGE, file: VOLUME_PACKAGE[file].replace(old, new, 1)}


RESOURCE_ID_CASES += [
    Case(
        "R-270358",
        volume_changed("db_nested_volume.yaml", "type: OS::Cinder::Volume", "type: OS::Heat::None"),
        [("base_db_volume.yaml", 1, 1)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-25190",
        volume_changed(
            "db_nested_volume.yaml",
            "      size: {get_param: db_volume_size_0}\n",
            "      size: {get_param: db_volume_size_0}\n      availability_zone: nova\n",
        ),
        [("db_nested_volume.yaml", 10, 7)],
        ok=VOLUME_PACKAGE,
        profiles=("onap",),
    ),
]

#: a base module of shared resources, and an incremental module whose server is nested
MODULES = {
    "base_vnf.yaml": (
        "heat_template_version: 2015-04-30\ndescription: shared resources\n"
        "resources:\n  int_ctrl_network:\n    type: OS::Neutron::Net\n"
    ),
    "base_vnf.env": "parameters: {}\n",
    "lb_module.yaml": (
        "heat_template_version: 2015-04-30\ndescription: an lb\n"
        "resources:\n  lb_unit:\n    type: lb_nested.yaml\n"
    ),
    "lb_module.env": "parameters: {}\n",
    "lb_nested.yaml": (
        "heat_template_version: 2015-04-30\ndescription: the server\n"
        "resources:\n  lb_server_0:\n    type: OS::Nova::Server\n"
    ),
}
RESOURCE_ID_CASES += [
    Case(
        "R-610030",
        {
            **MODULES,
            "lb_nested.yaml": MODULES["lb_nested.yaml"].replace("Nova::Server", "Heat::None"),
        },
        [("lb_module.yaml", 1, 1)],
        ok=MODULES,
        profiles=("onap",),
    ),
    Case(
        "R-610015",
        {
            **MODULES,
            "base_vnf.yaml": MODULES["base_vnf.yaml"]
            + "  db_server_0:\n    type: OS::Nova::Server\n",
        },
        [("base_vnf.yaml", 6, 3)],
        ok=MODULES,
        profiles=("onap",),
    ),
]
