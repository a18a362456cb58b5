"""The pure parts of the OpenStack types: Heat's property names and schemas, security
group rules, attributes computed from what the cloud showed, update policies."""

from __future__ import annotations

import json

from stoker.cloud import Cloud, CloudChoice
from stoker.resolution import type_not_runnable
from stoker.resources.base import ResourceView
from stoker.resources.catalog import heat_catalog
from stoker.resources.openstack import TYPES
from stoker.resources.openstack.cinder import Volume
from stoker.resources.openstack.neutron import Port, Subnet
from stoker.resources.openstack.security import _rule_body, _same_rule
from stoker.resources.openstack.server import Server
from stoker.resources.registry import ResourceTypeRegistry

CLOUD = Cloud(CloudChoice("nowhere"))  # never opened by these tests


def view(plugin_type: str, properties: dict, data: dict | None = None) -> ResourceView:
    return ResourceView("r", plugin_type, "id-1", properties, data or {}, "CREATE", "COMPLETE")


def test_every_type_has_heats_schema_exactly_but_for_translated_names():
    for plugin in TYPES:
        heat = heat_catalog().get(plugin.type_name)
        assert heat is not None
        assert plugin.attributes_schema == heat.attributes
        assert set(plugin.properties_schema) == set(heat.properties)
        for name, prop in plugin.properties_schema.items():
            if name in plugin.aliases.values():
                assert not prop.required  # checked after the translation instead
            else:
                assert prop == heat.properties[name], (plugin.type_name, name)


def test_registering_adds_every_type_once():
    registry = ResourceTypeRegistry()
    from stoker.resources import openstack

    openstack.register(registry, CLOUD)
    assert set(registry.names()) == {plugin.type_name for plugin in TYPES}
    assert "OS::Nova::Server" in registry and "OS::Neutron::Net" in registry


def test_deprecated_names_are_translated_and_a_missing_one_is_reported():
    subnet = Subnet(CLOUD)
    assert subnet.normalize({"network_id": "n1", "network": None}) == {"network": "n1"}
    assert subnet.validate({"network_id": "n1"}) == []
    assert subnet.validate({"cidr": "10.0.0.0/24"}) == ["Property network not assigned"]
    server = Server(CLOUD)
    translated = server.normalize({"networks": [{"uuid": "n1", "fixed_ip": "10.0.0.5"}]})
    assert translated["networks"] == [{"fixed_ip": "10.0.0.5", "network": "n1"}]


def test_security_group_rules_as_heat_sends_them():
    rule = _rule_body(None, "g1", {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22})
    assert rule == {
        "security_group_id": "g1",
        "direction": "ingress",
        "ethertype": "IPv4",
        "protocol": "tcp",
        "port_range_min": 22,
        "port_range_max": 22,
    }
    own = _rule_body(None, "g1", {"remote_mode": "remote_group_id", "protocol": "icmp"})
    assert own["remote_group_id"] == "g1"  # no group named: the group itself, as Heat does
    shown = {**rule, "id": "r1", "remote_ip_prefix": None, "port_range_min": "22"}
    assert _same_rule(rule, shown)


def test_server_attributes_from_what_nova_and_neutron_showed():
    shown = {
        "name": "web",
        "addresses": {
            "private": [
                {"addr": "10.0.0.5", "version": 4, "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
                {"addr": "fd00::5", "version": 6, "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01"},
            ]
        },
        "OS-EXT-SRV-ATTR:instance_name": "instance-00000001",
    }
    ports = [{"id": "p1", "mac": "fa:16:3e:00:00:01", "network_id": "n1", "fixed_ips": []}]
    server = Server(CLOUD)
    record = view("OS::Nova::Server", {}, {"show": shown, "ports": ports})
    assert server.attribute(record, "first_address") == "10.0.0.5"
    assert server.attribute(record, "networks") == {
        "private": ["10.0.0.5", "fd00::5"],
        "n1": ["10.0.0.5", "fd00::5"],
    }
    assert [a["port"] for a in server.attribute(record, "addresses")["private"]] == ["p1", "p1"]
    assert server.attribute(record, "instance_name") == "instance-00000001"
    assert server.attribute(record, "show") is shown


def test_server_update_policies_say_when_to_replace():
    server = Server(CLOUD)
    old = view("OS::Nova::Server", {"flavor": "m1.tiny", "flavor_update_policy": "RESIZE"})
    assert not server.needs_replace(old, {"flavor": "m1.small", "flavor_update_policy": "RESIZE"})
    assert server.needs_replace(old, {"flavor": "m1.small", "flavor_update_policy": "REPLACE"})
    ud = view("OS::Nova::Server", {"user_data": "a", "user_data_update_policy": "REPLACE"})
    assert server.needs_replace(ud, {"user_data": "b", "user_data_update_policy": "REPLACE"})
    assert not server.needs_replace(ud, {"user_data": "b", "user_data_update_policy": "IGNORE"})


def test_volume_attributes_under_heats_names():
    shown = {"name": "v", "description": "d", "metadata": {"a": "1"}, "attachments": []}
    volume = Volume(CLOUD)
    assert volume.attribute_of(shown, "display_name") == "v"
    assert volume.attribute_of(shown, "display_description") == "d"
    assert json.loads(volume.attribute_of(shown, "metadata")) == {"a": "1"}
    assert volume.attribute_of(shown, "metadata_values") == {"a": "1"}
    assert volume.attribute_of(shown, "attachments_list") == []


def test_port_body_translates_heats_names():
    class Context:
        properties = {
            "name": None,
            "qos_policy": "q1",
            "no_fixed_ips": True,
            "allowed_address_pairs": [{"ip_address": "10.0.0.9", "mac_address": None}],
        }
        physical_name = "s-port-abc"

    body = Port(CLOUD).translate(None, Context(), dict(Context.properties))  # type: ignore[arg-type]
    assert body == {
        "name": "s-port-abc",
        "qos_policy_id": "q1",
        "allowed_address_pairs": [{"ip_address": "10.0.0.9"}],
        "fixed_ips": [],
    }


def test_a_cloud_type_without_a_cloud_says_how_to_choose_one():
    message = type_not_runnable("OS::Nova::Server")
    assert "against an OpenStack cloud and none is chosen" in message
    assert "--os-cloud NAME or OS_CLOUD=NAME" in message and "OS_AUTH_URL" in message
    assert "cannot run OS::Trove::Instance yet" in type_not_runnable("OS::Trove::Instance")
