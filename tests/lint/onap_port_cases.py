"""Cases for ONAP's OS::Neutron::Port parameter conventions (beyond the seed): a base module
with a port on an external network and one on an internal network, an incremental module
with a port on the base module's internal network; each requirement's case changes one
thing the convention's wording forbids."""

from __future__ import annotations

from .cases import Case

BASE = """\
heat_template_version: 2015-04-30
description: base module with an external and an internal port
parameters:
  oam_net_id: {type: string, description: external network}
  oam_subnet_id: {type: string, description: IPv4 subnet}
  oam_v6_subnet_id: {type: string, description: IPv6 subnet}
  lb_oam_ip_0: {type: string, description: address}
  lb_oam_ips: {type: comma_delimited_list, description: addresses}
  lb_oam_v6_ip_0: {type: string, description: IPv6 address}
  lb_oam_v6_ips: {type: comma_delimited_list, description: IPv6 addresses}
  lb_oam_floating_ip: {type: string, description: VIP}
  lb_oam_floating_v6_ip: {type: string, description: IPv6 VIP}
  lb_int_ctrl_ip_0: {type: string, description: internal address}
  lb_int_ctrl_ips: {type: comma_delimited_list, description: internal addresses}
  lb_int_ctrl_v6_ip_0: {type: string, description: internal IPv6 address}
  lb_int_ctrl_v6_ips: {type: comma_delimited_list, description: internal IPv6 addresses}
  lb_int_ctrl_floating_ip: {type: string, description: internal VIP}
  lb_int_ctrl_floating_v6_ip: {type: string, description: internal IPv6 VIP}
resources:
  int_ctrl_network:
    type: OS::Neutron::Net
  lb_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
      fixed_ips:
        - ip_address: {get_param: lb_oam_ip_0}
        - ip_address: {get_param: [lb_oam_ips, 1]}
        - ip_address: {get_param: lb_oam_v6_ip_0}
        - ip_address: {get_param: [lb_oam_v6_ips, 1]}
        - subnet: {get_param: oam_subnet_id}
        - subnet: {get_param: oam_v6_subnet_id}
      allowed_address_pairs:
        - ip_address: {get_param: lb_oam_floating_ip}
        - ip_address: {get_param: lb_oam_floating_v6_ip}
  lb_0_int_ctrl_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: int_ctrl_network}
      fixed_ips:
        - ip_address: {get_param: lb_int_ctrl_ip_0}
        - ip_address: {get_param: [lb_int_ctrl_ips, 1]}
        - ip_address: {get_param: lb_int_ctrl_v6_ip_0}
        - ip_address: {get_param: [lb_int_ctrl_v6_ips, 1]}
      allowed_address_pairs:
        - ip_address: {get_param: lb_int_ctrl_floating_ip}
        - ip_address: {get_param: lb_int_ctrl_floating_v6_ip}
"""
BASE_ENV = """\
parameters:
  lb_int_ctrl_ip_0: 10.1.0.1
  lb_int_ctrl_ips: 10.1.0.1,10.1.0.2
  lb_int_ctrl_v6_ip_0: fd00::1
  lb_int_ctrl_v6_ips: fd00::1,fd00::2
  lb_int_ctrl_floating_ip: 10.1.0.9
  lb_int_ctrl_floating_v6_ip: fd00::9
"""
INCREMENTAL = """\
heat_template_version: 2015-04-30
description: incremental module with a port on the base module's internal network
parameters:
  int_ctrl_net_id: {type: string, description: internal network}
  int_ctrl_subnet_id: {type: string, description: IPv4 subnet}
  int_ctrl_v6_subnet_id: {type: string, description: IPv6 subnet}
resources:
  db_0_int_ctrl_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: int_ctrl_net_id}
      fixed_ips:
        - subnet: {get_param: int_ctrl_subnet_id}
        - subnet: {get_param: int_ctrl_v6_subnet_id}
"""
INCREMENTAL_ENV = "parameters:\n  unused: 1\n"
PACKAGE = {
    "base_ports.yaml": BASE,
    "base_ports.env": BASE_ENV,
    "db_ports.yaml": INCREMENTAL,
    "db_ports.env": INCREMENTAL_ENV,
}


