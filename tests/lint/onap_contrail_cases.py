"""Cases for ONAP's Contrail resource parameters (beyond the seed): a base module with
virtual machine interfaces and instance IPs on an external and an internal network, an
interface route table, and an incremental module with instance IPs on the base module's
internal network; each case breaks one convention as the requirement's wording forbids."""

from __future__ import annotations

from .cases import Case

PAIRS = "virtual_machine_interface_allowed_address_pairs"
PAIR = PAIRS + "_allowed_address_pair"
IP = PAIR + "_ip"
PREFIX = IP + "_ip_prefix"
IIP = "OS::ContrailV2::InstanceIp"
VMI = "OS::ContrailV2::VirtualMachineInterface"


def interface(name: str, network: str, *vips: str) -> str:
    pairs = "".join(
        f"          - {IP}:\n              {PREFIX}: {{get_param: {v}}}\n" for v in vips
    )
    return (
        f"  {name}:\n    type: {VMI}\n    properties:\n"
        f"      virtual_network_refs: [{network}]\n      {PAIRS}:\n        {PAIR}:\n{pairs}"
    )


def instance_ip(name: str, network: str, prop: str, value: str) -> str:
    return (
        f"  {name}:\n    type: {IIP}\n    properties:\n"
        f"      virtual_network_refs: [{network}]\n      {prop}: {value}\n"
    )


EXT, INT = "{get_param: oam_net_fqdn}", "{get_resource: int_ctrl_network}"
BASE = (
    """\
heat_template_version: 2015-04-30
description: base module with Contrail interfaces
parameters:
  oam_net_fqdn: {type: string, description: external network FQDN}
  oam_subnet_id: {type: string, description: IPv4 subnet}
  oam_v6_subnet_id: {type: string, description: IPv6 subnet}
  fw_oam_ip_0: {type: string, description: address}
  fw_oam_ips: {type: comma_delimited_list, description: addresses}
  fw_oam_v6_ip_0: {type: string, description: IPv6 address}
  fw_oam_v6_ips: {type: comma_delimited_list, description: IPv6 addresses}
  fw_oam_floating_ip: {type: string, description: VIP}
  fw_oam_floating_v6_ip: {type: string, description: IPv6 VIP}
  fw_int_ctrl_ip_0: {type: string, description: internal address}
  fw_int_ctrl_ips: {type: comma_delimited_list, description: internal addresses}
  fw_int_ctrl_v6_ip_0: {type: string, description: internal IPv6 address}
  fw_int_ctrl_v6_ips: {type: comma_delimited_list, description: internal IPv6 addresses}
  fw_int_ctrl_floating_ip: {type: string, description: internal VIP}
  fw_int_ctrl_floating_v6_ip: {type: string, description: internal IPv6 VIP}
  fw_oam_route_prefixes: {type: json, description: route prefixes}
resources:
  int_ctrl_network:
    type: OS::ContrailV2::VirtualNetwork
  fw_oam_route_table:
    type: OS::ContrailV2::InterfaceRouteTable
    properties:
      interface_route_table_routes:
        interface_route_table_routes_route: {get_param: fw_oam_route_prefixes}
"""
    + interface("fw_0_oam_vmi_0", EXT, "fw_oam_floating_ip", "fw_oam_floating_v6_ip")
    + interface("fw_0_int_ctrl_vmi_0", INT, "fw_int_ctrl_floating_ip", "fw_int_ctrl_floating_v6_ip")
    + instance_ip("fw_0_oam_ip_0", EXT, "instance_ip_address", "{get_param: fw_oam_ip_0}")
    + instance_ip("fw_0_oam_ip_1", EXT, "instance_ip_address", "{get_param: [fw_oam_ips, 1]}")
    + instance_ip("fw_0_oam_ip_2", EXT, "instance_ip_address", "{get_param: fw_oam_v6_ip_0}")
    + instance_ip("fw_0_oam_ip_3", EXT, "instance_ip_address", "{get_param: [fw_oam_v6_ips, 1]}")
    + instance_ip("fw_0_oam_ip_4", EXT, "subnet_uuid", "{get_param: oam_subnet_id}")
    + instance_ip("fw_0_oam_ip_5", EXT, "subnet_uuid", "{get_param: oam_v6_subnet_id}")
    + instance_ip("fw_0_ctrl_ip_0", INT, "instance_ip_address", "{get_param: fw_int_ctrl_ip_0}")
    + instance_ip("fw_0_ctrl_ip_1", INT, "instance_ip_address", "{get_param: [fw_int_ctrl_ips, 1]}")
    + instance_ip("fw_0_ctrl_ip_2", INT, "instance_ip_address", "{get_param: fw_int_ctrl_v6_ip_0}")
    + instance_ip(
        "fw_0_ctrl_ip_3", INT, "instance_ip_address", "{get_param: [fw_int_ctrl_v6_ips, 1]}"
    )
)
BASE_ENV = """\
parameters:
  fw_int_ctrl_ip_0: 10.1.0.1
  fw_int_ctrl_ips: 10.1.0.1,10.1.0.2
  fw_int_ctrl_v6_ip_0: fd00::1
  fw_int_ctrl_v6_ips: fd00::1,fd00::2
  fw_int_ctrl_floating_ip: 10.1.0.9
  fw_int_ctrl_floating_v6_ip: fd00::9
"""
INCREMENTAL = (
    """\
heat_template_version: 2015-04-30
description: incremental module with instance IPs on the base module's internal network
parameters:
  int_ctrl_net_fqdn: {type: string, description: internal network}
  int_ctrl_subnet_id: {type: string, description: IPv4 subnet}
  int_ctrl_v6_subnet_id: {type: string, description: IPv6 subnet}
resources:
"""
    + instance_ip(
        "db_0_ctrl_ip_0",
        "{get_param: int_ctrl_net_fqdn}",
        "subnet_uuid",
        "{get_param: int_ctrl_subnet_id}",
    )
    + instance_ip(
        "db_0_ctrl_ip_1",
        "{get_param: int_ctrl_net_fqdn}",
        "subnet_uuid",
        "{get_param: int_ctrl_v6_subnet_id}",
    )
)
PACKAGE = {
    "base_fw.yaml": BASE,
    "base_fw.env": BASE_ENV,
    "db_fw.yaml": INCREMENTAL,
    "db_fw.env": "parameters:\n  unused: 1\n",
}
B, INC, BE, IE = "base_fw.yaml", "db_fw.yaml", "base_fw.env", "db_fw.env"


