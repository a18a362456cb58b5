"""A generated VNF package of the kind ONAP's validation reads: 50 templates, 45 envs.

Shared by the linter benchmarks (`lint.py` in one process, `lint_process.py` as whole
processes). Imports nothing of stoker, so a benchmark that runs ``stoker`` as a child
process can use it without loading the library itself.
"""

from __future__ import annotations

from pathlib import Path

MODULES = 45  # base + incremental modules, each with its environment file
NESTED = 5  # nested templates used by the modules' resource groups


def module(name: str, index: int) -> str:
    """One ONAP-style module: parameters for two servers, their ports, a resource group."""
    vm = f"vm{index}"
    lines = [
        "heat_template_version: 2015-04-30",
        f"description: module {name}",
        "parameters:",
        "  vnf_name:\n    type: string\n    description: VNF name",
        "  vnf_id:\n    type: string\n    description: VNF id",
        "  vf_module_id:\n    type: string\n    description: module id",
        "  vf_module_name:\n    type: string\n    description: module name",
        "  workload_context:\n    type: string\n    description: workload context",
        "  environment_context:\n    type: string\n    description: environment context",
        f"  {vm}_names:\n    type: comma_delimited_list\n    description: server names",
        f"  {vm}_image_name:\n    type: string\n    description: image",
        f"  {vm}_flavor_name:\n    type: string\n    description: flavor",
        "  oam_net_id:\n    type: string\n    description: OAM network",
        f"  {vm}_oam_ips:\n    type: comma_delimited_list\n    description: OAM addresses",
        "  availability_zone_0:\n    type: string\n    description: zone",
        "  index:\n    type: number\n    description: server index",
        f"  {vm}_count:\n    type: number\n    description: group size",
        "resources:",
    ]
    for server in range(2):
        lines += [
            f"  {vm}_{server}_oam_port_0:",
            "    type: OS::Neutron::Port",
            "    properties:",
            "      network: {get_param: oam_net_id}",
            f"      fixed_ips: [{{ip_address: {{get_param: [{vm}_oam_ips, {server}]}}}}]",
            f"  {vm}_server_{server}:",
            "    type: OS::Nova::Server",
            "    properties:",
            f"      name: {{get_param: [{vm}_names, {{get_param: index}}]}}",
            f"      image: {{get_param: {vm}_image_name}}",
            f"      flavor: {{get_param: {vm}_flavor_name}}",
            "      availability_zone: {get_param: availability_zone_0}",
            f"      networks: [{{port: {{get_resource: {vm}_{server}_oam_port_0}}}}]",
            "      metadata:",
            "        vnf_name: {get_param: vnf_name}",
            "        vnf_id: {get_param: vnf_id}",
            "        vf_module_id: {get_param: vf_module_id}",
            "        vf_module_name: {get_param: vf_module_name}",
            "        workload_context: {get_param: workload_context}",
            "        environment_context: {get_param: environment_context}",
        ]
    lines += [
        f"  {vm}_group:",
        "    type: OS::Heat::ResourceGroup",
        "    properties:",
        f"      count: {{get_param: {vm}_count}}",
        "      resource_def:",
        f"        type: nested_{index % NESTED}.yaml",
        "        properties:",
        "          vnf_name: {get_param: vnf_name}",
        "outputs:",
        f"  {vm}_server_0_id:",
        f"    value: {{get_resource: {vm}_server_0}}",
        f"  {vm}_group_refs:",
        f"    value: {{get_attr: [{vm}_group, refs]}}",
    ]
    return "\n".join(lines) + "\n"


def nested(index: int) -> str:
    return (
        "heat_template_version: 2015-04-30\n"
        f"description: nested {index}\n"
        "parameters:\n  vnf_name:\n    type: string\n    description: VNF name\n"
        "resources:\n"
        f"  nested_{index}_value:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {get_param: vnf_name}\n"
        f"outputs:\n  nested_{index}_out:\n    value: {{get_attr: [nested_{index}_value, value]}}\n"
    )


def environment(index: int) -> str:
    """What the vendor supplies: images and flavors; not the names, zones, ids, external
    networks and their addresses ONAP supplies at instantiation (R-22838, R-59568,
    R-20856, R-29872, R-62590 ...)."""
    vm = f"vm{index}"
    return (
        f"parameters:\n  {vm}_image_name: img\n  {vm}_flavor_name: m1.small\n"
        f"  index: 0\n  {vm}_count: 2\n"
    )


def write_package(directory: Path) -> int:
    names = ["base_vnf"] + [f"module_{i}" for i in range(1, MODULES)]
    for index, name in enumerate(names):
        (directory / f"{name}.yaml").write_text(module(name, index))
        (directory / f"{name}.env").write_text(environment(index))
    for index in range(NESTED):
        (directory / f"nested_{index}.yaml").write_text(nested(index))
    return len(names) + NESTED