def changed(
    *changes: tuple[str, str],
    file: str = "base_ports.yaml",
    env: tuple[str, str] | None = None,
) -> dict[str, str]:
    """The package with each (old, new) replaced once in ``file`` (and in its env)."""
    files = dict(PACKAGE)
    text = files[file]
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    files[file] = text
    if env is not None:
        env_file = file.replace(".yaml", ".env")
        assert env[0] in files[env_file], env[0]
        files[env_file] = files[env_file].replace(env[0], env[1], 1)
    return files


def rename(old: str, new: str, file: str = "base_ports.yaml") -> dict[str, str]:
    """A parameter renamed where it is declared and where it is read."""
    files = dict(PACKAGE)
    files[file] = files[file].replace(f"  {old}: {{type", f"  {new}: {{type", 1)
    files[file] = files[file].replace(f"get_param: {old}}}", f"get_param: {new}}}")
    files[file] = files[file].replace(f"get_param: [{old},", f"get_param: [{new},")
    env = file.replace(".yaml", ".env")
    files[env] = files[env].replace(f"  {old}:", f"  {new}:")
    return files


def case(rule: str, fail: dict[str, str], at: list[tuple[str, int, int]], name: str = "") -> Case:
    return Case(rule, fail, at, ok=PACKAGE, profiles=("onap",), name=name)