def rename(old: str, new: str, file: str = B) -> dict[str, str]:
    """A parameter renamed where it is declared, read, and given a value."""
    files = dict(PACKAGE)
    files[file] = files[file].replace(f"  {old}: {{type", f"  {new}: {{type", 1)
    files[file] = files[file].replace(f"get_param: {old}}}", f"get_param: {new}}}")
    files[file] = files[file].replace(f"get_param: [{old},", f"get_param: [{new},")
    env = file.replace(".yaml", ".env")
    files[env] = files[env].replace(f"  {old}:", f"  {new}:")
    return files


def changed(file: str, old: str, new: str) -> dict[str, str]:
    files = dict(PACKAGE)
    assert old in files[file], old
    files[file] = files[file].replace(old, new, 1)
    return files


def added(env: str, line: str) -> dict[str, str]:
    """The package with one more value in ``env``, first of its parameters."""
    return changed(env, "parameters:\n", f"parameters:\n  {line}\n")


def removed(line: str) -> dict[str, str]:
    return changed(BE, f"  {line}\n", "")


def case(rule: str, fail: dict[str, str], at: list[tuple[str, int, int]]) -> Case:
    return Case(rule, fail, at, ok=PACKAGE, profiles=("onap",))


CONTRAIL_CASES: list[Case] = [
    case(
        "R-02164",
        rename("oam_net_fqdn", "oam_network"),
        [(B, 31, 30), (B, 51, 30), (B, 56, 30), (B, 61, 30), (B, 66, 30), (B, 71, 30), (B, 76, 30)],
    ),
    case("R-92193", added(BE, "oam_net_fqdn: default-domain:p:oam"), [(BE, 2, 3)]),
    case("R-28222", rename("fw_oam_route_prefixes", "fw_routes"), [(B, 27, 45)]),
    case(
        "R-19756",
        changed(B, "fw_oam_route_prefixes: {type: json", "fw_oam_route_prefixes: {type: string"),
        [(B, 27, 45)],
    ),
    case("R-76682", added(BE, "fw_oam_route_prefixes: []"), [(B, 27, 45)]),
    case(
        "R-100000",
        changed(B, "fw_oam_ips: {type: comma_delimited_list", "fw_oam_ips: {type: json"),
        [(B, 8, 22)],
    ),
    case("R-100010", rename("fw_oam_ip_0", "fw_oam_address_0"), [(B, 52, 28)]),
    case("R-100020", added(BE, "fw_oam_ip_0: 10.0.0.1"), [(BE, 2, 3)]),
    case("R-100030", rename("fw_oam_ips", "fw_oam_addresses"), [(B, 57, 28)]),
    case("R-100040", added(BE, "fw_oam_ips: 10.0.0.1"), [(BE, 2, 3)]),
    case("R-100050", rename("fw_oam_v6_ip_0", "fw_oam_v6_address"), [(B, 62, 28)]),
    case("R-100060", added(BE, "fw_oam_v6_ip_0: fd00::5"), [(BE, 2, 3)]),
    case("R-100070", rename("fw_oam_v6_ips", "fw_oam_v6_addresses"), [(B, 67, 28)]),
    case("R-100080", added(BE, "fw_oam_v6_ips: fd00::5"), [(BE, 2, 3)]),
    case("R-100090", rename("fw_int_ctrl_ip_0", "fw_int_ctrl_address_0"), [(B, 82, 28)]),
    case("R-100100", removed("fw_int_ctrl_ip_0: 10.1.0.1"), [(B, 13, 3)]),
    case("R-100110", rename("fw_int_ctrl_ips", "fw_int_ctrl_addresses"), [(B, 87, 28)]),
    case("R-100120", removed("fw_int_ctrl_ips: 10.1.0.1,10.1.0.2"), [(B, 14, 3)]),
    case("R-100130", rename("fw_int_ctrl_v6_ip_0", "fw_int_ctrl_v6_address"), [(B, 92, 28)]),
    case("R-100140", removed("fw_int_ctrl_v6_ip_0: fd00::1"), [(B, 15, 3)]),
    case("R-100150", rename("fw_int_ctrl_v6_ips", "fw_int_ctrl_v6_addresses"), [(B, 97, 28)]),
    case("R-100160", removed("fw_int_ctrl_v6_ips: fd00::1,fd00::2"), [(B, 16, 3)]),
    case("R-100170", added(BE, "fw_oam_ip_0: 10.0.0.1"), [(BE, 2, 3)]),
    case("R-100180", removed("fw_int_ctrl_ips: 10.1.0.1,10.1.0.2"), [(B, 14, 3)]),
    case(
        "R-100190",
        changed(B, "oam_subnet_id: {type: string", "oam_subnet_id: {type: number"),
        [(B, 5, 25)],
    ),
    case("R-100200", rename("oam_subnet_id", "oam_subnet"), [(B, 72, 20)]),
    case("R-100210", added(BE, "oam_subnet_id: s"), [(BE, 2, 3)]),
    case("R-100220", rename("oam_v6_subnet_id", "oam_subnet_v6"), [(B, 77, 20)]),
    case("R-100230", added(BE, "oam_v6_subnet_id: s"), [(BE, 2, 3)]),
    case("R-100240", rename("int_ctrl_subnet_id", "ctrl_subnet_id", INC), [(INC, 12, 20)]),
    case("R-100250", added(IE, "int_ctrl_subnet_id: s"), [(IE, 2, 3)]),
    case("R-100260", rename("int_ctrl_v6_subnet_id", "ctrl_v6_subnet_id", INC), [(INC, 17, 20)]),
    case("R-100270", added(IE, "int_ctrl_v6_subnet_id: s"), [(IE, 2, 3)]),
    case("R-100280", added(BE, "fw_oam_floating_ip: 10.0.0.9"), [(BE, 2, 3)]),
    case("R-100310", rename("fw_oam_floating_ip", "fw_oam_vip"), [(B, 35, 98)]),
    case(
        "R-100330",
        changed(B, "fw_oam_floating_v6_ip: {type: string", "fw_oam_floating_v6_ip: {type: json"),
        [(B, 37, 98)],
    ),
    case(
        "R-100350",
        changed(
            B,
            "  fw_0_int_ctrl_vmi_0:\n",
            "    metadata:\n      aap_exempt: [fw_oam_ip_0]\n  fw_0_int_ctrl_vmi_0:\n",
        ),
        [(B, 39, 20)],
    ),
    case("R-100360", removed("fw_int_ctrl_floating_ip: 10.1.0.9"), [(B, 45, 98)]),
    case(
        "R-100370",
        rename("fw_int_ctrl_floating_v6_ip", "fw_int_ctrl_v6_vip"),
        [(B, 47, 98)],
    ),
]
