"""Cases for ONAP's OS::Nova::Server naming conventions (beyond the seed): a module whose
two servers keep every convention, and for each requirement one change that breaks it."""

from __future__ import annotations

from .cases import Case

SERVERS = """\
heat_template_version: 2015-04-30
description: base module with two lb servers
parameters:
  vnf_id: {type: string, description: VNF id}
  vf_module_id: {type: string, description: module id}
  vnf_name: {type: string, description: VNF name}
  lb_image_name: {type: string, description: image}
  lb_flavor_name: {type: string, description: flavor}
  lb_name_0: {type: string, description: name of server 0}
  lb_names: {type: comma_delimited_list, description: names}
  availability_zone_0: {type: string, description: zone}
resources:
  lb_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: lb_image_name}
      flavor: {get_param: lb_flavor_name}
      name: {get_param: lb_name_0}
      availability_zone: {get_param: availability_zone_0}
      metadata:
        vnf_id: {get_param: vnf_id}
        vf_module_id: {get_param: vf_module_id}
        vnf_name: {get_param: vnf_name}
  lb_server_1:
    type: OS::Nova::Server
    properties:
      image: {get_param: lb_image_name}
      flavor: {get_param: lb_flavor_name}
      name: {get_param: [lb_names, 1]}
      availability_zone: {get_param: availability_zone_0}
      metadata:
        vnf_id: {get_param: vnf_id}
        vf_module_id: {get_param: vf_module_id}
        vnf_name: {get_param: vnf_name}
"""
SERVERS_ENV = "parameters:\n  lb_image_name: img\n  lb_flavor_name: m1.small\n"
PACKAGE = {"base_lb.yaml": SERVERS, "base_lb.env": SERVERS_ENV}


def broken(*changes: tuple[str, str], env: str = SERVERS_ENV) -> dict[str, str]:
    template = SERVERS
    for old, new in changes:
        assert old in template, old
        template = template.replace(old, new)
    return {"base_lb.yaml": template, "base_lb.env": env}