B, INC, BE = "base_ports.yaml", "db_ports.yaml", "base_ports.env"
PORT_CASES: list[Case] = [
    # network
    case(
        "R-681859",
        changed(
            ("network: {get_param: oam_net_id}", "network: {get_param: sig_net_id}"),
            ("  oam_net_id: {", "  sig_net_id: {"),
        ),
        [(B, 25, 16)],
    ),
    case(
        "R-18008", changed(("oam_net_id: {type: string", "oam_net_id: {type: json")), [(B, 4, 22)]
    ),
    case("R-62983", rename("oam_net_id", "oam_network"), [(B, 25, 16)]),
    case(
        "R-62983",
        changed(("network: {get_param: oam_net_id}", "network: oam")),
        [(B, 25, 16)],
        "literal",
    ),
    case("R-86182", rename("int_ctrl_net_id", "int_ctrl_network_id", INC), [(INC, 11, 16)]),
    case(
        "R-29872",
        changed(file=INC, env=("  unused: 1\n", "  int_ctrl_net_id: n\n")),
        [("db_ports.env", 2, 3)],
    ),
    # fixed_ips ip_address: names
    case(
        "R-34037",
        changed(("lb_oam_ips: {type: comma_delimited_list", "lb_oam_ips: {type: json")),
        [(B, 8, 22)],
    ),
    case("R-40971", rename("lb_oam_ip_0", "lb_oam_address_0"), [(B, 27, 23)]),
    case("R-40971", rename("lb_oam_ip_0", "lb_oam_ip_1"), [(B, 27, 23)], "gap"),
    case("R-04697", rename("lb_oam_ips", "lb_oam_addresses"), [(B, 28, 23)]),
    case("R-71577", rename("lb_oam_v6_ip_0", "lb_oam_v6_address"), [(B, 29, 23)]),
    case("R-23503", rename("lb_oam_v6_ips", "lb_oam_v6_addresses"), [(B, 30, 23)]),
    case("R-78380", rename("lb_int_ctrl_ip_0", "lb_int_ctrl_address_0"), [(B, 41, 23)]),
    case("R-85235", rename("lb_int_ctrl_ips", "lb_int_ctrl_addresses"), [(B, 42, 23)]),
    case("R-27818", rename("lb_int_ctrl_v6_ip_0", "lb_int_ctrl_v6_address"), [(B, 43, 23)]),
    case("R-29765", rename("lb_int_ctrl_v6_ips", "lb_int_ctrl_v6_addresses"), [(B, 44, 23)]),
    # fixed_ips ip_address: environment file
    case(
        "R-62590",
        changed(env=("parameters:\n", "parameters:\n  lb_oam_ip_0: 10.0.0.1\n")),
        [(BE, 2, 3)],
    ),
    case("R-93496", changed(env=("  lb_int_ctrl_ips: 10.1.0.1,10.1.0.2\n", "")), [(B, 14, 3)]),
    case(
        "R-39841",
        changed(env=("parameters:\n", "parameters:\n  lb_oam_ip_0: 10.0.0.1\n")),
        [(BE, 2, 3)],
    ),
    case(
        "R-98905",
        changed(env=("parameters:\n", "parameters:\n  lb_oam_ips: 10.0.0.1\n")),
        [(BE, 2, 3)],
    ),
    case(
        "R-87123",
        changed(env=("parameters:\n", "parameters:\n  lb_oam_v6_ip_0: fd00::5\n")),
        [(BE, 2, 3)],
    ),
    case(
        "R-93030",
        changed(env=("parameters:\n", "parameters:\n  lb_oam_v6_ips: fd00::5\n")),
        [(BE, 2, 3)],
    ),
    case("R-28795", changed(env=("  lb_int_ctrl_ip_0: 10.1.0.1\n", "")), [(B, 13, 3)]),
    case("R-90206", changed(env=("  lb_int_ctrl_ips: 10.1.0.1,10.1.0.2\n", "")), [(B, 14, 3)]),
    case("R-97201", changed(env=("  lb_int_ctrl_v6_ip_0: fd00::1\n", "")), [(B, 15, 3)]),
    case("R-98569", changed(env=("  lb_int_ctrl_v6_ips: fd00::1,fd00::2\n", "")), [(B, 16, 3)]),
    # fixed_ips subnet
    case(
        "R-38236",
        changed(("oam_subnet_id: {type: string", "oam_subnet_id: {type: number")),
        [(B, 5, 25)],
    ),
    case("R-62802", rename("oam_subnet_id", "oam_subnet"), [(B, 31, 19)]),
    case("R-15287", rename("oam_v6_subnet_id", "oam_subnet_v6"), [(B, 32, 19)]),
    case("R-84123", rename("int_ctrl_subnet_id", "ctrl_subnet_id", INC), [(INC, 13, 19)]),
    case("R-76160", rename("int_ctrl_v6_subnet_id", "ctrl_v6_subnet_id", INC), [(INC, 14, 19)]),
    case(
        "R-83677", changed(env=("parameters:\n", "parameters:\n  oam_subnet_id: s\n")), [(BE, 2, 3)]
    ),
    case(
        "R-80829",
        changed(env=("parameters:\n", "parameters:\n  oam_v6_subnet_id: s\n")),
        [(BE, 2, 3)],
    ),
    case(
        "R-69634",
        changed(file=INC, env=("  unused: 1\n", "  int_ctrl_subnet_id: s\n")),
        [("db_ports.env", 2, 3)],
    ),
    case(
        "R-22288",
        changed(file=INC, env=("  unused: 1\n", "  int_ctrl_v6_subnet_id: s\n")),
        [("db_ports.env", 2, 3)],
    ),
    # allowed_address_pairs, floating IPs
    case(
        "R-83412",
        changed(env=("parameters:\n", "parameters:\n  lb_oam_floating_ip: 10.0.0.9\n")),
        [(BE, 2, 3)],
    ),
    case("R-41492", rename("lb_oam_floating_ip", "lb_oam_vip"), [(B, 34, 23)]),
    case(
        "R-35735",
        changed(
            (
                "lb_oam_floating_v6_ip: {type: string",
                "lb_oam_floating_v6_ip: {type: comma_delimited_list",
            )
        ),
        [(B, 35, 23)],
    ),
    case(
        "R-41493",
        changed(
            (
                "  lb_0_int_ctrl_port_0:\n",
                "    metadata:\n      aap_exempt: [lb_oam_ip_0]\n  lb_0_int_ctrl_port_0:\n",
            )
        ),
        [(B, 37, 20)],
    ),
    case("R-717227", changed(env=("  lb_int_ctrl_floating_ip: 10.1.0.9\n", "")), [(B, 46, 23)]),
    case("R-805572", rename("lb_int_ctrl_floating_v6_ip", "lb_int_ctrl_v6_vip"), [(B, 47, 23)]),
    case(
        "R-05257",
        changed(("resources:\n", "resources:\n  lb_fip:\n    type: OS::Neutron::FloatingIP\n")),
        [(B, 20, 3)],
    ),
    case(
        "R-76449",
        changed(
            (
                "resources:\n",
                "resources:\n  lb_fia:\n    type: OS::Neutron::FloatingIPAssociation\n",
            )
        ),
        [(B, 20, 3)],
    ),
]
