"""Each edge of the dependency graph keeps what made it (`EdgeReason`), from the walks
that find the edges: what ``stoker stack graph`` labels them with."""

from __future__ import annotations

from stoker.definition.edges import EdgeReason

from .helpers import definition_from

HOT = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
  port:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}}
  value:
    type: OS::Heat::Value
    depends_on: [port]
    properties:
      value: [{get_resource: net}, {get_attr: [net, name]}, {get_attr: [subnet, cidr]}]
  later:
    type: OS::Heat::None
    depends_on: [value]
    metadata: {of: {get_attr: [value, value]}}
"""


def test_each_edge_says_what_made_it() -> None:
    graph = definition_from(HOT).graph
    assert graph is not None
    assert graph.reason("subnet", "net") == EdgeReason.GET_RESOURCE
    assert graph.reason("port", "net") == EdgeReason.GET_RESOURCE
    # Heat's rule for ports: the subnets of its network, though nothing names them
    assert graph.reason("port", "subnet") == EdgeReason.IMPLIED
    assert graph.reason("value", "port") == EdgeReason.DEPENDS_ON
    # both a get_resource and a get_attr of net: one edge, both reasons
    assert graph.reason("value", "net") == EdgeReason.GET_RESOURCE | EdgeReason.GET_ATTR
    assert graph.reason("value", "subnet") == EdgeReason.GET_ATTR
    # depends_on and a reference in the metadata
    assert graph.reason("later", "value") == EdgeReason.DEPENDS_ON | EdgeReason.GET_ATTR
    # the reasons are for exactly the edges the engine orders by
    assert {n: set(r) for n, r in graph.reasons.items()} == {
        n: set(r) for n, r in graph.requires.items()
    }


def test_cfn_references_are_reasons_too() -> None:
    graph = definition_from(
        """
        HeatTemplateFormatVersion: '2012-12-12'
        Resources:
          a: {Type: OS::Heat::None}
          b:
            Type: OS::Heat::Value
            Properties: {value: {Ref: a}}
          c:
            Type: OS::Heat::Value
            Properties: {value: {'Fn::GetAtt': [b, value]}}
        """
    ).graph
    assert graph is not None
    assert graph.reason("b", "a") == EdgeReason.GET_RESOURCE
    assert graph.reason("c", "b") == EdgeReason.GET_ATTR