NOVA_CASES: list[Case] = [
    Case(
        "R-29751",
        broken(("  lb_server_1:\n", "  lb_server_2:\n")),
        [("base_lb.yaml", 24, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-304011",
        broken(
            (
                "flavor: {get_param: lb_flavor_name}\n      name: {get_param: lb_name_0}",
                "flavor: {get_param: db_flavor_name}\n      name: {get_param: lb_name_0}",
            ),
            (
                "  lb_flavor_name: {type",
                "  db_flavor_name: {type: string, description: f}\n  lb_flavor_name: {type",
            ),
            env=SERVERS_ENV + "  db_flavor_name: m1\n",
        ),
        [("base_lb.yaml", 18, 15)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-901331",
        broken(
            (
                (
                    "image: {get_param: lb_image_name}\n"
                    "      flavor: {get_param: lb_flavor_name}\n"
                    "      name: {get_param: lb_name_0}"
                ),
                (
                    "image: fixed-image\n"
                    "      flavor: {get_param: lb_flavor_name}\n"
                    "      name: {get_param: lb_name_0}"
                ),
            )
        ),
        [("base_lb.yaml", 16, 14)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-71152",
        broken(("lb_image_name: {type: string", "lb_image_name: {type: json")),
        [("base_lb.yaml", 7, 25)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-58670",
        broken(
            ("{get_param: lb_image_name}", "{get_param: lb_image}"),
            ("  lb_image_name: {type", "  lb_image: {type"),
            env="parameters:\n  lb_image: img\n  lb_flavor_name: m1.small\n",
        ),
        [("base_lb.yaml", 16, 14), ("base_lb.yaml", 27, 14)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-91125",
        broken(env="parameters:\n  lb_flavor_name: m1.small\n"),
        [("base_lb.yaml", 7, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-481670",
        broken(
            (
                "flavor: {get_param: lb_flavor_name}\n      name: {get_param: lb_name_0}",
                "flavor: m1.small\n      name: {get_param: lb_name_0}",
            )
        ),
        [("base_lb.yaml", 17, 15)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-50436",
        broken(("lb_flavor_name: {type: string", "lb_flavor_name: {type: number")),
        [("base_lb.yaml", 8, 26)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-45188",
        broken(
            ("{get_param: lb_flavor_name}", "{get_param: lb_flavor}"),
            ("  lb_flavor_name: {type", "  lb_flavor: {type"),
            env="parameters:\n  lb_image_name: img\n  lb_flavor: m1.small\n",
        ),
        [("base_lb.yaml", 17, 15), ("base_lb.yaml", 28, 15)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-69431",
        broken(env="parameters:\n  lb_image_name: img\n"),
        [("base_lb.yaml", 8, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-663631",
        broken(
            ("name: {get_param: lb_name_0}", "name: lb0"),
            ("  lb_name_0: {type: string, description: name of server 0}\n", ""),
        ),
        [("base_lb.yaml", 17, 13)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-51430",
        broken(("lb_names: {type: comma_delimited_list", "lb_names: {type: json")),
        [("base_lb.yaml", 10, 20)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-54171",
        broken(("lb_name_0", "lb_name_1")),
        [("base_lb.yaml", 18, 13)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-87817",
        broken(("lb_names", "lb_name_list")),
        [("base_lb.yaml", 29, 13)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-22838",
        broken(env=SERVERS_ENV + "  lb_name_0: x\n"),
        [("base_lb.env", 4, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-98450",
        broken(("availability_zone_0", "zone_0")),
        [("base_lb.yaml", 19, 26), ("base_lb.yaml", 30, 26)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-23311",
        broken(
            (
                "availability_zone_0: {type: string",
                "availability_zone_0: {type: comma_delimited_list",
            )
        ),
        [("base_lb.yaml", 11, 31)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-59568",
        broken(env=SERVERS_ENV + "  availability_zone_0: nova\n"),
        [("base_lb.env", 4, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-37437",
        broken(
            (
                (
                    "        vnf_id: {get_param: vnf_id}\n"
                    "        vf_module_id: {get_param: vf_module_id}\n"
                    "        vnf_name: {get_param: vnf_name}\n"
                    "  lb_server_1"
                ),
                (
                    "        vf_module_id: {get_param: vf_module_id}\n"
                    "        vnf_name: {get_param: vnf_name}\n"
                    "  lb_server_1"
                ),
            )
        ),
        [("base_lb.yaml", 13, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-07507",
        broken(("vnf_id: {type: string", "vnf_id: {type: number")),
        [("base_lb.yaml", 4, 18)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-55218",
        broken(
            (
                "vnf_id: {type: string, description: VNF id}",
                "vnf_id: {type: string, description: VNF id, constraints: [{length: {min: 1}}]}",
            )
        ),
        [("base_lb.yaml", 4, 47)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-20856",
        broken(env=SERVERS_ENV + "  vnf_id: x\n"),
        [("base_lb.env", 4, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-71493",
        broken(
            (
                (
                    "    vf_module_id: {get_param: vf_module_id}\n"
                    "        vnf_name: {get_param: vnf_name}\n"
                    "  lb_server_1"
                ),
                "    vf_module_id: vfm\n        vnf_name: {get_param: vnf_name}\n  lb_server_1",
            )
        ),
        [("base_lb.yaml", 22, 23)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-82134",
        broken(("vf_module_id: {type: string", "vf_module_id: {type: json")),
        [("base_lb.yaml", 5, 24)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-98374",
        broken(
            (
                "vf_module_id: {type: string, description: module id}",
                (
                    "vf_module_id: {type: string, description: module id"
                    ", constraints: [{length: {min: 1}}]}"
                ),
            )
        ),
        [("base_lb.yaml", 5, 56)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-72871",
        broken(env=SERVERS_ENV + "  vf_module_id: x\n"),
        [("base_lb.env", 4, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-72483",
        broken(("        vnf_name: {get_param: vnf_name}\n  lb_server_1", "  lb_server_1")),
        [("base_lb.yaml", 13, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-62428",
        broken(("vnf_name: {type: string", "vnf_name: {type: boolean")),
        [("base_lb.yaml", 6, 20)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-44318",
        broken(
            (
                "vnf_name: {type: string, description: VNF name}",
                (
                    "vnf_name: {type: string, description: VNF name"
                    ", constraints: [{length: {min: 1}}]}"
                ),
            )
        ),
        [("base_lb.yaml", 6, 51)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-36542",
        broken(env=SERVERS_ENV + "  vnf_name: x\n"),
        [("base_lb.env", 4, 3)],
        ok=PACKAGE,
        profiles=("onap",),
    ),
    # a resource id that does not read {vm-type}_server_{index} at all
    Case(
        "R-29751",
        broken(("  lb_server_1:\n", "  lb_second:\n")),
        [("base_lb.yaml", 24, 3)],
        ok=PACKAGE,
        profiles=("onap",),
        name="not-the-form",
    ),
    # a nested file may rename the availability zone parameter (R-256790)
    Case(
        "R-98450",
        broken(("availability_zone_0", "zone_0")),
        [("base_lb.yaml", 19, 26), ("base_lb.yaml", 30, 26)],
        ok={
            **PACKAGE,
            "base_lb.yaml": SERVERS.replace(
                "resources:\n",
                "resources:\n  lb_group:\n"
                "    type: OS::Heat::ResourceGroup\n    properties:\n      count: 1\n"
                "      resource_def:\n        type: lb_nested.yaml\n        properties:\n"
                "          zone: {get_param: availability_zone_0}\n",
                1,
            ),
            "lb_nested.yaml": "heat_template_version: 2015-04-30\ndescription: n\n"
            "parameters:\n  zone: {type: string, description: z}\nresources:\n"
            "  lb_server_9:\n    type: OS::Nova::Server\n    properties:\n"
            "      availability_zone: {get_param: zone}\n",
        },
        profiles=("onap",),
        name="nested-may-rename",
    ),
]

PORT = """\
heat_template_version: 2015-04-30
description: base module with a port
parameters:
  lb_oam_ip_0: {type: string, description: address}
  lb_oam_ips: {type: comma_delimited_list, description: addresses}
  oam_net_id: {type: string, description: network}
resources:
  lb_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
      fixed_ips:
        - ip_address: {get_param: lb_oam_ip_0}
        - ip_address: {get_param: [lb_oam_ips, 1]}
"""
PORT_PACKAGE = {"base_port.yaml": PORT, "base_port.env": "parameters:\n  oam_net_id: n\n"}
NOVA_CASES.append(
    Case(
        "R-34037",
        {
            **PORT_PACKAGE,
            "base_port.yaml": PORT.replace("lb_oam_ips: {type: comma", "lb_oam_ips: {type: json"),
        },
        [("base_port.yaml", 5, 22)],
        ok=PORT_PACKAGE,
        profiles=("onap",),
    )
)

INTERNAL = PORT.replace("  oam_net_id: {type: string, description: network}\n", "").replace(
    "resources:\n",
    "resources:\n  int_ctrl_network:\n    type: OS::Neutron::Net\n"
    "  lb_0_int_ctrl_port_0:\n    type: OS::Neutron::Port\n"
    "    properties:\n      network: {get_resource: int_ctrl_network}\n",
)
INTERNAL_PACKAGE = {**PORT_PACKAGE, "base_port.yaml": INTERNAL.replace("oam_net_id", "oam_net")}
NOVA_CASES += [
    Case(
        "R-25720",
        {**PORT_PACKAGE, "base_port.yaml": INTERNAL.replace("int_ctrl_network", "ctrl_net")},
        [("base_port.yaml", 7, 3)],
        ok={**PORT_PACKAGE, "base_port.yaml": INTERNAL},
        profiles=("onap",),
    ),
    Case(
        "R-20453",
        {**PORT_PACKAGE, "base_port.yaml": PORT.replace("lb_0_oam_port_0", "lb_oam_port")},
        [("base_port.yaml", 8, 3)],
        ok=PORT_PACKAGE,
        profiles=("onap",),
    ),
    Case(
        "R-26351",
        {
            **PORT_PACKAGE,
            "base_port.yaml": INTERNAL.replace("lb_0_int_ctrl_port_0", "lb_0_ctrl_port_0"),
        },
        [("base_port.yaml", 9, 3)],
        ok={**PORT_PACKAGE, "base_port.yaml": INTERNAL},
        profiles=("onap",),
    ),
]
