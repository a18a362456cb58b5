"""Cases for the optional and recommended keys of an OS::Nova::Server's metadata (beyond
the seed): vf_module_name, vf_module_index, workload_context, environment_context and
vm_role; one server keeps every convention, each case breaks one as its wording forbids."""

from __future__ import annotations

from .cases import Case

BASE = """\
heat_template_version: 2015-04-30
description: base module with one fully described server
parameters:
  vnf_id: {type: string, description: VNF id}
  vf_module_id: {type: string, description: module id}
  vnf_name: {type: string, description: VNF name}
  vf_module_name: {type: string, description: module name}
  vf_module_index: {type: number, description: module index}
  workload_context: {type: string, description: workload context}
  environment_context: {type: string, description: environment context}
  vm_role: {type: string, description: role}
  lb_image_name: {type: string, description: image}
  lb_flavor_name: {type: string, description: flavor}
  lb_name_0: {type: string, description: name}
resources:
  lb_server_0:
    type: OS::Nova::Server
    properties:
      image: {get_param: lb_image_name}
      flavor: {get_param: lb_flavor_name}
      name: {get_param: lb_name_0}
      metadata:
        vnf_id: {get_param: vnf_id}
        vf_module_id: {get_param: vf_module_id}
        vnf_name: {get_param: vnf_name}
        vf_module_name: {get_param: vf_module_name}
        vf_module_index: {get_param: vf_module_index}
        workload_context: {get_param: workload_context}
        environment_context: {get_param: environment_context}
        vm_role: {get_param: vm_role}
"""
ENV = "parameters:\n  lb_image_name: img\n  lb_flavor_name: m1\n  vm_role: lb\n"
VOLUME = """\
heat_template_version: 2015-04-30
description: volume module
parameters:
  lb_volume_size_0: {type: number, description: size}
resources:
  lb_volume_0:
    type: OS::Cinder::Volume
    properties:
      size: {get_param: lb_volume_size_0}
outputs:
  lb_volume_id_0:
    value: {get_resource: lb_volume_0}
"""
PACKAGE = {
    "base_lb.yaml": BASE,
    "base_lb.env": ENV,
    "base_lb_volume.yaml": VOLUME,
    "base_lb_volume.env": "parameters:\n  lb_volume_size_0: 10\n",
}
B, E = "base_lb.yaml", "base_lb.env"


def changed(old: str, new: str, file: str = B) -> dict[str, str]:
    files = dict(PACKAGE)
    assert old in files[file], old
    files[file] = files[file].replace(old, new, 1)
    return files


def dropped(key: str) -> dict[str, str]:
    """The server's metadata without ``key`` (its parameter left unused is R-90279's)."""
    return changed(f"        {key}: {{get_param: {key}}}\n", "")


def case(rule: str, fail: dict[str, str], at: list[tuple[str, int, int]], name: str = "") -> Case:
    return Case(rule, fail, at, ok=PACKAGE, profiles=("onap",), name=name)


def constrained(key: str, kind: str = "string") -> dict[str, str]:
    return changed(
        f"  {key}: {{type: {kind},",
        f"  {key}: {{constraints: [{{length: {{min: 1}}}}], type: {kind},",
    )


def enumerated(key: str, value: str = "x") -> dict[str, str]:
    return changed("parameters:\n", f"parameters:\n  {key}: {value}\n", E)


METADATA_CASES: list[Case] = [
    case(
        "R-68023",
        changed("vf_module_name: {get_param: vf_module_name}", "vf_module_name: m"),
        [(B, 26, 25)],
    ),
    case(
        "R-39067",
        changed("vf_module_name: {type: string", "vf_module_name: {type: number"),
        [(B, 7, 26)],
    ),
    case("R-15480", constrained("vf_module_name"), [(B, 7, 20)]),
    case("R-80374", enumerated("vf_module_name"), [(E, 2, 3)]),
    case(
        "R-50816",
        changed("vf_module_index: {get_param: vf_module_index}", "vf_module_index: 0"),
        [(B, 27, 26)],
    ),
    case(
        "R-54340",
        changed("vf_module_index: {type: number", "vf_module_index: {type: string"),
        [(B, 8, 27)],
    ),
    case("R-09811", constrained("vf_module_index", "number"), [(B, 8, 21)]),
    case("R-37039", enumerated("vf_module_index", "0"), [(E, 2, 3)]),
    case(
        "R-55306",
        changed(
            "size: {get_param: lb_volume_size_0}",
            "size: {get_param: vf_module_index}",
            "base_lb_volume.yaml",
        ),
        [("base_lb_volume.yaml", 9, 25)],
    ),
    case("R-47061", dropped("workload_context"), [(B, 16, 3)]),
    case(
        "R-74978",
        changed("workload_context: {type: string", "workload_context: {type: json"),
        [(B, 9, 28)],
    ),
    case("R-34055", constrained("workload_context"), [(B, 9, 22)]),
    case("R-02691", enumerated("workload_context"), [(E, 2, 3)]),
    case("R-88536", dropped("environment_context"), [(B, 16, 3)]),
    case(
        "R-20308",
        changed("environment_context: {type: string", "environment_context: {type: json"),
        [(B, 10, 31)],
    ),
    case("R-56183", constrained("environment_context"), [(B, 10, 25)]),
    case("R-13194", enumerated("environment_context"), [(E, 2, 3)]),
    case(
        "R-85328",
        changed("vm_role: {get_param: vm_role}", "vm_role: {list_join: ['', [lb]]}"),
        [(B, 30, 18)],
    ),
    case("R-67597", constrained("vm_role"), [(B, 11, 13)]),
    case("R-86476", changed("  vm_role: lb\n", "  vm_role: load-balancer\n", E), [(E, 4, 12)]),
    case(
        "R-86476",
        changed("vm_role: {get_param: vm_role}", "vm_role: lb.1"),
        [(B, 30, 18)],
        "written",
    ),
]
