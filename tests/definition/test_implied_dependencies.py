"""Edges Heat's Neutron types add beyond the template's references (`add_implied`)."""

from __future__ import annotations

from .helpers import definition_from

TOPOLOGY = """
heat_template_version: 2018-08-31
parameters:
  public_net: {type: string, default: public}
  other_net: {type: string, default: elsewhere}
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: {get_param: public_net}}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
  bare_port:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}}
  floating:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: public_net}, port_id: {get_resource: port}}
  bare_floating:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: public_net}, port_id: {get_resource: bare_port}}
  elsewhere:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: other_net}}
  unattached:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: public_net}}
  association:
    type: OS::Neutron::FloatingIPAssociation
    properties: {floatingip_id: {get_resource: unattached}, port_id: {get_resource: port}}
"""


def test_a_floating_ip_waits_for_the_router_and_the_interface_that_make_it_reachable() -> None:
    definition = definition_from(TOPOLOGY)
    assert not definition.errors, definition.errors
    requires = definition.graph.requires
    assert set(requires["floating"]) == {"port", "router", "interface"}
    # a port without fixed IPs is on every subnet of its network that the template makes
    assert set(requires["bare_floating"]) == {"bare_port", "router", "interface"}
    # another floating network: nothing to wait for
    assert requires["elsewhere"] == ()
    assert set(requires["unattached"]) == {"router"}
    assert set(requires["association"]) == {"unattached", "port", "interface"}


def test_a_port_waits_for_every_subnet_of_its_network() -> None:
    requires = definition_from(TOPOLOGY).graph.requires
    assert set(requires["bare_port"]) == {"net", "subnet"}  # no reference to the subnet
    assert set(requires["port"]) == {"net", "subnet"}
    # the interface is created before the floating IPs and deleted after them
    order = definition_from(TOPOLOGY).resource_order()
    assert order.index("interface") < order.index("floating")


def test_values_compare_as_heat_has_them_before_create() -> None:
    definition = definition_from(
        """
        heat_template_version: 2018-08-31
        parameters:
          net_a: {type: string, default: a}
          net_b: {type: string, default: a}
        resources:
          subnet_a:
            type: OS::Neutron::Subnet
            properties: {network: {get_param: net_a}, cidr: 10.0.0.0/24}
          subnet_literal:
            type: OS::Neutron::Subnet
            properties: {network_id: a, cidr: 10.0.1.0/24}
          subnet_computed:
            type: OS::Neutron::Subnet
            properties:
              network: {list_join: ['', [a]]}
              cidr: 10.0.2.0/24
          port:
            type: OS::Neutron::Port
            properties: {network: {get_param: net_b}}
        """
    )
    assert not definition.errors, definition.errors
    # parameter values (not names) are compared; a computed value matches nothing
    assert set(definition.graph.requires["port"]) == {"subnet_a", "subnet_literal"}


def test_a_router_gateway_waits_for_the_interfaces_of_its_router() -> None:
    definition = definition_from(
        """
        heat_template_version: 2018-08-31
        resources:
          router:
            type: OS::Neutron::Router
          interface:
            type: OS::Neutron::RouterInterface
            properties: {router: {get_resource: router}, subnet: some-subnet}
          gateway:
            type: OS::Neutron::RouterGateway
            properties: {router_id: {get_resource: router}, network: public}
          floating:
            type: OS::Neutron::FloatingIP
            properties: {floating_network: public}
        """
    )
    requires = definition.graph.requires
    assert set(requires["gateway"]) == {"router", "interface"}
    assert set(requires["floating"]) == {"gateway"}


def test_templates_without_neutron_types_keep_their_graph() -> None:
    definition = definition_from(
        """
        heat_template_version: 2018-08-31
        resources:
          a: {type: OS::Heat::None}
          b: {type: OS::Heat::None, depends_on: a}
        """
    )
    assert definition.graph.requires == {"a": (), "b": ("a",)}
