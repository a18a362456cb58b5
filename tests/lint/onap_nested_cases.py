"""Cases for ONAP's nested-template, resource-group, predefined-output and get_file rules
(beyond the seed): a base module invoking a nested file through a ResourceGroup (which
invokes a second-level one), echoing its OAM addresses; each case breaks one rule as the
requirement's wording forbids."""

from __future__ import annotations

from .cases import Case

BASE = """\
heat_template_version: 2015-04-30
description: base module with a group of nested lb servers
parameters:
  lb_image_name: {type: string, description: image}
  lb_count: {type: number, description: group size}
  lb_oam_ip_0: {type: string, description: OAM address}
  oam_net_id: {type: string, description: OAM network}
resources:
  lb_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: lb_count}
      resource_def:
        type: lb_nested.yaml
        properties:
          lb_image_name: {get_param: lb_image_name}
          index: "%index%"
  lb_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      network: {get_param: oam_net_id}
      fixed_ips:
        - ip_address: {get_param: lb_oam_ip_0}
  lb_config:
    type: OS::Heat::Value
    properties:
      value: {get_file: init.sh}
outputs:
  oam_management_v4_address:
    value: {get_param: lb_oam_ip_0}
  oam_management_v6_address:
    value: {get_attr: [lb_0_oam_port_0, fixed_ips, 1, ip_address]}
"""
NESTED = """\
heat_template_version: 2015-04-30
description: one lb server (first level)
parameters:
  lb_image_name: {type: string, description: image}
  index: {type: number, description: member index}
resources:
  lb_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: lb_image_name}
  lb_volumes:
    type: lb_volume_nested.yaml
    properties:
      index: {get_param: index}
"""
SECOND = """\
heat_template_version: 2015-04-30
description: second level
parameters:
  index: {type: number, description: member index}
resources:
  lb_volume_value:
    type: OS::Heat::Value
    properties:
      value: {get_param: index}
"""
PACKAGE = {
    "base_nest.yaml": BASE,
    "base_nest.env": "parameters:\n  lb_image_name: img\n  lb_count: 2\n",
    "lb_nested.yaml": NESTED,
    "lb_volume_nested.yaml": SECOND,
    "init.sh": "echo hello\n",
}
#: an incremental module that declares the OAM outputs too
OTHER = """\
heat_template_version: 2015-04-30
description: incremental module
parameters:
  db_oam_ip_0: {type: string, description: OAM address}
resources:
  db_0_oam_port_0:
    type: OS::Neutron::Port
    properties:
      fixed_ips:
        - ip_address: {get_param: db_oam_ip_0}
outputs:
  oam_management_v4_address:
    value: {get_param: db_oam_ip_0}
  oam_management_v6_address:
    value: {get_attr: [db_0_oam_port_0, fixed_ips, 0, ip_address]}
"""
SERVER = "  lb_server_9:\n    type: OS::Nova::Server\n"


def changed(file: str, *changes: tuple[str, str], **extra: str) -> dict[str, str]:
    """The package with each (old, new) replaced once in ``file``, plus ``extra`` files
    (keys with ``/`` written as ``__``)."""
    files = dict(PACKAGE)
    text = files[file]
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    files[file] = text
    files.update({name.replace("__", "/"): content for name, content in extra.items()})
    return files


def case(rule: str, fail: dict[str, str], at: list[tuple[str, int, int]]) -> Case:
    return Case(rule, fail, at, ok=PACKAGE, profiles=("onap",))


B, N, S = "base_nest.yaml", "lb_nested.yaml", "lb_volume_nested.yaml"
DEEP = "heat_template_version: 2015-04-30\ndescription: third level\n"
NESTED_CASES: list[Case] = [
    case(
        "R-60011",
        changed(
            S,
            ("resources:\n", "resources:\n  lb_deep:\n    type: deep.yaml\n"),
            **{"deep.yaml": DEEP},
        ),
        [(B, 14, 15)],
    ),
    case("R-17528", changed(N, ("resources:\n", "resources:\n" + SERVER)), [(N, 9, 3)]),
    case("R-17528", changed(S, ("resources:\n", "resources:\n" + SERVER)), [(S, 6, 3)]),
    case(
        "R-708564",
        {
            **changed(
                B,
                (
                    "lb_image_name: {get_param: lb_image_name}\n          index",
                    "image_name: {get_param: lb_image_name}\n          index",
                ),
            ),
            N: NESTED.replace("lb_image_name", "image_name"),
        },
        [(B, 16, 23)],
    ),
    case("R-11041", changed(B, ('          index: "%index%"\n', "")), [(B, 14, 15)]),
    case(
        "R-50011",
        {**PACKAGE, "base_nest.env": "parameters:\n  lb_image_name: img\n"},
        [(B, 12, 14)],
    ),
    case(
        "R-18683",
        {**PACKAGE, "db_mod.yaml": OTHER, "db_mod.env": "parameters: {}\n"},
        [("db_mod.yaml", 12, 3)],
    ),
    case(
        "R-94669",
        {**PACKAGE, "db_mod.yaml": OTHER, "db_mod.env": "parameters: {}\n"},
        [("db_mod.yaml", 14, 3)],
    ),
    case(
        "R-56287",
        changed(B, ("value: {get_param: lb_oam_ip_0}", "value: {get_param: lb_image_name}")),
        [(B, 30, 12)],
    ),
    case(
        "R-48987",
        changed(B, ("[lb_0_oam_port_0, fixed_ips", "[lb_group, fixed_ips")),
        [(B, 32, 12)],
    ),
    case(
        "R-76718",
        changed(
            B, ("get_file: init.sh", "get_file: scripts/init.sh"), **{"scripts__init.sh": "echo\n"}
        ),
        [(B, 27, 25)],
    ),
    case(
        "R-41888",
        changed(B, ("value: {get_param: lb_oam_ip_0}", "value: {get_file: 'http://x.org/ip'}")),
        [(B, 30, 23)],
    ),
]
