"""A TripleO-shaped tree of templates, written on the fly (tests must not read the corpus):
an overcloud with a network provider template, groups of controller and compute roles
(provider templates), each role with a chain of service provider templates. Used by the
graph tests and benchmarks/graph.py.

The shape is TripleO's: groups of role templates, each a few dozen resources, with
services nested two levels further down. With the default sizes the tree holds
`total_resources` = 615 resources over five levels of stacks.
"""

from __future__ import annotations

from pathlib import Path

SERVICES = ("ntp", "kernel", "timezone", "logging")
CONFIGS = 6
#: resources of one role stack: hostname, server, 4 ports, configs, deployments, the
#: chain, and per service its facade and 3 resources
ROLE_RESOURCES = 2 + 4 + 2 * CONFIGS + 1 + len(SERVICES) * (1 + 3)
NETWORK_RESOURCES = 12
#: the overcloud's own: Networks, Controller, Compute, endpoint, password, hosts
TOP_RESOURCES = 6

OVERCLOUD = """\
heat_template_version: 2018-08-31
description: A TripleO-shaped overcloud (tests/graph/composed.py)
parameters:
  ControllerCount: {type: number, default: 3}
  ComputeCount: {type: number, default: 14}
resources:
  Networks:
    type: OS::TripleO::Network
  AdminPassword:
    type: OS::Heat::RandomString
    properties: {length: 16}
  Controller:
    type: OS::Heat::ResourceGroup
    depends_on: [Networks]
    properties:
      count: {get_param: ControllerCount}
      resource_def:
        type: OS::TripleO::Controller
        properties: {index: "%index%", role: controller}
  Compute:
    type: OS::Heat::ResourceGroup
    depends_on: [Networks]
    properties:
      count: {get_param: ComputeCount}
      resource_def:
        type: OS::TripleO::Compute
        properties: {index: "%index%", role: compute}
  Endpoint:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [Networks, vip]}
  Hosts:
    type: OS::Heat::Value
    properties:
      value:
        controllers: {get_attr: [Controller, hostname]}
        computes: {get_attr: [Compute, hostname]}
        password: {get_attr: [AdminPassword, value]}
outputs:
  endpoint: {value: {get_attr: [Endpoint, value]}}
"""

NETWORK = """\
heat_template_version: 2018-08-31
parameters:
  public: {type: string, default: public}
resources:
  net:
    type: OS::Neutron::Net
  ctlplane:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 192.168.24.0/24}
  internal_api:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 172.16.2.0/24}
  storage:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 172.16.1.0/24}
  tenant:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 172.16.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: {get_param: public}}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: ctlplane}}
  vip_port:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}}
  vip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: public}, port_id: {get_resource: vip_port}}
  storage_vip: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  internal_vip: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  redis_vip: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
outputs:
  vip: {value: {get_attr: [vip, floating_ip_address]}}
"""

SERVICE = """\
heat_template_version: 2018-08-31
parameters:
  role: {type: string, default: ""}
resources:
  settings:
    type: OS::Heat::Value
    properties: {value: {role: {get_param: role}, service: %(name)s}}
  config:
    type: OS::Heat::StructuredConfig
    properties: {config: {get_attr: [settings, value]}}
  ready:
    type: OS::Heat::None
    depends_on: [config]
outputs:
  role_data: {value: {get_attr: [config, config]}}
"""


def _role(name: str) -> str:
    lines = [
        "heat_template_version: 2018-08-31",
        f"description: The {name} role (one member of its group)",
        "parameters:",
        "  index: {type: string}",
        "  role: {type: string}",
        "resources:",
        "  hostname:",
        "    type: OS::Heat::Value",
        "    properties:",
        f"      value: {{str_replace: {{template: overcloud-{name}-IDX, params: "
        "{IDX: {get_param: index}}}}",
        "  server:",
        "    type: OS::Nova::Server",
        "    properties:",
        "      name: {get_attr: [hostname, value]}",
        "      image: overcloud-full",
        "      flavor: baremetal",
        "      networks:",
    ]
    ports = ("ctlplane", "internal_api", "storage", "tenant")
    lines += [f"        - port: {{get_resource: {port}_port}}" for port in ports]
    for port in ports:
        lines += [f"  {port}_port:", "    type: OS::Neutron::Port", "    properties:"]
        lines.append("      network: ctlplane")
    for index in range(CONFIGS):
        lines += [
            f"  config{index}:",
            "    type: OS::Heat::SoftwareConfig",
            "    properties:",
            "      group: script",
            "      config: {get_attr: [services, role_data]}",
            f"  deployment{index}:",
            "    type: OS::Heat::SoftwareDeployment",
            "    properties:",
            f"      config: {{get_resource: config{index}}}",
            "      server: {get_resource: server}",
        ]
        if index:
            lines.append(f"    depends_on: [deployment{index - 1}]")
    lines += [
        "  services:",
        "    type: OS::Heat::ResourceChain",
        "    properties:",
        "      resources: [" + ", ".join(f"OS::TripleO::Services::{s}" for s in SERVICES) + "]",
        "      resource_properties: {role: {get_param: role}}",
        "outputs:",
        "  hostname: {value: {get_attr: [hostname, value]}}",
    ]
    return "\n".join(lines) + "\n"


def total_resources(controllers: int = 3, computes: int = 14) -> int:
    return TOP_RESOURCES + NETWORK_RESOURCES + (controllers + computes) * (1 + ROLE_RESOURCES)


def write_tree(directory: Path) -> tuple[Path, Path]:
    """The overcloud template and its environment, written in ``directory``."""
    (directory / "services").mkdir(parents=True, exist_ok=True)
    (directory / "overcloud.yaml").write_text(OVERCLOUD)
    (directory / "network.yaml").write_text(NETWORK)
    registry = [
        "resource_registry:",
        "  OS::TripleO::Network: network.yaml",
        "  OS::TripleO::Controller: controller.yaml",
        "  OS::TripleO::Compute: compute.yaml",
    ]
    for role in ("controller", "compute"):
        (directory / f"{role}.yaml").write_text(_role(role))
    for service in SERVICES:
        (directory / "services" / f"{service}.yaml").write_text(SERVICE % {"name": service})
        registry.append(f"  OS::TripleO::Services::{service}: services/{service}.yaml")
    environment = directory / "environment.yaml"
    environment.write_text("\n".join(registry) + "\n")
    return directory / "overcloud.yaml", environment
